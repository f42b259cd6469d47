"""A table's recorded history cut into hands, with what each hand's deal was given.

Everything here is read from the event log alone (never from projections): the options and the
rules version from `TableCreated`, the line-up from `HandBegan`, the seat balances from the
postings before the deal, and the engine state the previous hand ended in (what `start` receives
as `previous`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import psycopg

from events.catalog import GAME_EVENT_PREFIX, TYPES
from events.game_records import engine_event
from events.model import StoredEvent
from events.postgres import COLUMNS, stored_event
from events.types import EventTypes
from games import registry
from games.contract import Engine


def table_stream(table_id: str) -> str:
    """The stream a table's events are appended to."""
    return f"table-{table_id}"


def read_stream(conn: psycopg.Connection, stream_id: str,
                types: EventTypes = TYPES) -> list[StoredEvent]:
    """A stream's events in their types' current schema versions (the chain check hashes what
    was stored: `StoredEvent.canonical`)."""
    rows = conn.execute(f"SELECT {COLUMNS} FROM events WHERE stream_id = %s ORDER BY version",
                        (stream_id,)).fetchall()
    return [stored_event(r, types) for r in rows]


def is_game(event: StoredEvent) -> bool:
    """Whether the event is an engine's (`game.<Type>`)."""
    return event.type.startswith(GAME_EVENT_PREFIX)


@dataclass
class HandLog:
    """One hand's events, from `HandBegan` to the settlement's last posting."""

    hand_id: str
    table_id: str
    game: str
    options: dict[str, Any]
    began: StoredEvent
    previous: Any
    seat_balances: dict[str, int]
    events: list[StoredEvent] = field(default_factory=list)
    rules_version: int = 1
    # When the table ended after this hand, before another was dealt: the events from the
    # hand's last to the table's end (who left, what the game gave back, `TableEnded`).
    ending: list[StoredEvent] | None = None

    @property
    def engine(self) -> Engine:
        """The rules engine of the hand's game, at the version its table was created with."""
        return registry.engine(self.game, self.rules_version)

    @property
    def seats(self) -> list[dict[str, Any]]:
        """The hand's line-up as `HandBegan` recorded it."""
        return list(self.began.data["seats"])

    def find(self, type_: str) -> StoredEvent | None:
        """The hand's first event of `type_`."""
        return next((e for e in self.events if e.type == type_), None)

    def game_events(self) -> list[StoredEvent]:
        """The engine's events of the hand, in order."""
        return [e for e in self.events if is_game(e)]

    def opening(self) -> StoredEvent | None:
        """The engine's first event of the hand: it holds the seeds and the deck order."""
        return next(iter(self.game_events()), None)

    def server_seed(self) -> str | None:
        """The revealed seed, or (before the reveal) the one the opening event recorded."""
        revealed = self.find("SeedRevealed")
        if revealed is not None:
            return str(revealed.data.get("server_seed"))
        opening = self.opening()
        return None if opening is None else opening.data["data"].get("server_seed")


@dataclass
class TableLog:
    """A table's whole stream and the game it plays."""

    table_id: str
    game: str
    options: dict[str, Any]
    events: list[StoredEvent]
    rules_version: int = 1

    def hands(self) -> Iterator[HandLog]:
        """Every hand in order; a hand's `previous` is the state the one before ended in, and
        the last one's `ending` the table's end when it followed."""
        hands = list(self._cut())
        if hands:
            last = hands[-1].events[-1].version
            after = [e for e in self.events if e.version > last]
            if any(e.type == "TableEnded" for e in after):
                hands[-1].ending = after
        return iter(hands)

    def _cut(self) -> Iterator[HandLog]:
        try:
            engine: Engine | None = registry.engine(self.game, self.rules_version)
        except registry.RulesNotServed:
            engine = None  # the hands are still cut out; the rules check says why none is decided
        held: dict[str, int] = defaultdict(int)
        lineup: list[str] = []  # the seated players, by seat
        state: Any = None
        current: HandLog | None = None
        revealed = False
        for e in self.events:
            if current is not None and revealed and not (
                    e.type == "TreasurePosted" and e.data.get("hand") == current.hand_id):
                yield current
                current = None
            if e.type == "HandBegan":
                if current is not None:
                    yield current
                balances = {s["player_id"]: held[f"seat:{self.table_id}:{s['player_id']}"]
                            for s in e.data["seats"]}
                current = HandLog(e.data["hand_id"], self.table_id, self.game, self.options, e,
                                  state, balances, rules_version=self.rules_version)
                revealed = False
                state = None if engine is None else engine.initial_state(self.options)
            elif e.type == "PlayerSeated":
                lineup.append(e.data["player_id"])
            elif e.type == "PlayerLeft":
                # As `projections.tables.unseat`: the last hand's state carried, its seats
                # renumbered, when the leave says so, else the next hand starts afresh.
                kept = [p for p in lineup if p != e.data["player_id"]]
                state = None if state is None or engine is None or not e.data.get("carried") \
                    else engine.reseated(state, {lineup.index(p): i for i, p in enumerate(kept)})
                lineup = kept
            elif is_game(e) and engine is not None and state is not None:
                try:
                    state = engine.evolve(state, engine_event(e))
                except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                    # A corrupt event: the rules check names it; later hands start afresh.
                    state = None
            if e.type == "TreasurePosted":
                held[e.data["from"]] -= int(e.data["amount"])
                held[e.data["to"]] += int(e.data["amount"])
            if current is not None:
                current.events.append(e)
                revealed = revealed or e.type == "SeedRevealed"
        if current is not None:
            yield current


def load_table(conn: psycopg.Connection, table_id: str,
               types: EventTypes = TYPES) -> TableLog | None:
    """The table's log, or None when no such table was ever created."""
    events = read_stream(conn, table_stream(table_id), types)
    if not events or events[0].type != "TableCreated":
        return None
    created = events[0].data
    # Tables created before rules had versions play version 1, the only one there was.
    return TableLog(table_id, str(created["game"]), dict(created["options"]), events,
                    int(created.get("rules_version") or 1))


def table_of_hand(conn: psycopg.Connection, hand_id: str) -> str | None:
    """The table a hand was dealt at, from its `HandBegan` event."""
    row = conn.execute("SELECT stream_id FROM events WHERE type = 'HandBegan'"
                       " AND data->>'hand_id' = %s LIMIT 1", (hand_id,)).fetchone()
    return None if row is None else str(row[0])[len("table-"):]


def load_hand(conn: psycopg.Connection, hand_id: str, types: EventTypes = TYPES) -> HandLog | None:
    """One hand's log, or None when it was never dealt."""
    table_id = table_of_hand(conn, hand_id)
    table = None if table_id is None else load_table(conn, table_id, types)
    if table is None:
        return None
    return next((h for h in table.hands() if h.hand_id == hand_id), None)
