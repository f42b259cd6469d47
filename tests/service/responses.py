"""Every JSON body the tests' Flask clients receive, held to the committed openapi.yaml by a strict
OpenAPI 3.0 validator (openapi-schema-validator: `nullable`, `oneOf`, formats, no property the
schema does not declare where it says so).

The apps of the tests make their clients `CheckedClient`s (tests/service/conftest.py), so the
hands the suite plays (tests/service/play.py and every test that acts at a table) are checked
response by response: a field whose type drifts from the document fails the test that received
it, at the request.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import orjson
import yaml
from flask import Flask
from flask.testing import FlaskClient
from openapi_schema_validator import OAS30ReadValidator, oas30_format_checker
from werkzeug.exceptions import HTTPException
from werkzeug.test import TestResponse

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"
JSON_TYPES = ("application/json", "application/problem+json")


@cache
def spec() -> dict[str, Any]:
    return yaml.safe_load(SPEC_PATH.read_text())


def _resolved(item: dict[str, Any]) -> dict[str, Any]:
    """A response object, its `$ref` to `#/components/responses/...` followed."""
    while "$ref" in item:
        *_, kind, name = item["$ref"].split("/")
        item = spec()["components"][kind][name]
    return item


@cache
def validator(schema_json: str) -> OAS30ReadValidator:
    """A strict validator of one schema, its references resolved in the document's components."""
    schema = orjson.loads(schema_json)
    return OAS30ReadValidator({**schema, "components": spec()["components"]},
                              format_checker=oas30_format_checker)


def route_of(app: Flask, method: str, path: str) -> str | None:
    """The document's path (`/v1/tables/{table_id}`) of the route `path` takes, if any."""
    try:
        rule, _ = app.url_map.bind("localhost").match(path, method=method, return_rule=True)
    except HTTPException:
        return None  # no route: Werkzeug's own 404 or 405, which no operation answers
    return str(rule).replace("<", "{").replace(">", "}")


def problems(method: str, route: str, status: int, content_type: str,
             body: bytes | None) -> list[str]:
    """What is wrong with a response to `method route`, by the document: an unlisted status, an
    undocumented JSON type, or a body its schema refuses (each error with where it is). A
    `body` of None is not checked."""
    operation = spec()["paths"].get(route, {}).get(method.lower())
    if operation is None:
        return []  # not in the contract: the reference, the pages, the bench's endpoints
    where = f"{method} {route} -> {status}"
    listed = operation["responses"]
    if str(status) not in listed:
        return [f"{where}: status not listed ({sorted(listed)})"]
    mimetype = content_type.split(";")[0].strip()
    if mimetype not in JSON_TYPES or not body:
        return []
    content = _resolved(listed[str(status)]).get("content", {})
    if mimetype not in content:
        return [f"{where}: {mimetype} is not among {sorted(content)}"]
    schema = content[mimetype].get("schema")
    if schema is None:
        return []
    check = validator(orjson.dumps(schema, option=orjson.OPT_SORT_KEYS).decode())
    return [f"{where}: at {'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message}"
            for e in check.iter_errors(orjson.loads(body))]


def response_problems(app: Flask, response: TestResponse) -> list[str]:
    request = response.request
    route = route_of(app, request.method, request.path)
    if route is None:
        return []
    # Only a JSON body is read here (and kept for the test to read again): an event stream's
    # is the test's to read, as it comes.
    body = response.get_data() if response.mimetype in JSON_TYPES else None
    return problems(request.method, route, response.status_code,
                    response.headers.get("Content-Type", ""), body)


class CheckedClient(FlaskClient):
    """A test client that fails on any response the document does not describe."""

    checked = 0  # bodies held to their schema, by every client (a test shows the hook runs)

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        response = super().open(*args, **kwargs)
        wrong = response_problems(self.application, response)
        assert not wrong, "the response is not as openapi.yaml says:\n" + "\n".join(wrong[:20])
        if response.mimetype in JSON_TYPES:
            CheckedClient.checked += 1
        return response
