"""The blueprint every resource module uses: flask-smorest's, refusing unknown query parameters,
with each arguments schema made once, a body of another type than JSON a 415 and a body that is
not valid JSON a 400 saying where.

webargs ignores a query parameter its schema does not name, so `GET /v1/tables?stauts=open` would
list every table as if unfiltered. Here it is a 422 problem naming the parameter instead, as an
unknown field of a JSON body already is. `refuse_what_it_does_not_take` does the same for
endpoints that take no query parameters or no body, and answers 406 to an `Accept` the endpoint
cannot meet, each read from what the view declares to flask-smorest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, NoReturn

from flask import Request, request
from flask_smorest import Blueprint as SmorestBlueprint
from marshmallow import RAISE, Schema
from webargs.core import parse_json
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
        try:
            return super().load_json(req, schema)
        except RecursionError:
            # Arrays nested a thousand deep overflow the JSON decoder's stack, not its grammar.
            raise Problem(400, "invalid_json", "the body nests too deeply to be read") from None

    def _handle_invalid_json_error(self, error: Exception, req: Request, *args: Any,
                                   **kwargs: Any) -> NoReturn:
        raise Problem(400, "invalid_json", f"the body is not valid JSON: {error}")


class Blueprint(SmorestBlueprint):
    ARGUMENTS_PARSER = _Parser()

    def arguments(self, schema: type[Schema] | Schema, *args: Any, **kwargs: Any) -> Callable[..., Any]:
        # Given a class, webargs makes a new schema (its fields and their validators) for every
        # request: more than half of the 18 µs an action's body took to parse. A schema's `load`
        # keeps no state of its own, so one instance serves every request and thread.
        instance = schema() if isinstance(schema, type) else schema
        return super().arguments(instance, *args, **kwargs)


@dataclass(frozen=True)
class _Takes:
    """What one view declares: where it reads arguments and the types it answers in."""

    locations: frozenset[str]
    answers: tuple[str, ...]


@cache
def _takes(view: Callable[..., Any]) -> _Takes:
    # From the `_apidoc` that `Blueprint.arguments` and `.response` leave on the view.
    doc = getattr(view, "_apidoc", {})
    parameters = doc.get("arguments", {}).get("parameters", [])
    responses = doc.get("response", {}).get("responses", {})
    answers = {d.get("content_type") or "application/json"
               for status in doc.get("success_status_codes", []) for d in responses.get(status, [])}
    return _Takes(frozenset(p["in"] for p in parameters), tuple(sorted(answers)))


def refuse_what_it_does_not_take(view: Callable[..., Any]) -> None:
    """Refuse what `view` would otherwise ignore, or fail on: an id or a query parameter with a
    NUL character, query parameters when it takes none (`GET /v1/audit/checkpoints?limit=5`
    would list them all), a body when it takes none, and an `Accept` none of its answers meets
    (a client asking for CSV would be handed JSON).

    `auth.require` calls it once the caller may use the view, so that a caller learns nothing
    of an endpoint before his token is checked, as with the view's own arguments."""
    takes = _takes(view)
    # No id holds one (PostgreSQL's text cannot), so the lookup would fail as if storing it.
    if any("\x00" in value for value in (request.view_args or {}).values() if isinstance(value, str)):
        raise Problem(404, "not_found", "no resource has a NUL character in its id")
    # Nor does any value a query filters by; refused here, before a streamed export's 200 starts
    # and its query then fails halfway through the body.
    with_nul = {name for name, value in request.args.items(multi=True) if "\x00" in value}
    if with_nul:
        raise Problem(422, "invalid_input", "a query parameter holds a NUL character",
                      errors={"query": {name: ["Must not contain a NUL character."] for name in with_nul}})
    if request.args and not takes.locations & {"query", "querystring"}:
        raise Problem(422, "invalid_input", "this endpoint takes no query parameters",
                      errors={"query": {name: ["Unknown field."] for name in request.args}})
    if request.content_length and "json" not in takes.locations:
        _refuse_body()
    if (request.headers.get("Accept") and takes.answers
            and request.accept_mimetypes.best_match(takes.answers) is None):
        raise Problem(406, "not_acceptable", f"this endpoint answers in {', '.join(takes.answers)}",
                      available=list(takes.answers))


def _refuse_body() -> None:
    # `{}` is what many clients send with every POST: it says nothing, so it is let through.
    try:
        body = parse_json(request.get_data(cache=True))
    except (ValueError, RecursionError):
        body = None
    if body == {}:
        return
    if isinstance(body, dict):
        raise Problem(422, "invalid_input", "this endpoint takes no body",
                      errors={"json": {name: ["Unknown field."] for name in body}})
    raise Problem(422, "invalid_input", "this endpoint takes no body")
