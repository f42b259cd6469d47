"""What `banco jobs` shows: queue lengths, scheduled, started and failed jobs, and workers."""

from __future__ import annotations

from typing import Any

from redis import Redis
from rq import Worker
from rq.job import Job

from workers.queues import queue


def report(connection: Redis, queue_name: str, limit: int = 20) -> dict[str, Any]:
    """The queue's state, with the failed jobs' ids and errors."""
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
        "workers": [{"name": w.name, "state": str(w.get_state())} for w in Worker.all(queue=q)],
    }


def requeue(connection: Redis, queue_name: str, job_ids: list[str]) -> int:
    """Put failed jobs back on the queue (all of them when `job_ids` is empty)."""
    registry = queue(connection, queue_name).failed_job_registry
    ids = job_ids or registry.get_job_ids()
    for job_id in ids:
        registry.requeue(job_id)
    return len(ids)
