"""Every error as `application/problem+json` (RFC 9457), built in one place."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response, g
from marshmallow import INCLUDE, Schema, fields, validate
from werkzeug.exceptions import HTTPException

from service.http.problem_codes import PROBLEM_CODES

PROBLEM = "application/problem+json"


class ProblemSchema(Schema):
    """An RFC 9457 problem: `code` is Banco's stable machine-readable reason.

    Some problems carry extension members (RFC 9457 §3.2), e.g. `version` with a 412.
    """

    class Meta:
        unknown = INCLUDE

    type = fields.String(metadata={"example": "urn:banco:problem:insufficient_treasure"})
    title = fields.String(metadata={"example": "Unprocessable Content"})
    status = fields.Integer(metadata={"example": 422})
    detail = fields.String(metadata={"example": "account wallet:pl_1 holds 5, cannot pay 10"})
    code = fields.String(validate=validate.OneOf(PROBLEM_CODES), metadata={
        "example": "insufficient_treasure",
        "description": "Why, for programs: one of these, the same from release to release."})
    errors = fields.Dict(metadata={"description": "Field errors, by location and field"})
    request_id = fields.String()
    version = fields.Integer(metadata={"description": "412: the table's current version"})
    balance = fields.Integer(metadata={"description": "insufficient_treasure: what the account holds"})
    available = fields.List(fields.String(), metadata={"description": "406: what the endpoint answers in"})
    checks = fields.Dict(metadata={"description": "503 from /readyz: each dependency's state"})
    scope = fields.String(metadata={"description": "403 `missing_scope`: the scope the operator"
                                                   " key lacks", "example": "treasure:write"})


class Problem(HTTPException):
    """An HTTP error with a Banco code, raised anywhere and rendered by `render`."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = status
        self.problem_code = code
        self.detail = detail
        self.extra = extra


DEFAULT_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 406: "not_acceptable", 408: "request_timeout", 409: "conflict",
    412: "precondition_failed", 413: "body_too_large", 414: "request_line_too_long",
    415: "unsupported_media_type", 417: "expectation_failed", 422: "invalid_input",
    428: "precondition_required", 429: "too_many_requests", 431: "headers_too_large",
    500: "internal_error", 501: "not_implemented", 503: "unavailable",
}
# The code of a status with none of its own above (a werkzeug error Banco never answers itself).
FALLBACK_CODE = "error"


def document(status: int, title: str, detail: str, code: str | None = None) -> dict[str, Any]:
    """The problem's members, `code` defaulting to the status's."""
    code = code or DEFAULT_CODES.get(status, FALLBACK_CODE)
    return {"title": title, "status": status, "type": f"urn:banco:problem:{code}", "code": code,
            "detail": detail}


def retry_later(code: str, detail: str, retry_after_s: int = 5) -> Response:
    """503 problem+json saying when to retry: the database away, or a bound of the service's
    own reached."""
    response = render(Problem(503, code, f"{detail}; retry shortly"))
    response.headers["Retry-After"] = str(retry_after_s)
    return response


def render(error: HTTPException) -> Response:
    """The problem+json response for any HTTP error."""
    status = error.code or 500
    extra: dict[str, Any] = {}
    if isinstance(error, Problem):
        code: str | None = error.problem_code
        detail = error.detail
        extra.update(error.extra)
    else:
        code = None
        data = getattr(error, "data", None) or {}
        detail = data.get("message") or error.description or error.name
        messages = data.get("messages") or data.get("errors")
        if messages:
            extra["errors"] = messages
            if status == 422:
                detail = "the request does not match its schema"
    body = {**document(status, error.name, detail, code), **extra}
    if "request_id" in g:
        body["request_id"] = g.request_id
    g.problem_code = body["code"]  # for the request's log line (service/http/request_log.py)
    # marshmallow names a list's items by their index, an int: JSON keys are text.
    response = Response(orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS), status=status,
                        mimetype=PROBLEM)
    # What werkzeug's own errors say in headers (a 405's Allow, say), the body's type apart.
    for name, value in error.get_headers():
        if name.lower() != "content-type":
            response.headers.add(name, value)
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="banco"'
    if status == 413:
        # The body was left unread, so the server ends the connection: said here, a client's
        # pool does not send its next request on a connection about to close.
        response.headers["Connection"] = "close"
    return response
