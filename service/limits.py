"""Per-token rate limits, counted in Redis: 429 with Retry-After past the limit.

The count is keyed by the SHA-256 of the bearer token (the caller's address without one), so a
client spreading requests over many connections shares one budget. If Redis is unreachable the
limit is skipped rather than the request refused: actions go on while Redis is away.
"""

from __future__ import annotations

import hashlib

from flask import Flask, request
from flask_limiter import Limiter

PROBES = ("/healthz", "/readyz")  # an orchestrator's probes are never limited


def caller_key() -> str:
    header = request.headers.get("Authorization", "")
    if header:
        return "token:" + hashlib.sha256(header.encode()).hexdigest()
    return "addr:" + (request.remote_addr or "unknown")


def storage_uri(redis_url: str) -> str:
    """The `limits` library's spelling of a Redis URL (unix sockets are `redis+unix://`)."""
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url.removeprefix("unix://")
    return redis_url


def init_app(app: Flask, redis_url: str, limit: str) -> Limiter:
    """Apply `limit` (e.g. `1200/minute`) to every request but the probes."""
    limiter = Limiter(caller_key, app=app, storage_uri=storage_uri(redis_url),
                      default_limits=[limit], headers_enabled=True, swallow_errors=True,
                      storage_options={"socket_connect_timeout": 1, "socket_timeout": 2})
    limiter.request_filter(lambda: request.path in PROBES)
    return limiter
