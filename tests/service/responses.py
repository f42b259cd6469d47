"""Every JSON body the tests' Flask clients receive, held to the committed openapi.yaml by a strict
OpenAPI 3.0 validator (openapi-schema-validator: `nullable`, `oneOf`, formats, no property the
schema does not declare where it says so).

The apps of the tests make their clients `CheckedClient`s (tests/service/conftest.py), so the
hands the suite plays (tests/service/play.py and every test that acts at a table) are checked
response by response: a field whose type drifts from the document fails the test that received
it, at the request.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

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
    return nullable_widened(yaml.load(SPEC_PATH.read_text(), Loader=yaml.CSafeLoader))


def nullable_widened(node: Any) -> Any:
    """`node` with each schema that is `nullable` beside `allOf` or `oneOf` written as that
    schema or null (`anyOf` it, without `nullable`, and `{nullable: true, enum: [null]}`).

    openapi.yaml writes a nullable reference `allOf: [$ref]` with `nullable: true`, and a
    nullable union its members with `nullable: true` (service/http/unions.py `or_null`), as
    every generator reads null into them (and schemathesis: `anyOf: [schema, {type: null}]`);
    the validator reads OpenAPI 3.0.3's letter, where `nullable` adds null to `type` alone and
    the reference beside it still refuses it. The rest is checked as written: the reference,
    or the union by its discriminator, where the value is not null."""
    if isinstance(node, list):
        return [nullable_widened(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: nullable_widened(v) for k, v in node.items()}
    if out.get("nullable") is True and ("allOf" in out or "oneOf" in out):
        schema = {k: v for k, v in out.items() if k != "nullable"}
        out = {"anyOf": [schema, {"type": "object", "nullable": True, "enum": [None]}]}
    return out


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


def message_problems(route: str, message: str) -> list[str]:
    """What is wrong with one Server-Sent Events message of the stream at `route`, by the
    document: its `data:` against the stream's `x-sse-data` schema, and its `event:` the type
    of what it holds (`table` for the table, else the event's own `type`). A comment (`:
    keep-alive`) holds nothing to check."""
    content = spec()["paths"][route]["get"]["responses"]["200"]["content"]["text/event-stream"]
    fields: dict[str, str] = {}
    for line in message.split("\n"):
        if line and not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = fields.get(name, "") + value.removeprefix(" ")
    if "data" not in fields:
        return []
    data = orjson.loads(fields["data"])
    kind = fields.get("event", "message")
    where = f"GET {route}: message {fields.get('id')!r} ({kind!r})"
    # The alternative the message's type names, checked first: a stream from the log's
    # beginning sends thousands, and a union of fifteen is checked alternative by alternative.
    # One that takes it is a member the union takes (its alternatives exclude one another by
    # `type`, and by `kind` at a table); else the union itself says what is wrong.
    union = "FeedEvent" if route == "/v1/feed/stream" else "TableEvent"
    alternative = _event_alternative(union, data) if kind != "table" else TABLE_REF
    if alternative is not None and not list(validator(alternative).iter_errors(data)):
        wrong = []
    else:
        check = validator(orjson.dumps(content["x-sse-data"]).decode())
        wrong = [f"{where}: at {'/'.join(map(str, e.absolute_path)) or '(data)'}: {e.message}"
                 for e in check.iter_errors(data)]
    if kind != ("table" if "game" in data else data.get("type")):
        wrong.append(f"{where}: `event: {kind}` names another type than its data's")
    return wrong


TABLE_REF = '{"$ref":"#/components/schemas/Table"}'


@cache
def _alternatives() -> dict[tuple[str, str], str]:
    """Each alternative of the events' unions (`FeedEvent`, `TableEvent`) by the union and the
    type it holds, as a schema to validate."""
    out = {}
    for union in ("FeedEvent", "TableEvent"):
        schema = spec()["components"]["schemas"][union]
        for ref in schema["oneOf"]:
            alternative = spec()["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]
            for name in alternative["properties"]["type"]["enum"]:
                out[union, name] = orjson.dumps(ref).decode()
    return out


def _event_alternative(union: str, data: Any) -> str | None:
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return None
    return _alternatives().get((union, data["type"]))


class CheckedStream:
    """An event stream's body, each message held to the document as the test reads it."""

    def __init__(self, route: str, body: Iterable[bytes]) -> None:
        self.route = route
        self.body = body
        self.pending = b""

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.body:
            self.pending += chunk
            *messages, self.pending = self.pending.split(b"\n\n")
            for message in messages:
                wrong = message_problems(self.route, message.decode())
                CheckedClient.stream_problems += wrong
                assert not wrong, "a stream's message is not as openapi.yaml says:\n" + "\n".join(wrong)
                CheckedClient.messages += (b"\n" + message).count(b"\ndata:") > 0
            yield chunk

    def close(self) -> None:
        close = getattr(self.body, "close", None)
        if close is not None:
            close()


class CheckedClient(FlaskClient):
    """A test client that fails on any response the document does not describe, and on any
    message of an event stream (as the test reads it) the document does not describe."""

    checked = 0  # bodies held to their schema, by every client (a test shows the hook runs)
    messages = 0  # streams' messages held to theirs
    # What a stream read in another thread than the test's found wrong (there an assertion
    # would end the thread, not fail the test): tests/service/conftest.py fails the test on it.
    stream_problems: ClassVar[list[str]] = []

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        response = super().open(*args, **kwargs)
        wrong = response_problems(self.application, response)
        assert not wrong, "the response is not as openapi.yaml says:\n" + "\n".join(wrong[:20])
        if response.mimetype in JSON_TYPES:
            CheckedClient.checked += 1
        if response.mimetype == "text/event-stream" and response.status_code == 200:
            route = route_of(self.application, response.request.method, response.request.path)
            if route is not None and route in spec()["paths"]:
                response.response = CheckedStream(route, response.response)
        return response
