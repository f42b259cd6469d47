"""What `banco jobs` shows: the lengths, scheduled, started and failed jobs of every queue the
service runs (`workers.queues.served`: the queue and its webhooks' lane
(`workers.queues.webhook_lane`), the queues `GET /metrics` reports), and their workers, which
work the lane in threads of their own (`BANCO_WEBHOOK_THREADS`) or alone
(`banco worker --webhooks`)."""

from __future__ import annotations

from typing import Any

from redis import Redis
from rq import Queue, Worker
from rq.job import Job

from workers.queues import queue, served


def workers(connection: Redis, queue_name: str) -> list[dict[str, Any]]:
    """Every worker alive on the queue or its webhooks' lane, by name: its state and the queues
    (of those two) it takes jobs from."""
    found: dict[str, dict[str, Any]] = {}
    for name in served(queue_name):
        for worker in Worker.all(queue=queue(connection, name)):
            shown = found.setdefault(worker.name, {"name": worker.name,
                                                   "state": str(worker.get_state()),
                                                   "queues": []})
            shown["queues"].append(name)
    return sorted(found.values(), key=lambda w: (w["queues"] != [queue_name], w["name"]))


def alive(listed: list[dict[str, Any]], queue_name: str) -> str:
    """How many of `listed` (`workers`) are alive, and on which queue: "2 alive (banco: 1,
    banco-webhooks: 1)", or "none"."""
    if not listed:
        return "none"
    each = ", ".join(f"{name}: {sum(name in w['queues'] for w in listed)}"
                     for name in served(queue_name))
    return f"{len(listed)} alive ({each})"


def counts(q: Queue) -> dict[str, int]:
    """How many jobs `q` holds in each state, as `banco_queue_jobs` counts them."""
    return {"queued": q.count, "scheduled": q.scheduled_job_registry.count,
            "started": q.started_job_registry.count, "failed": q.failed_job_registry.count}


def report(connection: Redis, queue_name: str, limit: int = 20) -> dict[str, Any]:
    """The state of every queue the service runs (the queue's own also at the top, as before
    the lane had one), the failed jobs' ids and errors (at most `limit`, the queue's own
    first), and the workers of the queues."""
    queues: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    for name in served(queue_name):
        q = queue(connection, name)
        # The workers whose key is alive: RQ's set of a queue's workers keeps one killed
        # mid-job after its key expired, and `Worker.count` counts the set.
        queues.append({"name": name, **counts(q), "workers": len(Worker.all(queue=q))})
        if len(failures) < limit:
            failures += _failures(connection, q, limit - len(failures))
    own = {k: v for k, v in queues[0].items() if k not in ("name", "workers")}
    return {"queue": queue_name, **own, "queues": queues, "failed_jobs": failures,
            "workers": workers(connection, queue_name)}


def _failures(connection: Redis, q: Queue, limit: int) -> list[dict[str, Any]]:
    failures: list[dict[str, Any]] = []
    for job_id in q.failed_job_registry.get_job_ids(0, limit - 1):
        job = Job.fetch(job_id, connection=connection)
        result = job.latest_result()
        error = (result.exc_string or "") if result is not None else ""
        failures.append({"id": job_id, "queue": q.name, "call": job.description,
                         "error": error.strip().splitlines()[-1] if error.strip() else ""})
    return failures


def failed_in(connection: Redis, queue_name: str, job_id: str) -> str | None:
    """Which of the service's queues holds `job_id` among its failed jobs (None: none does)."""
    return next((name for name in served(queue_name)
                 if job_id in queue(connection, name).failed_job_registry), None)


def requeue(connection: Redis, queue_name: str, job_ids: list[str]) -> int:
    """Put failed jobs back on their queues, each on its own (all the failed jobs of every queue
    the service runs when `job_ids` is empty); how many were."""
    count = 0
    for name in served(queue_name):
        registry = queue(connection, name).failed_job_registry
        held = registry.get_job_ids()
        for job_id in (held if not job_ids else [j for j in job_ids if j in held]):
            registry.requeue(job_id)
            count += 1
    return count
