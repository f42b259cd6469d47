"""Turn deadlines: a job per deadline, and a sweeper that fires whatever a lost job missed.

Both go through `fire`, which applies a timeout only if the table is still at the version the
deadline was set at: a turn that ended early, a second job, or the sweeper racing the job all
find the version moved on and append nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta

import psycopg
from redis import Redis
from redis.client import Pipeline
from rq import Retry
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from events.model import ConcurrencyConflict
from projections import tables
from service.runtime import metrics
from workers import context
from workers.queues import queue
from workers.settlement import carried, enqueue_settlement

log = logging.getLogger("banco.timeouts")


def job_id(table_id: str, version: int) -> str:
    """One job per table and turn: scheduling it twice keeps one."""
    return f"timeout-{table_id}-{version}"


def schedule(connection: Redis, queue_name: str, table_id: str, version: int, at: datetime,
             pipeline: Pipeline | None = None, trace: dict[str, str] | None = None) -> None:
    """Schedule the timeout of the turn that began at `version` (carrying `trace`, as
    `enqueue_settlement`)."""
    # RQ files a job under its time in whole seconds, the fraction dropped: a deadline at 10.7 s
    # would be due at 10 s, when the engine refuses a timeout still 0.7 s early, and the turn
    # would wait for the sweeper. The next whole second is never early.
    if at.microsecond:
        at = at.replace(microsecond=0) + timedelta(seconds=1)
    queue(connection, queue_name).enqueue_at(
        at, fire_timeout, table_id, version, job_id=job_id(table_id, version),
        retry=Retry(max=3, interval=[1, 5, 15]), result_ttl=600, pipeline=pipeline,
        meta=carried(trace, "timeout"))


def cancel(connection: Redis, queue_name: str, table_id: str, version: int,
           pipeline: Pipeline | None = None) -> None:
    """Drop the scheduled timeout of the turn that began at `version`: it ended in time. A job
    the scheduler has already queued still runs, finds the version moved on and does nothing."""
    pipe = pipeline if pipeline is not None else connection.pipeline()
    ident = job_id(table_id, version)
    ScheduledJobRegistry(queue=queue(connection, queue_name)).remove(ident, pipeline=pipe)
    pipe.delete(Job.key_for(ident))
    if pipeline is None:
        pipe.execute()


def fire(table_id: str, version: int) -> tables.TableRow | None:
    """Time out the turn in play if the table is still at `version`; the table after, or None."""
    from service.application.bus import handle
    from service.application.commands import TimeOut
    from service.application.postgres_unit_of_work import transaction

    resources = context.current()
    try:
        with transaction(resources.pool, resources.store) as uow:
            timed_out = handle(TimeOut(table_id, version), uow,
                               {"actor": "worker", "timeout": True})
    except ConcurrencyConflict:
        return None  # a player's action landed first: the turn is over
    if timed_out is None:
        return None
    if timed_out.due is not None:  # counted once committed
        metrics.DEADLINE_LATENESS.observe(
            max(0.0, (datetime.now(UTC) - timed_out.due).total_seconds()))
    return timed_out.table


def send(connection: Redis, queue_name: str, settle: Iterable[tuple[str, str]] = (),
         turns: Iterable[tuple[str, int, datetime]] = (),
         ended: Iterable[tuple[str, int]] = (),
         traces: Mapping[str, dict[str, str]] | None = None) -> None:
    """In one round trip to Redis: the settlements of (table, hand) queued, the timeouts of the
    turns (table, version it began at, deadline) scheduled, and those of the turns (table,
    version) that `ended` cancelled. Each job carries its table's trace context from `traces`."""
    traces = traces or {}
    pipe = connection.pipeline()
    # RQ may start its transaction on the pipeline while enqueueing, which must come before any
    # other command: so settlements first, then schedules, then cancellations.
    for table_id, hand_id in settle:
        enqueue_settlement(connection, queue_name, table_id, hand_id, pipe,
                           trace=traces.get(table_id))
    for table_id, version, at in turns:
        schedule(connection, queue_name, table_id, version, at, pipe, trace=traces.get(table_id))
    for table_id, version in ended:
        cancel(connection, queue_name, table_id, version, pipe)
    pipe.execute()


def settlement(table: tables.TableRow) -> tuple[str, str] | None:
    """The (table, hand) whose settlement the committed `table` waits for, if it does."""
    if table.status == "settling" and table.hand_id is not None:
        return table.table_id, table.hand_id
    return None


def deadline(table: tables.TableRow) -> tuple[str, int, datetime] | None:
    """The (table, version its turn began at, deadline) of the committed `table`'s turn in play,
    if it has one."""
    if table.status == "playing" and table.deadline is not None:
        return table.table_id, table.version, table.deadline
    return None


def after(connection: Redis, queue_name: str, table: tables.TableRow | None,
          ended: int | None = None) -> None:
    """What a changed table needs next: its next deadline scheduled, or its settlement queued,
    and the timeout of the turn it `ended` (the version that turn began at) cancelled; all in
    one round trip to Redis."""
    if table is None:
        return
    settle, turn = settlement(table), deadline(table)
    send(connection, queue_name, settle=[settle] if settle else [], turns=[turn] if turn else [],
         ended=[(table.table_id, ended)] if ended is not None else [])


def fire_timeout(table_id: str, version: int) -> bool:
    """The scheduled job: fire the deadline, then schedule what follows."""
    from rq import get_current_job

    try:
        table = fire(table_id, version)
    except psycopg.errors.LockNotAvailable:
        # Another transaction holds the table past the jobs' lock_timeout: the sweeper, which
        # fires every overdue deadline, tries again; the queue's next jobs go on meanwhile.
        log.warning("deadline of %s at version %s: the table is held by another transaction;"
                    " the sweeper fires it once it is free", table_id, version)
        return False
    job = get_current_job()
    if job is not None and job.origin:
        after(job.connection, job.origin, table)
    log.info("deadline of %s at version %s %s", table_id, version, "fired" if table else "was moot")
    return table is not None
