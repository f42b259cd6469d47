"""One JSON log line a request, naming the key that acted, and the request's id: the caller's
`X-Request-ID` when it is a sensible one, else one drawn here; sent back, recorded with the
events the request writes (`service.http.context`), and carried by every log line written while
it is served."""

from __future__ import annotations

import logging
import secrets
import time

from flask import Flask, Response, g, request

from service.runtime import tracing
from service.runtime.logs import REQUEST_ID

log = logging.getLogger("banco.http")


def _start() -> None:
    incoming = request.headers.get("X-Request-ID", "")
    g.request_id = incoming if 0 < len(incoming) <= 100 and incoming.isprintable() else secrets.token_hex(8)
    g.request_id_set = REQUEST_ID.set(g.request_id)
    g.started = time.perf_counter()


def _done(response: Response) -> Response:
    response.headers["X-Request-ID"] = g.get("request_id", "")
    # The path, never the URL: a stream's query may hold its ticket (`?ticket=`,
    # service/http/tickets.py), a credential while it lasts. The caller by the id of the token
    # or key he sent (none when unauthenticated, but the id of a key or token refused because
    # it no longer works: service/http/auth.py), never by the secret.
    who = g.get("principal")
    fields = {
        "method": request.method, "path": request.path, "status": response.status_code,
        "duration_ms": round((time.perf_counter() - g.get("started", time.perf_counter())) * 1000, 2),
        "actor": None if who is None else who.key,
        "key_id": g.get("refused_key_id") if who is None else who.key_id,
    }
    code = g.get("problem_code")
    if code is not None:  # why it was refused: a 403 `missing_scope` apart from the others
        fields["code"] = code
    trace_id = tracing.trace_id()
    if trace_id is not None:  # the line leads to the request's trace
        fields["trace_id"] = trace_id
    log.info("request", extra=fields)
    return response


def _end(_: BaseException | None) -> None:
    token = g.pop("request_id_set", None)
    if token is not None:
        REQUEST_ID.reset(token)  # the thread's next lines are no longer this request's


def init_app(app: Flask) -> None:
    app.before_request(_start)
    app.after_request(_done)
    app.teardown_request(_end)
