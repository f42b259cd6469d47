"""The settlement job: pays out a finished hand once, however often it runs."""

from __future__ import annotations

import logging
import os
import signal

from redis import Redis
from redis.client import Pipeline
from rq import Retry

from events.model import ConcurrencyConflict
from service.runtime import metrics, tracing
from workers import context
from workers.queues import queue

log = logging.getLogger("banco.settlement")


def settle_hand(table_id: str, hand_id: str) -> bool:
    """Settle `hand_id`; False when it was already settled (a retry or a duplicate job)."""
    from service.application.bus import handle
    from service.application.commands import SettleHand
    from service.application.postgres_unit_of_work import transaction

    resources = context.current()
    waited: tuple[str, float] | None = None
    try:
        with transaction(resources.pool, resources.store) as uow:
            # The row was last written by the move that ended the hand: how long the hand has
            # waited, for the metrics (read before `settle` writes the row again).
            waited = uow.connection.execute(
                "SELECT game, extract(epoch FROM now() - updated_at)::float FROM tables"
                " WHERE table_id = %s AND status = 'settling'", (table_id,)).fetchone()
            done = handle(SettleHand(table_id, hand_id), uow,
                          {"actor": "worker", "command": "SettleHand", "hand": hand_id})
            if done and resources.config.crash_point == "settlement":
                # A test hook: die like a killed worker, the settlement written but not committed.
                os.kill(os.getpid(), signal.SIGKILL)
    except ConcurrencyConflict:
        done = False  # another worker (or the sweeper) settled it at the same moment
    if done and waited is not None:
        metrics.HANDS_SETTLED.labels(game=waited[0]).inc()
        metrics.SETTLEMENT_LAG.observe(max(0.0, waited[1]))
    log.info("hand %s %s", hand_id, "settled" if done else "was already settled")
    return done


# How long a settled hand's job and its result stay in Redis: long enough to look at a settlement
# that just ran, short enough that Redis does not grow with the play. A job and its result take
# about 6.6 KB; kept an hour, a node settling 40 hands a second held some 950 MB of them, which
# nothing reads (`banco jobs` lists the failed jobs, which RQ keeps apart, for their own time).
RESULT_TTL_S = 300


def enqueue_settlement(connection: Redis, queue_name: str, table_id: str, hand_id: str,
                       pipeline: Pipeline | None = None,
                       trace: dict[str, str] | None = None) -> None:
    """Queue the settlement; the job id is the hand's, so duplicates collapse into one job. It
    carries `trace`, the context of what queued it, else the current one's (when tracing)."""
    queue(connection, queue_name).enqueue(
        settle_hand, table_id, hand_id, job_id=f"settle-{hand_id}",
        retry=Retry(max=5, interval=[1, 2, 5, 10, 30]), result_ttl=RESULT_TTL_S,
        pipeline=pipeline, meta=carried(trace, "settlement"))


def carried(trace: dict[str, str] | None, what: str) -> dict[str, object] | None:
    """A job's meta with the trace context it carries: `trace`, else the current one's."""
    trace = trace if trace is not None else tracing.queued(what)
    return {"trace": trace} if trace is not None else None
