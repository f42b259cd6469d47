"""The players read model."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from events.catalog import TYPES
from events.model import StoredEvent
from events.postgres import older_events
from events.types import EventTypes


def apply(conn: psycopg.Connection, events: Sequence[StoredEvent]) -> None:
    """Project the `PlayerRegistered` events among `events`."""
    rows = [
        (e.data["player_id"], e.data["name"], e.recorded_at)
        for e in events
        if e.type == "PlayerRegistered"
    ]
    if rows:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO players (player_id, name, created_at) VALUES (%s, %s, %s)", rows
            )


def rebuild(conn: psycopg.Connection, types: EventTypes = TYPES) -> None:
    """Empty the table and replay every registration of the log: the current schema version's
    in SQL, older ones upcast."""
    conn.execute("TRUNCATE players")
    conn.execute(
        "INSERT INTO players (player_id, name, created_at)"
        " SELECT data->>'player_id', data->>'name', recorded_at FROM events"
        " WHERE type = 'PlayerRegistered' AND schema_version = %s ORDER BY position",
        (types.version("PlayerRegistered"),),
    )
    apply(conn, older_events(conn, types, "PlayerRegistered"))
