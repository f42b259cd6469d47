"""`banco projections rebuild`: truncate every projection and replay it from the log."""

from __future__ import annotations

import random
import time

import psycopg
from psycopg import errors
from psycopg.pq import TransactionStatus

from events.catalog import TYPES
from events.types import EventTypes
from projections import balances, history_rebuild, players, table_rebuild

# The rebuild locks the projections in one order; writers take them in theirs (a table command
# reads `tables` before it locks balances; a settlement reads `hands` before it posts), and no
# one order fits every writer. So the rebuild never waits long holding some of them: each lock
# waits at most LOCK_WAIT, below PostgreSQL's deadlock_timeout (1 s), and on a timeout the
# rebuild lets go of all of them and tries again. A writer it stood in the way of then goes on,
# never aborted as a deadlock's victim.
LOCK_WAIT = "200ms"
LOCK_ATTEMPTS = 50


def rebuild_all(conn: psycopg.Connection, types: EventTypes = TYPES, workers: int | None = None) -> int:
    """Rebuild every projection in one transaction, reading the log with `types` (events of an
    older schema version upcast); returns the number of events covered. In a transaction of its
    own, it takes its locks as `LOCK_WAIT` says; in the caller's, it waits for them as long as
    the caller's transaction allows.

    The balance history is replayed by `workers` connections at once (see `_rebuild`)."""
    if conn.info.transaction_status != TransactionStatus.IDLE:
        return _rebuild(conn, types, 0, lock_wait=None)
    for attempt in range(1, LOCK_ATTEMPTS + 1):
        try:
            return _rebuild(conn, types, workers, lock_wait=LOCK_WAIT)
        except errors.LockNotAvailable:
            if attempt == LOCK_ATTEMPTS:
                raise
            time.sleep(random.uniform(0.01, 0.1))  # the writers in the way finish meanwhile
    raise AssertionError("unreachable")


def _rebuild(conn: psycopg.Connection, types: EventTypes, workers: int | None,
             lock_wait: str | None) -> int:
    """Rebuild every projection in one transaction, reading the log with `types` (events of an
    older schema version upcast); returns the number of events covered.

    The balance history is replayed by `workers` connections at once, one partition of accounts
    each (`projections.history_rebuild`; default: one per partition), while this one rebuilds
    the other projections; `workers=0` replays it in this transaction's own backend instead, and
    so does a rebuild inside a transaction the caller opened (its snapshot cannot be exported
    from a subtransaction, and the workers would not see what the caller wrote)."""
    replay = None
    try:
        with conn.transaction():
            # Block writers while we rebuild, so no inline update lands between truncate and replay.
            if lock_wait is not None:
                conn.execute("SELECT set_config('lock_timeout', %s, true)", (lock_wait,))
            conn.execute("LOCK TABLE balances, balance_history, players, tables, hands"
                         " IN ACCESS EXCLUSIVE MODE")
            if lock_wait is not None:
                conn.execute("SELECT set_config('lock_timeout', '0', true)")
            if workers == 0:
                balances.rebuild(conn, types)
            else:
                replay = history_rebuild.start(conn, workers, types)
            # While the workers replay. max(txid) as xid8, given as text: a cast of every
            # event's txid to text and back to bigint cost a scan's worth again.
            row = conn.execute(
                "SELECT coalesce(max(txid), '0')::text, coalesce(max(position), 0), count(*)"
                " FROM events"
            ).fetchone()
            assert row is not None
            txid, position, count = row
            players.rebuild(conn, types)
            table_rebuild.rebuild(conn, types)
            if replay is not None:
                history_rebuild.finish(conn, replay)
            for name in ("balances", "players", "tables"):
                conn.execute(
                    "INSERT INTO projection_checkpoints (name, txid, position)"
                    " VALUES (%s, %s::text::xid8, %s)"
                    " ON CONFLICT (name) DO UPDATE SET txid = EXCLUDED.txid, position = EXCLUDED.position",
                    (name, txid, position),
                )
    except BaseException:
        if replay is not None:
            history_rebuild.discard(conn, replay)
        raise
    return int(count)
