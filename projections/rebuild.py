"""`banco projections rebuild`: truncate every projection and replay it from the log."""

from __future__ import annotations

import psycopg
from psycopg.pq import TransactionStatus

from events.catalog import TYPES
from events.types import EventTypes
from projections import balances, history_rebuild, players, table_rebuild


def rebuild_all(conn: psycopg.Connection, types: EventTypes = TYPES, workers: int | None = None) -> int:
    """Rebuild every projection in one transaction, reading the log with `types` (events of an
    older schema version upcast); returns the number of events covered.

    The balance history is replayed by `workers` connections at once, one partition of accounts
    each (`projections.history_rebuild`; default: one per partition), while this one rebuilds
    the other projections; `workers=0` replays it in this transaction's own backend instead, and
    so does a rebuild inside a transaction the caller opened (its snapshot cannot be exported
    from a subtransaction, and the workers would not see what the caller wrote)."""
    if conn.info.transaction_status != TransactionStatus.IDLE:
        workers = 0
    replay = None
    try:
        with conn.transaction():
            # Block writers while we rebuild, so no inline update lands between truncate and replay.
            conn.execute("LOCK TABLE balances, balance_history, players, tables, hands"
                         " IN ACCESS EXCLUSIVE MODE")
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
