"""The sweeper: fires overdue deadlines, settles hands whose job was lost, ends expired tables,
and queues the webhook deliveries that are due.

It reads the table-state projection, not Redis, so it still does the right thing after Redis lost
every scheduled job (restarted empty, flushed, or down when the deadline was set). Each thing it
does is idempotent, so several workers may sweep at once.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import psycopg
from redis import Redis, RedisError

from events.model import ConcurrencyConflict
from projections import tables
from workers import context, timeouts, webhooks
from workers.settlement import settle_hand

log = logging.getLogger("banco.sweeper")

# How long the sweeps go without Redis after it failed them. A Redis that hangs answers nothing
# until each call's timeout: asked at every pass, it stretched the one-second sweep to eleven,
# and the deadlines, which need only PostgreSQL, fired up to ten seconds late.
REDIS_PAUSE_S = 10.0

def settle_grace_s() -> float:
    """How long a hand may wait for its settlement job before the sweeper settles it itself."""
    return context.config().settle_grace_s  # a job lands within a second


@dataclass
class Swept:
    """What one sweep did."""

    deadlines: int = 0
    settled: int = 0
    ended: int = 0
    webhooks: int = 0  # delivery jobs queued (not logged: a busy subscription has one a second)
    # Redis failed the pass: the next ones go without it a while (not logged with the counts).
    redis_failed: bool = field(default=False, repr=False)


def sweep(connection: Redis | None, queue_name: str) -> Swept:
    """One pass over every overdue deadline, stuck settlement and expired table."""
    with context.pool().connection() as conn:
        overdue = conn.execute(
            "SELECT table_id, version FROM tables WHERE status = 'playing' AND deadline <= now()"
            " ORDER BY deadline LIMIT 500").fetchall()
        stuck = conn.execute(
            "SELECT table_id, hand_id FROM tables WHERE status = 'settling'"
            " AND updated_at <= now() - make_interval(secs => %s) LIMIT 500",
            (settle_grace_s(),)).fetchall()
        expired = conn.execute(
            "SELECT table_id FROM tables WHERE status = 'open' AND options ? 'duration_s'"
            " AND jsonb_typeof(options->'duration_s') = 'number'"
            " AND created_at + make_interval(secs => (options->>'duration_s')::float) <= now()"
            " LIMIT 500").fetchall()
    done = Swept()
    # Each table on its own: one whose row cannot be read (or whose command fails) is logged
    # and left for the next pass, and holds up no other table's deadline; were the whole pass to
    # fail, the same table would come first again, at every pass.
    for table_id, version in overdue:
        with _each(table_id):
            table = timeouts.fire(table_id, version)
            if table is not None:
                done.deadlines += 1
                asked, connection = connection, follow_up(connection, queue_name, table)
                done.redis_failed |= asked is not None and connection is None
    for table_id, hand_id in stuck:
        with _each(table_id):
            done.settled += settle_hand(table_id, hand_id)
    for (table_id,) in expired:
        with _each(table_id):
            done.ended += end_expired(table_id)
    if connection is not None:
        try:
            done.webhooks = webhooks.enqueue_due(connection, queue_name)
        except RedisError as e:  # they stay due in PostgreSQL, for the sweeps after Redis is back
            log.debug("Redis unreachable (%s): webhook deliveries wait for it", e)
            done.redis_failed = True
    return done


@contextlib.contextmanager
def _each(table_id: str) -> Iterator[None]:
    try:
        yield
    except psycopg.errors.LockNotAvailable:
        # Another transaction holds the table past the jobs' lock_timeout (a node hung in the
        # middle of a move): the other tables go on, and the next pass tries this one again.
        log.warning("table %s is held by another transaction; the next pass tries it again",
                    table_id)
    except psycopg.OperationalError:
        raise  # PostgreSQL itself is away: the whole pass fails, and the next one retries
    except Exception:
        log.exception("sweeping table %s failed; the next pass tries it again", table_id)


def follow_up(connection: Redis | None, queue_name: str, table: tables.TableRow) -> Redis | None:
    """Send Redis what a fired deadline leads to (the next turn's job, the settlement's); the
    connection to use for the rest of the sweep, None once Redis failed: what was not sent is in
    PostgreSQL, where the next sweeps find it, and the sweep must not wait on Redis meanwhile."""
    if connection is None:
        return None
    try:
        timeouts.after(connection, queue_name, table)
        return connection
    except RedisError as e:
        log.debug("Redis unreachable (%s): the rest of this sweep goes without it", e)
        return None


def end_expired(table_id: str) -> bool:
    """End an open table whose `duration_s` has run out (Casino pirate)."""
    from service.application.bus import handle
    from service.application.commands import EndTable
    from service.application.postgres_unit_of_work import transaction

    resources = context.current()
    try:
        with transaction(resources.pool, resources.store) as uow:
            return bool(handle(EndTable(table_id, "duration"), uow,
                               {"actor": "worker", "command": "EndTable"}))
    except ConcurrencyConflict:
        return False


def sweep_logged(connection: Redis | None, queue_name: str) -> Swept | None:
    """One sweep whose failure is logged, not raised: the next pass retries. What it did (None
    when it failed)."""
    try:
        swept = sweep(connection, queue_name)
        if swept.deadlines or swept.settled or swept.ended:
            log.info("swept: %s", swept)
        return swept
    except Exception:  # a worker must not die of one bad sweep (PostgreSQL restarting, say)
        log.exception("sweep failed")
        return None


def checkpoint_due(connection: Redis, queue_name: str) -> bool:
    """True for one worker per `BANCO_CHECKPOINT_EVERY_S` (default an hour): it records a digest.
    Raises RedisError when Redis cannot tell."""
    every = context.config().checkpoint_every_s
    return bool(connection.set(f"banco:{queue_name}:checkpoint-due", "1", nx=True, ex=every))


def loop(connection: Redis, queue_name: str, every_s: float, stop: threading.Event) -> None:
    """Sweep every `every_s` seconds until `stop` is set, and record the periodic checkpoints;
    for `REDIS_PAUSE_S` after Redis failed a pass, without Redis (what it would have been sent
    is in PostgreSQL, where the sweeps after the pause find it)."""
    from workers.checkpoints import record_checkpoint
    from workers.partition_upkeep import upkeep_logged
    from workers.purges import purge_logged

    redis_back = float("-inf")  # time.monotonic() from which Redis is asked again
    while not stop.wait(every_s):
        redis = connection if time.monotonic() >= redis_back else None
        swept = sweep_logged(redis, queue_name)
        if swept is not None and swept.redis_failed:
            redis, redis_back = None, time.monotonic() + REDIS_PAUSE_S
        purge_logged()
        upkeep_logged()
        if redis is None:
            continue
        try:
            if checkpoint_due(redis, queue_name):
                log.info("checkpoint recorded: %s", record_checkpoint()["root"])
        except RedisError as e:  # asked again after the pause, without a traceback a second
            log.debug("Redis unreachable (%s): the sweeps go without it a while", e)
            redis_back = time.monotonic() + REDIS_PAUSE_S
        except Exception:  # retried at the next due time; a worker must not die of it
            log.exception("checkpoint failed")
