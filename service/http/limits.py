"""Per-caller rate limits, counted in Redis: 429 with Retry-After past the limit.

One budget per authenticated principal (`operator:operator`, each scoped operator key's
`operator:ok_...`, `player:pl_...`), whatever the spelling of its `Authorization` header; a
request without a valid token counts against its address, all such requests of one address in
one budget, so guessed tokens are limited too. If Redis is unreachable the limit is skipped
rather than the request refused: actions go on while Redis is away. After a failure the limit
is not counted for `PAUSE_S`: a Redis that hangs, taking connections and answering nothing, would
otherwise hold every request for the read timeout, long enough to make a move miss its turn.

A request costs one Redis round trip for its limit (the fixed window's increment): no
X-RateLimit headers, which would cost two more. A 429's Retry-After is the time left in the
window, read in a second round trip paid by refused requests alone: the whole window (a minute
by default) was longer than clients wait on their own, so none retried.

The counting is the `limits` library's (its Redis storage and fixed-window strategy, as
flask-limiter, its Flask extension, would use them); the request's check is one call of it
(`_check`). One application-wide limit needs none of the extension's per-request resolution of
decorated, blueprint and exempt limits, which cost about a tenth of a move's CPU
(bench/README.md, "The request stack").
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from typing import Any

from flask import Flask, Response, g, request
from limits import RateLimitItem, parse
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from service.http import pages
from service.http.auth import principal
from service.http.problems import Problem, render
from service.runtime.redis_url import is_sentinel, parse_sentinel
from workers.queues import SentinelConnection

log = logging.getLogger("banco.limits")

PROBES = ("/healthz", "/readyz")  # an orchestrator's probes are never limited
# Nor is the API reference (service/http/reference.py): static, served from memory with no
# database or Redis, and one look at it is several requests that would spend the budget its
# address has for requests without a valid token.
# The house's public key likewise (service/http/evidence.py): a verifier fetches it with no token.
REFERENCE = ("/openapi.json", "/openapi.yaml", "/docs", "/.well-known/banco-house-key")
PAUSE_S = 5.0  # how long the limit goes uncounted after Redis failed to count it
# Nor are the pages and their files (service/http/pages.py), static for the same reason: the API
# calls a page makes are what its visitor's budget counts.


def _unlimited() -> bool:
    path = request.path  # one look-up of the request's context for the three tests
    return path in PROBES or path in REFERENCE or path.startswith("/docs/") or pages.is_page()


def _identify() -> None:
    """Authenticate before the limit is counted, so that the count is the principal's. A database
    away answers 503 from here, at once, rather than after a second wait in the view."""
    with contextlib.suppress(Problem):  # no valid token: the view answers 401 if it needs one
        g.limit_key = principal().key


def caller_key() -> str:
    return g.get("limit_key") or "addr:" + (request.remote_addr or "unknown")


def storage_uri(redis_url: str) -> str:
    """The `limits` library's spelling of a Redis URL (unix sockets are `redis+unix://`)."""
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url.removeprefix("unix://")
    if is_sentinel(redis_url):
        return parse_sentinel(redis_url).limits_uri()
    return redis_url


def storage_options(redis_url: str) -> dict[str, Any]:
    """Short timeouts, shorter than other Redis clients' (a count is one small script, answered in
    a millisecond, and every request waits for it); through Sentinel, the database number and the
    primary alone: a count read from a replica could lag the increments."""
    options: dict[str, Any] = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}
    if is_sentinel(redis_url):
        options |= {"db": parse_sentinel(redis_url).db, "use_replicas": False,
                    "sentinel_kwargs": dict(options), "connection_class": SentinelConnection}
    return options


def too_many(limit: RateLimitItem, reset_at: float | None = None) -> Response:
    """The 429: Retry-After the seconds until the window ends at `reset_at` (epoch seconds), or
    the whole window when that is not known."""
    window = limit.get_expiry()
    wait = window if reset_at is None else min(window, max(1, math.ceil(reset_at - time.time())))
    response = render(Problem(429, "too_many_requests",
                              f"more than {limit} for this caller; retry in {wait}s"))
    response.headers["Retry-After"] = str(wait)
    return response


def init_app(app: Flask, redis_url: str, limit: str) -> FixedWindowRateLimiter:
    """Apply `limit` (e.g. `1200/minute`) to each caller's requests, all endpoints together,
    the probes and the API reference excepted. Register after `db` (authentication reads the
    tokens) and before `idempotency` (a refused request records no key)."""
    limiter = FixedWindowRateLimiter(storage_from_string(storage_uri(redis_url),
                                                         **storage_options(redis_url)))
    item = parse(limit)
    paused_until = [float("-inf")]  # time.monotonic() until which Redis is not asked

    def _check() -> Response | None:
        if _unlimited():
            return None
        _identify()
        if time.monotonic() < paused_until[0]:
            return None
        try:
            allowed = limiter.hit(item, "banco", caller_key())
        except Exception as e:  # Redis away: the limit is skipped, the request goes on
            paused_until[0] = time.monotonic() + PAUSE_S
            log.warning("rate limits not counted for %.0f s: %s", PAUSE_S, e)
            return None
        if allowed:
            return None
        try:
            # The window's expiry alone (one TTL), not `get_window_stats`, which reads its count too.
            reset_at: float | None = limiter.storage.get_expiry(item.key_for("banco", caller_key()))
        except Exception:  # Redis gone since the count: the whole window is a bound all the same
            reset_at = None
        return too_many(item, reset_at)

    app.before_request(_check)
    return limiter

