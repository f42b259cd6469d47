"""gunicorn's server hooks (`--config python:service.http.gunicorn_hooks`)."""

from __future__ import annotations

from typing import Any

# Imported as the master starts, not when its first worker ends: that is most often at a stop,
# which would wait the import out.
from prometheus_client import multiprocess


def child_exit(server: Any, worker: Any) -> None:
    """A worker process ended: its live gauges (open streams, connections in use) stop counting.
    Its counters stay in the metrics folder, so totals never go down when a worker restarts."""
    multiprocess.mark_process_dead(worker.pid)
