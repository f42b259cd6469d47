"""The players read model: each player's name, read from his sealed registration when it is
appended, and cleared when he is erased."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from events import personal_data
from events.catalog import TYPES
from events.model import StoredEvent
from events.postgres import older_events
from events.types import EventTypes

PROJECTED = ("PlayerRegistered", "PlayerErased")


def find(conn: psycopg.Connection, player_id: str) -> dict[str, Any] | None:
    """The player's row as the API shows it, or None."""
    row = conn.execute(
        "SELECT player_id, name, created_at, erased_at FROM players WHERE player_id = %s",
        (player_id,)
    ).fetchone()
    if row is None:
        return None
    return {"id": row[0], "name": row[1], "created_at": row[2], "erased": row[3] is not None}


def names(conn: psycopg.Connection, player_ids: Sequence[str]) -> dict[str, str | None]:
    """The players' names by id (None for an erased one)."""
    rows = conn.execute("SELECT player_id, name FROM players WHERE player_id = ANY(%s)",
                        (list(player_ids),)).fetchall()
    return dict(rows)


def apply(conn: psycopg.Connection, events: Sequence[StoredEvent]) -> None:
    """Project the `PlayerRegistered` and `PlayerErased` events among `events`."""
    for e in events:
        if e.type == "PlayerRegistered":
            key = personal_data.key_of(conn, e.data["player_id"])
            conn.execute("INSERT INTO players (player_id, name, created_at) VALUES (%s, %s, %s)",
                         (e.data["player_id"], personal_data.name_of(e.data, key), e.recorded_at))
        elif e.type == "PlayerErased":
            conn.execute("UPDATE players SET name = NULL, erased_at = %s WHERE player_id = %s",
                         (e.recorded_at, e.data["player_id"]))


def rebuild(conn: psycopg.Connection, types: EventTypes = TYPES) -> None:
    """Empty the table and replay every registration and erasure of the log: the current schema
    version's rows read in SQL, older ones upcast. Erasures go last: each follows its player's
    registration."""
    conn.execute("TRUNCATE players")
    rows = conn.execute(
        "SELECT e.type, e.data, e.recorded_at, k.key FROM events e"
        " LEFT JOIN player_keys k ON e.type = 'PlayerRegistered'"
        " AND k.player_id = e.data->>'player_id'"
        " WHERE (e.type = %s AND e.schema_version = %s) OR (e.type = %s AND e.schema_version = %s)"
        " ORDER BY e.position",
        [x for kind in PROJECTED for x in (kind, types.version(kind))])
    registered, erased = [], []
    for kind, data, recorded_at, key in rows:
        if kind == "PlayerRegistered":
            name = personal_data.name_of(data, None if key is None else bytes(key))
            registered.append((data["player_id"], name, recorded_at))
        else:
            erased.append((recorded_at, data["player_id"]))
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO players (player_id, name, created_at) VALUES (%s, %s, %s)",
                        registered)
        apply(conn, older_events(conn, types, "PlayerRegistered"))
        erased += [(e.recorded_at, e.data["player_id"])
                   for e in older_events(conn, types, "PlayerErased")]
        cur.executemany("UPDATE players SET name = NULL, erased_at = %s WHERE player_id = %s",
                        erased)
