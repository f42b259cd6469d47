"""The worker's logs: the JSON lines of service/runtime/logs.py, one line per job.

RQ's worker logs four lines for a job that succeeds (dequeued, completed, OK, result kept). Only
the completion line is kept: it says what ran, how long it took and that it succeeded. A job that
fails is the one error line RQ writes with its traceback. RQ's other lines (start, scheduler,
warnings) go through unchanged.
"""

from __future__ import annotations

import logging
import sys

from service.runtime import logs

# RQ's per-job messages other than the completion, by their format string (rq.worker).
_PER_JOB = frozenset({
    "Worker %s: %s: %s (%s)",  # dequeued (with its description), and "Job OK"
    "Worker %s: %s: %s",  # dequeued (without its description)
    "Worker %s: job %s result is kept for %s seconds",
    "Worker %s: job %s result discarded immediately",
    "Worker %s: job %s result will never expire, clean up result key manually",
})


class OneLinePerJob(logging.Filter):
    """Drop RQ's per-job lines except the completion (successes) and the error (failures)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or record.msg not in _PER_JOB


def configure(level: str = "INFO") -> None:
    """JSON lines on stderr for Banco's loggers and RQ's, RQ's per job reduced to one."""
    logs.configure(level)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logs.JsonFormatter())
    handler.addFilter(OneLinePerJob())
    # A handler on "rq" stops the worker and its scheduler from adding their own text handlers.
    rq = logging.getLogger("rq")
    rq.handlers[:] = [handler]
    rq.setLevel(level)
    rq.propagate = False
