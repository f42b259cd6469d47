"""`banco projections rebuild`: truncate every projection and replay it from the log."""

from __future__ import annotations

import psycopg

from events.catalog import TYPES
from events.types import EventTypes
from projections import balances, players, table_rebuild


def rebuild_all(conn: psycopg.Connection, types: EventTypes = TYPES) -> int:
    """Rebuild every projection in one transaction, reading the log with `types` (events of an
    older schema version upcast); returns the number of events covered."""
    with conn.transaction():
        # Block writers while we rebuild, so no inline update lands between truncate and replay.
        conn.execute("LOCK TABLE balances, balance_history, players, tables, hands"
                     " IN ACCESS EXCLUSIVE MODE")
        balances.rebuild(conn, types)
        players.rebuild(conn, types)
        table_rebuild.rebuild(conn, types)
        # max(txid) as xid8, given as text: a cast of every event's txid to text and back
        # to bigint cost a scan's worth again.
        row = conn.execute(
            "SELECT coalesce(max(txid), '0')::text, coalesce(max(position), 0), count(*)"
            " FROM events"
        ).fetchone()
        assert row is not None
        txid, position, count = row
        for name in ("balances", "players", "tables"):
            conn.execute(
                "INSERT INTO projection_checkpoints (name, txid, position)"
                " VALUES (%s, %s::text::xid8, %s)"
                " ON CONFLICT (name) DO UPDATE SET txid = EXCLUDED.txid, position = EXCLUDED.position",
                (name, txid, position),
            )
    return int(count)
