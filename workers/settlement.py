"""The settlement job: pays out a finished hand once, however often it runs."""

from __future__ import annotations

import logging
import os
import signal
from functools import cache

from psycopg_pool import ConnectionPool
from redis import Redis
from redis.client import Pipeline
from rq import Retry

from events.catalog import default_types
from events.model import ConcurrencyConflict
from events.postgres import PostgresEventStore, make_pool
from service.runtime import metrics
from workers.queues import queue

log = logging.getLogger("banco.settlement")


@cache
def _pool() -> ConnectionPool:
    return make_pool(os.environ["DATABASE_URL"], min_size=1, max_size=4)


@cache
def _store() -> PostgresEventStore:
    """The worker's store, made once: building the type registry's schemas costs more than a
    short job's own work."""
    return PostgresEventStore(_pool(), default_types())


def settle_hand(table_id: str, hand_id: str) -> bool:
    """Settle `hand_id`; False when it was already settled (a retry or a duplicate job)."""
    from service.commands import settling

    store = _store()
    waited: tuple[str, float] | None = None
    try:
        with _pool().connection() as conn, conn.transaction():
            # The row was last written by the move that ended the hand: how long the hand has
            # waited, for the metrics (read before `settle` writes the row again).
            waited = conn.execute(
                "SELECT game, extract(epoch FROM now() - updated_at)::float FROM tables"
                " WHERE table_id = %s AND status = 'settling'", (table_id,)).fetchone()
            done = settling.settle(conn, store, table_id, hand_id,
                                   {"actor": "worker", "command": "SettleHand", "hand": hand_id})
            if done and os.environ.get("BANCO_TEST_CRASH_POINT") == "settlement":
                # A test hook: die like a killed worker, the settlement written but not committed.
                os.kill(os.getpid(), signal.SIGKILL)
    except ConcurrencyConflict:
        done = False  # another worker (or the sweeper) settled it at the same moment
    if done and waited is not None:
        metrics.HANDS_SETTLED.labels(game=waited[0]).inc()
        metrics.SETTLEMENT_LAG.observe(max(0.0, waited[1]))
    log.info("hand %s %s", hand_id, "settled" if done else "was already settled")
    return done


def enqueue_settlement(connection: Redis, queue_name: str, table_id: str, hand_id: str,
                       pipeline: Pipeline | None = None) -> None:
    """Queue the settlement; the job id is the hand's, so duplicates collapse into one job."""
    queue(connection, queue_name).enqueue(
        settle_hand, table_id, hand_id, job_id=f"settle-{hand_id}",
        retry=Retry(max=5, interval=[1, 2, 5, 10, 30]), result_ttl=3600, pipeline=pipeline)
