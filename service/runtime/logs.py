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
        for key in ("method", "path", "status", "code", "duration_ms", "actor", "key_id",
                    "trace_id"):
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry).decode()


def _not_a_pipelines_echo(record: logging.LogRecord) -> bool:
    """False for psycopg's warning that a pipeline, left on an error raised inside it, failed
    to close: that error (a shortfall, a lost race) is raised and answered as a problem, and
    the warning only repeats it, as `pipeline aborted`, for a request that went as it should."""
    return not str(record.msg).startswith("error ignored terminating")


def configure(level: str = "INFO") -> None:
    """Send the `banco` loggers to stderr as JSON lines, and psycopg's warnings with them (with
    no handler of their own they would go out as plain text among the JSON lines)."""
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
    psycopg_logger = logging.getLogger("psycopg")
    psycopg_logger.handlers[:] = [handler]
    psycopg_logger.setLevel(logging.WARNING)
    psycopg_logger.propagate = False
    psycopg_logger.filters[:] = [_not_a_pipelines_echo]
