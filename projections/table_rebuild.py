"""Rebuild the table-state projection (tables and hands) by replaying every table stream through
the fold the commands write the rows with (`projections.table_fold`)."""

from __future__ import annotations

import psycopg

from events.catalog import TYPES
from events.postgres import COLUMNS, stored_event
from events.types import EventTypes
from projections import table_fold, tables


def rebuild(conn: psycopg.Connection, types: EventTypes = TYPES) -> int:
    """Empty `tables` and `hands` and replay every table stream, inside the caller's transaction."""
    conn.execute("TRUNCATE hands, tables")
    streams = [r[0] for r in conn.execute(
        "SELECT stream_id FROM streams WHERE stream_id LIKE 'table-%' ORDER BY stream_id")]
    for stream_id in streams:
        rows = conn.execute(f"SELECT {COLUMNS} FROM events WHERE stream_id = %s ORDER BY version",
                            (stream_id,)).fetchall()
        table, hands = table_fold.fold([stored_event(r, types) for r in rows])
        tables.save(conn, table)
        for hand in hands:
            conn.execute(
                "INSERT INTO hands (hand_id, table_id, number, status, seats, commitment,"
                " first_version, last_version, postings, opened_at, settled_at)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (hand["hand_id"], table.table_id, hand["number"], hand["status"],
                 tables.Jsonb(hand["seats"]), hand["commitment"], hand["first_version"],
                 hand.get("last_version"), tables.Jsonb(hand["postings"]) if "postings" in hand else None,
                 hand["opened_at"], hand.get("settled_at")))
    return len(streams)
