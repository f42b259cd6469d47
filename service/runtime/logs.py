"""JSON logs, one object per line, each carrying the request id."""

from __future__ import annotations

import logging
import secrets
import sys
import time

import orjson
from flask import Flask, Response, g, has_request_context, request


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON line."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if has_request_context() and "request_id" in g:
            entry["request_id"] = g.request_id
        for key in ("method", "path", "status", "duration_ms"):
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry).decode()


def configure(level: str = "INFO") -> None:
    """Send the `banco` loggers to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("banco")
    logger.handlers[:] = [handler]
    logger.setLevel(level)
    logger.propagate = False


log = logging.getLogger("banco.http")


def _start() -> None:
    incoming = request.headers.get("X-Request-ID", "")
    g.request_id = incoming if 0 < len(incoming) <= 100 and incoming.isprintable() else secrets.token_hex(8)
    g.started = time.perf_counter()


def _done(response: Response) -> Response:
    response.headers["X-Request-ID"] = g.get("request_id", "")
    log.info("request", extra={
        "method": request.method, "path": request.path, "status": response.status_code,
        "duration_ms": round((time.perf_counter() - g.get("started", time.perf_counter())) * 1000, 2),
    })
    return response


def init_app(app: Flask) -> None:
    app.before_request(_start)
    app.after_request(_done)
