"""Typed errors from the API's application/problem+json answers (RFC 9457)."""

from __future__ import annotations

from typing import Any

import httpx


class BancoError(Exception):
    """An answer of the API that is not a success: `status`, the stable `code`, the `detail`, and
    the problem's other members (`version` on a 412, `balance` on insufficient_treasure, `errors`
    on bad input...) in `extra`."""

    def __init__(self, status: int | None, code: str | None, detail: str | None,
                 extra: dict[str, Any] | None = None, *, title: str | None = None,
                 request_id: str | None = None, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {code}: {detail}" if status else detail or code or "error")
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title
        self.request_id = request_id
        self.retry_after = retry_after
        self.extra = extra or {}


class BadRequest(BancoError):
    """400: the body is not valid JSON."""


class Unauthorized(BancoError):
    """401: no token, or one the API does not know (revoked, rotated)."""


class Forbidden(BancoError):
    """403: the token's role or player may not do this."""


class NotFound(BancoError):
    """404: no such resource."""


class Conflict(BancoError):
    """409: the request does not fit the state things are in (a lost race, no hand in play...)."""


class PreconditionFailed(BancoError):
    """412: the table is no longer at the version sent as If-Match; `version` is where it is."""

    @property
    def version(self) -> int | None:
        value = self.extra.get("version")
        return value if isinstance(value, int) else None


class PreconditionRequired(BancoError):
    """428: If-Match missing."""


class UnprocessableContent(BancoError):
    """422: bad input, an illegal move (the engine's `code`), insufficient treasure..."""

    @property
    def errors(self) -> dict[str, Any]:
        value = self.extra.get("errors")
        return value if isinstance(value, dict) else {}


class TooManyRequests(BancoError):
    """429: rate-limited; `retry_after` says when to come back."""


class ServiceUnavailable(BancoError):
    """503: a dependency is down or the service is busy; `retry_after` says when to come back."""


class ConnectionFailed(BancoError):
    """The API could not be reached, or the connection was lost, after the client's retries."""


def connection_failed(exc: httpx.TransportError) -> ConnectionFailed:
    """The error for a transport failure, naming the request it cut: "Connection refused"
    alone does not say which address was not answering. The query is left out (a stream's
    ticket travels in it)."""
    try:
        where = f"{exc.request.method} {exc.request.url.copy_with(query=None)}"
    except RuntimeError:  # raised before a request was built
        where = "the API"
    reason = str(exc) or type(exc).__name__
    return ConnectionFailed(None, "connection_failed", f"could not reach {where}: {reason}",
                            {"reason": reason})


BY_STATUS: dict[int, type[BancoError]] = {
    400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict,
    412: PreconditionFailed, 422: UnprocessableContent, 428: PreconditionRequired,
    429: TooManyRequests, 503: ServiceUnavailable,
}
KNOWN = {"status", "code", "detail", "title", "type", "request_id"}


def from_response(response: httpx.Response, retry_after: float | None = None) -> BancoError:
    """The typed error for an answer of status 4xx or 5xx, read from its problem+json body (or
    from its status alone when the body is something else)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {"detail": response.text[:200] or response.reason_phrase}
    cls = BY_STATUS.get(response.status_code, BancoError)
    return cls(response.status_code, body.get("code"), body.get("detail"),
               {k: v for k, v in body.items() if k not in KNOWN}, title=body.get("title"),
               request_id=body.get("request_id") or response.headers.get("X-Request-ID"),
               retry_after=retry_after)
