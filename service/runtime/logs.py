"""JSON logs, one object per line, each carrying the id of the request it was written for, if
any (`REQUEST_ID`, which the API sets for each request: `service.http.request_log`)."""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar

import orjson

# The request being served by this thread, if any.
REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON line."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            entry["request_id"] = request_id
        for key in ("method", "path", "status", "duration_ms", "actor", "key_id", "trace_id"):
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry).decode()


def configure(level: str = "INFO") -> None:
    """Send the `banco` loggers to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    # What a record gathers that no line here (nor gunicorn's, nor RQ's) shows: the caller's
    # file and line, found by walking up the stack, and the thread's and process's names. The
    # API writes a line a request; these are logging's documented switches for them.
    logging._srcfile = None
    logging.logThreads = False
    logging.logMultiprocessing = False
    logger = logging.getLogger("banco")
    logger.handlers[:] = [handler]
    logger.setLevel(level)
    logger.propagate = False
