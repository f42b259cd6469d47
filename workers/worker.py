"""`banco worker`: an RQ worker with its scheduler and the sweeper, one process, no fork per job."""

from __future__ import annotations

import threading

from rq import SimpleWorker

from workers import job_logs, sweeper
from workers.queues import connect, queue


def run(redis_url: str, queue_name: str = "banco", burst: bool = False,
        sweep_every_s: float = 1.0) -> bool:
    """Work the queue (until it is empty with `burst`); returns whether any job ran."""
    job_logs.configure()
    connection = connect(redis_url)
    # SimpleWorker runs jobs in-process: a fork per job caps RQ near 100 jobs/s on two cores,
    # and Banco's jobs are short and load all they need from PostgreSQL.
    worker = SimpleWorker([queue(connection, queue_name)], connection=connection)
    if burst:
        sweeper.sweep_logged(connection, queue_name)
        return worker.work(burst=True, with_scheduler=True)
    stop = threading.Event()
    thread = threading.Thread(target=sweeper.loop, args=(connection, queue_name, sweep_every_s, stop),
                              name="sweeper", daemon=True)
    thread.start()
    try:
        return worker.work(with_scheduler=True)
    finally:
        stop.set()
