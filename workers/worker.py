"""`banco worker`: an RQ worker with its scheduler, one process, no fork per job."""

from __future__ import annotations

from rq import SimpleWorker

from workers.queues import connect, queue


def run(redis_url: str, queue_name: str = "banco", burst: bool = False) -> bool:
    """Work the queue (until it is empty with `burst`); returns whether any job ran."""
    connection = connect(redis_url)
    # SimpleWorker runs jobs in-process: a fork per job caps RQ near 100 jobs/s on two cores,
    # and Banco's jobs are short and load all they need from PostgreSQL.
    worker = SimpleWorker([queue(connection, queue_name)], connection=connection)
    return worker.work(burst=burst, with_scheduler=True)
