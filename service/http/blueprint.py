"""The blueprint every resource module uses: flask-smorest's, refusing unknown query parameters,
with each arguments schema made once, a body of another type than JSON a 415, a body that is
not valid JSON a 400 saying where, text that is not Unicode a 422 naming its field, and an
integer of more digits than Python reads (4,300) a 422.

webargs ignores a query parameter its schema does not name, so `GET /v1/tables?stauts=open` would
list every table as if unfiltered. Here it is a 422 problem naming the parameter instead, as an
unknown field of a JSON body already is. `refuse_what_it_does_not_take` does the same for
endpoints that take no query parameters or no body, and answers 406 to an `Accept` the endpoint
cannot meet, each read from what the view declares to flask-smorest.

webargs reads a query parameter given more than once as its first value (a list-valued field
excepted), so `?types=HandBegan&types=TreasurePosted` filtered by HandBegan alone and
`?limit=1&limit=500` paged by 1: here that is a 422 naming the parameter, as a JSON member
named twice already is a 400 (`_object`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, NoReturn
from urllib.parse import parse_qsl

from flask import Request, request
from flask_smorest import Blueprint as SmorestBlueprint
from marshmallow import RAISE, Schema, fields
from webargs.core import missing, parse_json
from webargs.flaskparser import FlaskParser
from werkzeug.datastructures import MultiDict

from service.http import contract
from service.http.bodies import has_body
from service.http.problems import Problem

# The schema of a body that is text of its own type (CSV, NDJSON, SVG, an event stream).
TEXT = {"type": "string"}

NOT_UNICODE = "Not valid Unicode: holds a lone surrogate or bytes that are not UTF-8."
HOLDS_NUL = "Must not contain a NUL character."  # PostgreSQL's text cannot hold one


def _is_unicode(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _unstorable(text: str) -> str | None:
    return NOT_UNICODE if not _is_unicode(text) else HOLDS_NUL if "\x00" in text else None


def _not_unicode(value: Any) -> Any:
    """marshmallow-shaped errors for the text in `value` that cannot be stored, or None.

    JSON's `"\\ud800"` escape decodes to a lone surrogate, a Python `str` no encoder will write:
    stored, it failed the event log's encoder with a 500. `"\\u0000"` decodes to a NUL, which
    PostgreSQL's text refuses. A key that cannot be stored is named by the object holding it,
    as the key itself could not be shown."""
    if isinstance(value, str):
        return None if (error := _unstorable(value)) is None else [error]
    if isinstance(value, Mapping):
        if bad := next((e for key in value if (e := _unstorable(key)) is not None), None):
            return [bad]
        errors = {key: e for key, item in value.items() if (e := _not_unicode(item)) is not None}
        return errors or None
    if isinstance(value, list):
        errors = {str(i): e for i, item in enumerate(value) if (e := _not_unicode(item)) is not None}
        return errors or None
    return None


def _query_not_unicode(pairs: list[tuple[str, str]]) -> dict[str, list[str]] | None:
    errors = {}
    for name, value in pairs:
        if not _is_unicode(name):
            errors["_schema"] = [NOT_UNICODE]
        elif not _is_unicode(value):
            errors[name] = [NOT_UNICODE]
    return errors or None


def _refuse_not_unicode(location: str, errors: Any) -> None:
    if errors is not None:
        raise Problem(422, "invalid_input", "the request holds text Banco cannot store (a NUL"
                      " character, or text that is not Unicode)",
                      errors={location: errors if isinstance(errors, dict) else {"_schema": errors}})


class CommaSeparated(fields.String):
    """A query parameter holding a list in one value, its items comma-separated
    (`types=HandBegan,TreasurePosted`): given twice, it is refused as any other."""


def given_more_than_once(name: str, field: fields.Field | None = None) -> str:
    """What is wrong with query parameter `name` (read by `field`) given more than once."""
    if isinstance(field, CommaSeparated):
        return (f"Given more than once: send one {name}, its items comma-separated"
                f" ({name}=a,b).")
    return "Given more than once: send it once."


def given_twice(errors: Mapping[str, list[str]]) -> Problem:
    """The 422 for a query naming parameters more than once, `errors` saying what of each."""
    return Problem(422, "invalid_input", "a query parameter is given more than once: send each"
                   " once", errors={"query": dict(errors)})


def _refuse_repeated(args: MultiDict[str, str], schema: Schema) -> None:
    """Refuse a query naming a parameter more than once: which value a client meant, nothing
    says (the first, the last, or both), and reading the first, as webargs does, filtered or
    paged by half of what was asked. The parameters `schema` does not read are named as unknown
    too, so that one answer says all that is wrong with the query."""
    repeated = [name for name, values in args.lists() if len(values) > 1]
    if not repeated:
        return
    known = {field.data_key or name: field for name, field in schema.fields.items()
             if not field.dump_only}
    errors = {name: ["Unknown field."] for name in args if name not in known}
    errors.update({name: [given_more_than_once(name, known[name])]
                   for name in repeated if name in known})
    raise given_twice(errors)


def _refuse_json_constant(name: str) -> NoReturn:
    # Python's json reads NaN and Infinity, which JSON has not (RFC 8259 §6).
    raise Problem(400, "invalid_json", f"the body is not valid JSON: {name} is not a JSON number")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        # RFC 8259 §4 leaves an object with a name twice to each reader: one takes the first,
        # another the last. A client means one of them; which, nothing says.
        twice = next(name for i, (name, _) in enumerate(pairs)
                     if any(name == other for other, _ in pairs[:i]))
        raise Problem(400, "invalid_json", f"the body names {json.dumps(twice)} twice in one"
                      " object: send each name once")
    return obj


def _read_integer(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:
        # JSON sets no bound, but `int()` reads no more than 4,300 digits (Python's guard against
        # quadratic conversions), and its ValueError is no JSONDecodeError: it was a 500. No
        # integer the service takes comes near that long.
        raise Problem(422, "invalid_input", f"the body holds an integer of"
                      f" {len(digits.lstrip('-'))} digits, longer than any the service takes") from None


def _is_json(req: Request) -> bool:
    """A body of the one type the service takes: webargs' check also takes `application/*+json`,
    JSON of other meanings (a merge patch)."""
    return req.mimetype == "application/json"


class _Parser(FlaskParser):
    def __init__(self) -> None:
        super().__init__()
        self.DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
                                            "query": RAISE, "querystring": RAISE}

    def load_json(self, req: Request, schema: Schema) -> Any:
        # webargs reads a body sent as another type (curl -d sends a form) as no body at all,
        # which a client would read as his fields missing: say what is wrong instead.
        if has_body(req) and not _is_json(req):
            raise Problem(415, "unsupported_media_type",
                          f"send the body as application/json, not {req.mimetype or 'untyped'}")
        coding = req.headers.get("Content-Encoding", "identity").strip()
        if has_body(req) and coding.lower() != "identity":
            raise Problem(415, "unsupported_media_type", f"the body is sent with Content-Encoding"
                          f" {coding}, which the service does not decode: send it unencoded")
        try:
            return super().load_json(req, schema)
        except RecursionError:
            # Arrays nested a thousand deep overflow the JSON decoder's stack, not its grammar.
            raise Problem(400, "invalid_json", "the body nests too deeply to be read") from None

    def _raw_load_json(self, req: Request) -> Any:
        if not _is_json(req):
            return missing
        body = req.get_data(cache=True)
        try:
            text = body.decode()
        except UnicodeDecodeError as e:
            raise Problem(400, "invalid_json", f"the body is not valid JSON: decoding byte {e.start} "
                          f"as UTF-8 failed ({e.reason})") from None
        return json.loads(text, parse_constant=_refuse_json_constant, parse_int=_read_integer,
                          object_pairs_hook=_object)

    def pre_load(self, location_data: Any, *, schema: Schema, req: Request, location: str) -> Any:
        # Every string a client sends is checked here, once, before any schema or game reads it.
        if location in ("query", "querystring"):
            # werkzeug leaves bytes that are not UTF-8 percent-encoded, as if sent so: decoded
            # here, they are lone surrogates like those of a JSON escape.
            errors = _query_not_unicode(parse_qsl(req.query_string.decode("utf-8", "surrogateescape"),
                                                  keep_blank_values=True, errors="surrogateescape"))
            _refuse_not_unicode(location, errors)
            _refuse_repeated(req.args, schema)
            return location_data
        _refuse_not_unicode(location, _not_unicode(location_data))
        return location_data

    def _handle_invalid_json_error(self, error: Exception, req: Request, *args: Any,
                                   **kwargs: Any) -> NoReturn:
        raise Problem(400, "invalid_json", f"the body is not valid JSON: {error}")


class Blueprint(SmorestBlueprint):
    ARGUMENTS_PARSER = _Parser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prepare_doc_cbks.append(contract.prepare_doc)

    @staticmethod
    def operation(operation_id: str, *refusals: int,
                  headers: tuple[Mapping[str, Any], ...] = ()) -> Callable[[Any], Any]:
        """Document the view as `operation_id`, answering the problem statuses `refusals` of its
        own besides those of the shared checks, and reading the header parameters `headers`
        (`service.http.contract`)."""
        return lambda fn: contract.operation(fn, operation_id, refusals, headers)

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
    if "json" not in takes.locations and has_body(request):
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
    # Its field names are shown back, and one that is not Unicode cannot be.
    _refuse_not_unicode("json", _not_unicode(body))
    if isinstance(body, dict):
        raise Problem(422, "invalid_input", "this endpoint takes no body",
                      errors={"json": {name: ["Unknown field."] for name in body}})
    raise Problem(422, "invalid_input", "this endpoint takes no body")
