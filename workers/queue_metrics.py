"""The worker's queue as Prometheus metrics, read from RQ at each scrape.

Redis holds these numbers for every worker at once, wherever it runs: reading them when asked
is exact, where counting them in each process could not be (a job that fails in a worker on
another machine).
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from redis import Redis, RedisError
from rq import Worker

from workers.jobs_report import counts as counted
from workers.queues import queue


class QueueCollector(Collector):
    """`banco_queue_jobs{queue,state}`, `banco_queue_workers{queue}` and `banco_queue_up{queue}`
    of each queue named: those the service runs (`workers.queues.served`), as `banco jobs` and
    `GET /v1/jobs` show them."""

    def __init__(self, connection: Redis, *queue_names: str) -> None:
        self.connection = connection
        self.queue_names = queue_names

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("banco_queue_up", "1 when the queue's Redis answered the scrape",
                               labels=["queue"])
        jobs = GaugeMetricFamily(
            "banco_queue_jobs", "Jobs of the worker's queue by state: queued, scheduled (deadlines"
            " to come), started, and failed (kept until requeued or expired; see GET /v1/jobs)",
            labels=["queue", "state"])
        workers = GaugeMetricFamily("banco_queue_workers", "Workers taking the queue's jobs",
                                    labels=["queue"])
        for name in self.queue_names:
            try:
                q = queue(self.connection, name)
                counts = counted(q)
                alive = Worker.count(queue=q)
            except RedisError:
                # Redis away: say so, rather than fail the scrape of everything else.
                up.add_metric([name], 0)
                continue
            up.add_metric([name], 1)
            for state, count in counts.items():
                jobs.add_metric([name, state], count)
            workers.add_metric([name], alive)
        yield from (up, jobs, workers)
