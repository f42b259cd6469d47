"""What `banco jobs` shows: queue lengths, scheduled, started and failed jobs, and workers: those
of the queue and those of its webhooks' lane (`workers.queues.webhook_lane`), which a worker
works in threads of its own (`BANCO_WEBHOOK_THREADS`) and `banco worker --webhooks` alone."""

from __future__ import annotations

from typing import Any

from redis import Redis
from rq import Worker
from rq.job import Job

from workers.queues import queue, webhook_lane


def workers(connection: Redis, queue_name: str) -> list[dict[str, Any]]:
    """Every worker alive on the queue or its webhooks' lane, by name: its state and the queues
    (of those two) it takes jobs from."""
    found: dict[str, dict[str, Any]] = {}
    for name in (queue_name, webhook_lane(queue_name)):
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
                     for name in (queue_name, webhook_lane(queue_name)))
    return f"{len(listed)} alive ({each})"


def report(connection: Redis, queue_name: str, limit: int = 20) -> dict[str, Any]:
    """The queue's state, with the failed jobs' ids and errors, and the workers of the queue
    and of its webhooks' lane."""
    q = queue(connection, queue_name)
    failed = q.failed_job_registry
    failures = []
    for job_id in failed.get_job_ids(0, limit - 1):
        job = Job.fetch(job_id, connection=connection)
        result = job.latest_result()
        error = (result.exc_string or "") if result is not None else ""
        failures.append({"id": job_id, "call": job.description,
                         "error": error.strip().splitlines()[-1] if error.strip() else ""})
    return {
        "queue": queue_name,
        "queued": q.count,
        "scheduled": q.scheduled_job_registry.count,
        "started": q.started_job_registry.count,
        "failed": failed.count,
        "failed_jobs": failures,
        "workers": workers(connection, queue_name),
    }


def requeue(connection: Redis, queue_name: str, job_ids: list[str]) -> int:
    """Put failed jobs back on the queue (all of them when `job_ids` is empty)."""
    registry = queue(connection, queue_name).failed_job_registry
    ids = job_ids or registry.get_job_ids()
    for job_id in ids:
        registry.requeue(job_id)
    return len(ids)
