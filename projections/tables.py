"""The table-state projection: a row per table with a snapshot of the hand in play, and hands."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec
import psycopg
from psycopg.types.json import Jsonb

from events import ledger
from games import frozen, registry
from games.contract import Engine
from projections import snapshots

COLUMNS = ("table_id, game, options, status, version, seats, hand_id, hand_number, state, turn,"
           " created_by, created_at, deadline, rules_version")


@dataclass
class TableRow:
    """A table as the projection holds it; `state` is the engine state of the current hand."""

    table_id: str
    game: str
    options: dict[str, Any]
    status: str
    version: int
    seats: list[dict[str, Any]] = field(default_factory=list)
    hand_id: str | None = None
    hand_number: int = 0
    state: Any = None
    turn: dict[str, Any] | None = None
    created_by: str = ""
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    deadline: datetime | None = None
    # The game's rules version the table plays, for its whole life (recorded in TableCreated).
    rules_version: int = 1
    # The seats' balances by player, as the statement that loaded or saved the row read them
    # (None when it did not, or when a posting came since): a render needs them, and this spares
    # it a round trip of its own. Read them through `seat_balances`.
    balances: dict[str, int] | None = field(default=None, compare=False)
    # The seated players' names by player (None for an erased one), read with the balances: a
    # seat shows its player by name, and other players may not read him through /v1/players.
    names: dict[str, str | None] | None = field(default=None, compare=False)
    # The transaction that last wrote the row, when this process wrote it (else None): its
    # notice names it (`save`), so the process knows when that write has committed.
    txid: int | None = field(default=None, compare=False)

    def seat_of(self, player_id: str) -> int | None:
        return next((s["seat"] for s in self.seats if s["player_id"] == player_id), None)

    def player_at(self, seat: int) -> str:
        return next(s["player_id"] for s in self.seats if s["seat"] == seat)


def turn_of(engine: Engine, state: Any) -> dict[str, Any] | None:
    """Whose turn it is, as the projection stores it."""
    turn = engine.turn(state)
    return None if turn is None else {"seat": turn.seat, "waiting_for": turn.waiting_for,
                                      "role": turn.role}


def unseat(table: TableRow, player_id: str, carried: bool = False) -> None:
    """Seats stay numbered 0..n-1 in joining order (the engines index them so). The last
    hand's state keeps only what its game carries across a changed line-up (the bank's
    succession, the table's clock: `Engine.reseated`), its seats renumbered, when `carried`
    (as the leave's event records); else the next hand starts afresh. Each keeps its chair."""
    kept = [s for s in table.seats if s["player_id"] != player_id]
    if table.state is not None and not carried:
        table.state = None
    elif table.state is not None:
        engine = registry.engine(table.game, table.rules_version)
        table.state = engine.reseated(table.state, {s["seat"]: i for i, s in enumerate(kept)})
    table.seats = [{**s, "seat": i} for i, s in enumerate(kept)]


def chair_of(seat: dict[str, Any]) -> int:
    """The seat's chair: the label people know it by, kept while its player sits, whoever
    leaves (a row written before chairs were kept has its seat number)."""
    return int(seat.get("chair", seat["seat"]))


def free_chair(seats: Sequence[dict[str, Any]]) -> int:
    """The chair a newcomer takes: the lowest nobody sits in. Computed from the line-up alone,
    so the projection and a rebuild from the events agree without the events naming it."""
    taken = {chair_of(s) for s in seats}
    return next(c for c in range(len(seats) + 1) if c not in taken)


def seat_record(seat: dict[str, Any]) -> dict[str, Any]:
    """A seat as the events record it (HandBegan's line-up): the chair is the projection's."""
    return {k: seat[k] for k in ("seat", "player_id", "age", "seed")}


# The balances of a table row's seats, as an expression over the row `t`: the seat accounts are
# `seat:<table>:<player>` (`events.ledger.seat`). Read in the statement that reads or writes the
# row, so a render has the table and its balances from one snapshot, in one trip.
def _seat_balances(t: str) -> str:
    return ("((SELECT coalesce(jsonb_object_agg(b.account, b.balance), '{}'::jsonb)"
            " FROM balances AS b WHERE b.account = ANY(ARRAY("
            f"SELECT 'seat:' || {t}.table_id || ':' || (s->>'player_id')"
            f" FROM jsonb_array_elements({t}.seats) AS s)))"
            # and the players' names, under `name:<player>` (null once erased)
            " || (SELECT coalesce(jsonb_object_agg('name:' || p.player_id, p.name), '{}'::jsonb)"
            " FROM players AS p WHERE p.player_id = ANY(ARRAY("
            f"SELECT s->>'player_id' FROM jsonb_array_elements({t}.seats) AS s))))")


def _by_player(table: TableRow, held: dict[str, Any]) -> dict[str, int]:
    table.names = {s["player_id"]: held.get("name:" + s["player_id"]) for s in table.seats}
    return {s["player_id"]: held.get(ledger.seat(table.table_id, s["player_id"]), 0)
            for s in table.seats}


def seat_balances(conn: psycopg.Connection, table: TableRow) -> dict[str, int]:
    """The seats' balances by player: as read with the row, unless a posting came since (see
    `service.application.handlers.record`), else read now."""
    if table.balances is None:
        row = conn.execute(f"SELECT {_seat_balances('t')} FROM (SELECT %s::text AS table_id,"
                           " %s::jsonb AS seats) AS t", (table.table_id, Jsonb(table.seats))).fetchone()
        assert row is not None
        table.balances = _by_player(table, row[0])
    return table.balances


def load(conn: psycopg.Connection, table_id: str, balances: bool = False,
         state_type: type[Any] | None = None) -> TableRow | None:
    """The table's row, and with `balances` its seats' balances (`state_type`: as for `loaded`).

    Never locked before an append: writers take the table stream's lock (in `banco_append`)
    first and update this row after, always in that order, so they cannot deadlock.
    """
    return loaded(load_later(conn, table_id, balances), balances, state_type)


def load_later(conn: psycopg.Connection, table_id: str, balances: bool = False) -> psycopg.Cursor:
    """Send `load`'s statement; `loaded` reads its answer (after the pipeline it went in)."""
    extra = f", {_seat_balances('t')}" if balances else ""
    return conn.execute(f"SELECT {COLUMNS}{extra} FROM tables AS t WHERE t.table_id = %s",
                        (table_id,))


def loaded(cursor: psycopg.Cursor, balances: bool = False,
           state_type: type[Any] | None = None) -> TableRow | None:
    """The table `load_later` read, if there is one; its snapshot is decoded into the states of
    its engine, or of `state_type` for a table of no game served (the benchmarks')."""
    row = cursor.fetchone()
    if row is None:
        return None
    values = list(row[:14])
    table = TableRow(*values)
    if table.state is not None:
        table.state = snapshots.decode(state_type or _state_type(table), table.state)
    if balances:
        table.balances = _by_player(table, row[14])
    return table


def _state_type(table: TableRow) -> type[Any]:
    return registry.engine(table.game, table.rules_version).state_type


_NULL = b"null"


class _Passed(msgspec.Struct):
    """A table as one process hands it to another: the row, and its snapshot as stored (JSON
    `null` for none: a `Raw` is not optional)."""

    row: TableRow
    state: msgspec.Raw


def passed(table: TableRow) -> bytes:
    """The table as `received` reads it back in another process: its balances and the
    transaction that wrote it included."""
    # The state as its row's save just encoded it (`snapshots.encode` keeps the last).
    state = _NULL if table.state is None else snapshots.encode(table.state)
    return msgspec.json.encode(_Passed(frozen.replace(table, state=None), msgspec.Raw(state)))


def received(data: bytes) -> TableRow:
    """The table `passed` wrote."""
    found = msgspec.json.decode(data, type=_Passed)
    table, state = found.row, bytes(found.state)
    if state != _NULL:
        table.state = snapshots.decode(_state_type(table), state)
    return table


def versions(conn: psycopg.Connection, table_ids: Sequence[str]) -> dict[str, int]:
    """The current version of each of `table_ids` that exists."""
    rows = conn.execute("SELECT table_id, version FROM tables WHERE table_id = ANY(%s)",
                        (list(table_ids),)).fetchall()
    return {table_id: version for table_id, version in rows}


# Every change of a table's row is notified on this channel to the streams that follow it
# (service/application/notify.py) as `<table> <version> <seat whose turn it is, or -> <status> <actor, or ->
# <transaction id>`.
# NOTIFY is delivered when the writing transaction commits, and never if it rolls back.
CHANNEL = "banco_tables"


def save(conn: psycopg.Connection, table: TableRow, actor: str | None = None) -> None:
    """Insert or update the table's row, and notify `CHANNEL` of the change (in one statement),
    naming the `actor` whose command made it. The same statement reads the seats' balances into
    `table.balances`: every posting of the command is in them by then."""
    saved(table, save_later(conn, table, actor))


def save_later(conn: psycopg.Connection, table: TableRow, actor: str | None = None,
               prepare: bool | None = None) -> psycopg.Cursor:
    """Send `save`'s statement; `saved` reads its answer (after the pipeline it went in).

    `prepare=False` in a pipeline after a statement that may fail, unless the pipeline's failure
    is rolled back by psycopg (`service.application.postgres_unit_of_work` says why)."""
    state = snapshots.encode(table.state) if table.state is not None else None
    # The notice ends with the writing transaction's id: a process that holds the table it
    # wrote knows by it that the notice is of its own commit (service/streaming/feeds.py).
    return conn.execute(
        "WITH saved AS ("
        "INSERT INTO tables (table_id, game, options, status, version, seats, hand_id, hand_number,"
        " state, turn, created_by, created_at, deadline, rules_version, updated_at)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now())"
        " ON CONFLICT (table_id) DO UPDATE SET status = EXCLUDED.status,"
        " version = EXCLUDED.version, seats = EXCLUDED.seats, hand_id = EXCLUDED.hand_id,"
        " hand_number = EXCLUDED.hand_number, state = EXCLUDED.state, turn = EXCLUDED.turn,"
        " deadline = EXCLUDED.deadline, updated_at = now()"
        " RETURNING table_id, version, turn->>'seat' AS seat, status, seats)"
        f" SELECT pg_notify('{CHANNEL}', concat_ws(' ', table_id, version, coalesce(seat, '-'),"
        f" status, coalesce(%s, '-'), pg_current_xact_id())), {_seat_balances('saved')}"
        " FROM saved",
        (table.table_id, table.game, Jsonb(table.options), table.status, table.version,
         Jsonb(table.seats), table.hand_id, table.hand_number, state,
         Jsonb(table.turn) if table.turn is not None else None, table.created_by, table.created_at,
         table.deadline, table.rules_version, actor),
        prepare=prepare,
    )


def saved(table: TableRow, cursor: psycopg.Cursor) -> None:
    """Read the seats' balances `save_later` returned into `table.balances`."""
    row = cursor.fetchone()
    assert row is not None  # an upsert always returns its row
    table.balances = _by_player(table, row[1])


Statement = tuple[str, tuple[Any, ...]]


def hand_began_statement(table: TableRow, commitment: str, first_version: int,
                         at: datetime) -> Statement:
    """The hand row of the hand `table` just opened."""
    return (
        "INSERT INTO hands (hand_id, table_id, number, status, seats, commitment, first_version,"
        " opened_at) VALUES (%s, %s, %s, 'playing', %s, %s, %s, %s)",
        (table.hand_id, table.table_id, table.hand_number,
         Jsonb([seat_record(s) for s in table.seats]), commitment, first_version, at),
    )


def hand_status_statement(hand_id: str, status: str, last_version: int | None = None,
                          postings: list[dict[str, Any]] | None = None,
                          at: datetime | None = None) -> Statement:
    """The hand's new status, and what it comes with."""
    return (
        "UPDATE hands SET status = %s, last_version = coalesce(%s, last_version),"
        " postings = coalesce(%s, postings), settled_at = coalesce(%s, settled_at)"
        " WHERE hand_id = %s",
        (status, last_version, Jsonb(postings) if postings is not None else None, at, hand_id),
    )


HAND_COLUMNS = ("hand_id", "table_id", "number", "status", "seats", "commitment", "first_version",
                "last_version", "postings", "opened_at", "settled_at", "rules_version")
# A hand plays the rules version of its table: read with the hand, from the table's row.
_HANDS = ("SELECT " + ", ".join(f"h.{c}" for c in HAND_COLUMNS[:-1]) + ", t.rules_version"
          " FROM hands AS h JOIN tables AS t ON t.table_id = h.table_id")


def hand(conn: psycopg.Connection, hand_id: str) -> dict[str, Any] | None:
    row = conn.execute(f"{_HANDS} WHERE h.hand_id = %s", (hand_id,)).fetchone()
    return dict(zip(HAND_COLUMNS, row, strict=True)) if row else None


def hands_of(conn: psycopg.Connection, table_id: str, after: int, limit: int) -> list[dict[str, Any]]:
    rows = conn.execute(
        f"{_HANDS} WHERE h.table_id = %s AND h.number > %s"
        " ORDER BY h.number LIMIT %s", (table_id, after, limit)).fetchall()
    return [dict(zip(HAND_COLUMNS, r, strict=True)) for r in rows]
