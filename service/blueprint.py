"""The blueprint every resource module uses: flask-smorest's, refusing unknown query parameters,
with each arguments schema made once, and a body of another type than JSON a 415.

webargs ignores a query parameter its schema does not name, so `GET /v1/tables?stauts=open` would
list every table as if unfiltered. Here it is a 422 problem naming the parameter instead, as an
unknown field of a JSON body already is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask, Request, current_app, request
from flask_smorest import Blueprint as SmorestBlueprint
from marshmallow import RAISE, Schema
from webargs.flaskparser import FlaskParser, is_json_request

from service.problems import Problem


class _Parser(FlaskParser):
    def __init__(self) -> None:
        super().__init__()
        self.DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
                                            "query": RAISE, "querystring": RAISE}

    def load_json(self, req: Request, schema: Schema) -> Any:
        # webargs reads a body sent as another type (curl -d sends a form) as no body at all,
        # which a client would read as his fields missing: say what is wrong instead.
        if req.content_length and not is_json_request(req):
            raise Problem(415, "unsupported_media_type",
                          f"send the body as application/json, not {req.mimetype or 'untyped'}")
        return super().load_json(req, schema)


class Blueprint(SmorestBlueprint):
    ARGUMENTS_PARSER = _Parser()

    def arguments(self, schema: type[Schema] | Schema, *args: Any, **kwargs: Any) -> Callable[..., Any]:
        # Given a class, webargs makes a new schema (its fields and their validators) for every
        # request: more than half of the 18 µs an action's body took to parse. A schema's `load`
        # keeps no state of its own, so one instance serves every request and thread.
        instance = schema() if isinstance(schema, type) else schema
        return super().arguments(instance, *args, **kwargs)


def _takes_query(endpoint: str, method: str) -> bool:
    """Whether the view of `endpoint` for `method` declares query arguments (`Blueprint.arguments`
    leaves them in the view's `_apidoc`)."""
    view: Any = current_app.view_functions[endpoint]
    view_class = getattr(view, "view_class", None)
    if view_class is not None:
        view = getattr(view_class, "get" if method == "HEAD" else method.lower(), None)
    parameters = getattr(view, "_apidoc", {}).get("arguments", {}).get("parameters", [])
    return any(p["in"] in ("query", "querystring") for p in parameters)


def refuse_undeclared_query(app: Flask) -> None:
    """An endpoint that takes no query parameters refuses them as one that takes some refuses
    those it does not name: `GET /v1/audit/checkpoints?limit=5` would otherwise list them all."""

    @app.before_request
    def _refuse() -> None:
        if (request.args and request.endpoint and request.method != "OPTIONS"
                and request.endpoint in current_app.view_functions
                and not _takes_query(request.endpoint, request.method)):
            raise Problem(422, "invalid_input", "this endpoint takes no query parameters",
                          errors={"query": {name: ["Unknown field."] for name in request.args}})
