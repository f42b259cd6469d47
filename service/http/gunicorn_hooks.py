"""gunicorn's server hooks (`--config python:service.http.gunicorn_hooks`)."""

from __future__ import annotations

import faulthandler
from typing import Any

# Imported as the master starts, not when its first worker ends: that is most often at a stop,
# which would wait the import out.
from prometheus_client import multiprocess

from service.runtime.config import metrics_folder


def child_exit(server: Any, worker: Any) -> None:
    """A worker process ended: its live gauges (open streams, connections in use) stop counting.
    Its counters stay in the metrics folder, so totals never go down when a worker restarts.
    Without a metrics folder (gunicorn run without `banco serve`'s settings) there is nothing to
    mark, and the hook must not fail: an exception here ends gunicorn's master, and with it every
    worker and every connection they hold."""
    if metrics_folder() is not None:
        multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker: Any) -> None:
    """A worker that dies of a signal (a crash in a C extension) writes where each of its
    threads was to its log, as the last thing it does."""
    faulthandler.enable(all_threads=True)
