"""How a table's events make its row: one fold, for the commands that write the row as they
append (service/application/handlers.py) and for the rebuild that replays the log
(projections/table_rebuild.py), so that both store the same snapshot, byte for byte (tested).

The commands call its steps on the events they append; `fold` runs them over a whole stream.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import psycopg

from events.catalog import GAME_EVENT_PREFIX, TYPES
from events.game_records import engine_event
from events.model import StoredEvent
from events.postgres import COLUMNS, stored_event
from games import registry
from games.contract import Engine, Event
from projections import snapshots, tables
from projections.tables import TableRow, turn_of


def begin_hand(table: TableRow, engine: Engine, hand_id: str, number: int) -> None:
    """`HandBegan`: the hand's number, and the engine's state before its first event."""
    table.hand_id, table.hand_number, table.status = hand_id, number, "playing"
    table.state = engine.initial_state(table.options)


def play(table: TableRow, engine: Engine, events: Iterable[Event]) -> None:
    """The engine's events, evolving the snapshot; a hand in play that they end settles next
    (between hands the table stays open: its events change the state the next deal reads)."""
    for event in events:
        table.state = engine.evolve(table.state, event)
        if table.status == "playing" and engine.is_terminal(table.state):
            table.status = "settling"


def turn(table: TableRow, engine: Engine, deadline: float | None) -> None:
    """Whose turn the row shows once its events are in, with the `deadline` of the last
    `DeadlineSet` when a hand is in play."""
    live = table.state is not None and table.status in ("playing", "settling")
    table.turn = turn_of(engine, table.state) if live else None
    table.deadline = None
    if table.status == "playing" and table.turn is not None and deadline is not None:
        table.deadline = datetime.fromtimestamp(deadline, UTC)
        table.turn = {**table.turn, "deadline": table.deadline.isoformat()}


def fold(events: list[StoredEvent]) -> tuple[TableRow, list[dict[str, Any]]]:
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
            table.seats = [*table.seats, {**{k: d[k] for k in ("seat", "player_id", "age", "seed")},
                                          "chair": tables.free_chair(table.seats)}]
        elif e.type == "PlayerLeft":
            tables.unseat(table, d["player_id"], bool(d.get("carried")))
        elif e.type == "HandBegan":
            begin_hand(table, engine, d["hand_id"], d["number"])
            hands[d["hand_id"]] = {"hand_id": d["hand_id"], "number": d["number"], "seats": d["seats"],
                                   "commitment": d["commitment"], "first_version": e.version,
                                   "opened_at": e.recorded_at, "status": "playing"}
        elif e.type.startswith(GAME_EVENT_PREFIX):
            playing = table.status == "playing"
            play(table, engine, [engine_event(e)])
            if playing and table.status == "settling":
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
    turn(table, engine, deadline)
    return table, list(hands.values())


def resnapshot(conn: psycopg.Connection) -> int:
    """Store every table's snapshot anew, folded from its events, in the caller's transaction:
    the migration to a snapshot format or state shape that the stored ones are not in (they
    are never read, so nothing of an older format's reading is kept, pickle's included).
    Returns how many were stored."""
    ids = [r[0] for r in conn.execute("SELECT table_id FROM tables WHERE state IS NOT NULL"
                                      " ORDER BY table_id")]
    for table_id in ids:
        rows = conn.execute(f"SELECT {COLUMNS} FROM events WHERE stream_id = %s ORDER BY version",
                            (f"table-{table_id}",)).fetchall()
        table, _ = fold([stored_event(r, TYPES) for r in rows])
        state = None if table.state is None else snapshots.encode(table.state)
        conn.execute("UPDATE tables SET state = %s WHERE table_id = %s", (state, table_id))
    return len(ids)
