"""Rebuild the table-state projection (tables and hands) by replaying every table stream."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg

from events.catalog import GAME_EVENT_PREFIX, TYPES
from events.game_records import engine_event
from events.model import StoredEvent
from events.postgres import COLUMNS, stored_event
from events.types import EventTypes
from games import registry
from projections import tables
from projections.tables import TableRow, turn_of


def _fold(events: list[StoredEvent]) -> tuple[TableRow, list[dict[str, Any]]]:
    """The table row and its hands after a table stream's events."""
    first = events[0].data
    table = TableRow(first["table_id"], first["game"], first["options"], "open", 0,
                     created_by=first["created_by"], created_at=events[0].recorded_at,
                     rules_version=first.get("rules_version") or 1)
    engine = registry.engine(table.game, table.rules_version)
    hands: dict[str, dict[str, Any]] = {}
    deadline: float | None = None
    for e in events:
        d = e.data
        if e.type == "PlayerSeated":
            table.seats = [*table.seats, {k: d[k] for k in ("seat", "player_id", "age", "seed")}]
        elif e.type == "PlayerLeft":
            tables.unseat(table, d["player_id"])
        elif e.type == "HandBegan":
            table.hand_id, table.hand_number, table.status = d["hand_id"], d["number"], "playing"
            table.state = engine.initial_state(table.options)
            hands[d["hand_id"]] = {"hand_id": d["hand_id"], "number": d["number"], "seats": d["seats"],
                                   "commitment": d["commitment"], "first_version": e.version,
                                   "opened_at": e.recorded_at, "status": "playing"}
        elif e.type.startswith(GAME_EVENT_PREFIX):
            table.state = engine.evolve(table.state, engine_event(e))
            if table.status == "playing" and engine.is_terminal(table.state):
                table.status = "settling"
                hands[d["hand"]].update(status="settling", last_version=e.version)
        elif e.type == "HandSettled":
            table.status = "open"
            hands[d["hand_id"]].update(status="settled", postings=d["postings"],
                                       settled_at=e.recorded_at)
        elif e.type == "TableEnded":
            table.status = "over"
        elif e.type == "DeadlineSet":
            deadline = d["deadline"]
        table.version = e.version
    live = table.state is not None and table.status in ("playing", "settling")
    table.turn = turn_of(engine, table.state) if live else None
    if table.status == "playing" and table.turn is not None and deadline is not None:
        table.deadline = datetime.fromtimestamp(deadline, UTC)
        table.turn = {**table.turn, "deadline": table.deadline.isoformat()}
    return table, list(hands.values())


def rebuild(conn: psycopg.Connection, types: EventTypes = TYPES) -> int:
    """Empty `tables` and `hands` and replay every table stream, inside the caller's transaction."""
    conn.execute("TRUNCATE hands, tables")
    streams = [r[0] for r in conn.execute(
        "SELECT stream_id FROM streams WHERE stream_id LIKE 'table-%' ORDER BY stream_id")]
    for stream_id in streams:
        rows = conn.execute(f"SELECT {COLUMNS} FROM events WHERE stream_id = %s ORDER BY version",
                            (stream_id,)).fetchall()
        table, hands = _fold([stored_event(r, types) for r in rows])
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
