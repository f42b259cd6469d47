"""The service's Prometheus metrics, each counted in the process where its event happens.

gunicorn runs the API in several processes, and the worker is another: each keeps its own
counts. With `PROMETHEUS_MULTIPROC_DIR` set in their environment before they start (`banco run`
and `banco serve` set it), prometheus_client writes every process's values to files of that
folder, one per process, and `GET /metrics` (`service.http.metrics`) adds them up whichever
process answers: counters and histograms are summed over every process that ever ran since the
start, the gauges below over the processes alive (`livesum`; gunicorn's `child_exit` hook drops a
dead worker's). Without the variable (one process: the tests, `flask run`) they are the process's
own. What Redis holds (the queue, failed jobs) is read at scrape time instead
(`workers.queue_metrics`).

Nothing here costs a round trip: an increment writes to a memory-mapped file.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.metrics import MetricWrapperBase

REQUEST_SECONDS = Histogram(
    "banco_http_request_duration_seconds",
    "Time to answer a request, to its response's first byte (a stream's set-up, not its life),"
    " by method (`other` for one not of HTTP's usual seven), route (the URL rule, `unmatched` for"
    " none) and status",
    ["method", "route", "status"])

ACTIONS = Counter("banco_actions", "Actions players took over the API and that committed, by game",
                  ["game"])
HANDS_DEALT = Counter("banco_hands_dealt", "Hands dealt, by game", ["game"])
HANDS_SETTLED = Counter("banco_hands_settled", "Hands settled by the worker or its sweeper, by game",
                        ["game"])

# From a few milliseconds (the job queued as the hand ends) to the sweeper's grace of ten
# seconds and beyond (a settlement waiting for a worker that is away).
SETTLEMENT_LAG = Histogram(
    "banco_settlement_lag_seconds", "From the move that ended a hand to the start of its settlement",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300))
# A deadline fires from RQ's scheduler (polling every second) or the sweeper (every second):
# late by up to a second or two when all is well, far more with no worker running.
DEADLINE_LATENESS = Histogram(
    "banco_deadline_lateness_seconds", "How long after its deadline a turn was timed out",
    buckets=(0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300))

DB_CONNECTIONS_IN_USE = Gauge(
    "banco_db_pool_connections_in_use", "Connections of the API's request pool that requests hold now",
    multiprocess_mode="livesum")
DB_POOL_MAX = Gauge(
    "banco_db_pool_max_connections",
    "The most connections the API's request pool may open (summed over its processes)",
    multiprocess_mode="livesum")
OPEN_STREAMS = Gauge("banco_open_streams", "Server-Sent Events streams open now",
                     multiprocess_mode="livesum")


_children: dict[tuple[int, tuple[str, ...]], Any] = {}


def labelled(metric: MetricWrapperBase, *values: str) -> Any:
    """`metric.labels(*values)`, kept. prometheus_client checks the values and takes a lock at
    every call of `labels`, which the request's timing and the actions' count make on every
    request; the child it makes is the metric's for good, and label values here come from short
    fixed sets (methods, routes, statuses, games), so keeping them keeps no more."""
    key = (id(metric), values)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*values)
    return child
