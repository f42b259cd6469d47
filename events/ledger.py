"""The double-entry treasure ledger: postings recorded as events, never overdrawing an account."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import psycopg

from events.model import NewEvent, StoredEvent
from events.postgres import PostgresEventStore
from projections import apply_inline, balances

HOUSE = "house:issued"  # where minted treasure comes from; the only account that may go negative
SHORTFALL = "BC402"  # banco_hold's refusal of an overdraft (migration 013)


class InsufficientTreasure(Exception):
    """A posting would make an account other than the house's negative (HTTP 422)."""

    def __init__(self, account: str, balance: int, amount: int) -> None:
        super().__init__(f"account {account} holds {balance}, cannot pay {amount}")
        self.account = account
        self.balance = balance
        self.amount = amount


@dataclass(frozen=True)
class Transfer:
    """A positive integer amount moving from one account to another."""

    from_account: str
    to_account: str
    amount: int
    reason: str
    table: str | None = None
    hand: str | None = None

    def event(self, metadata: dict[str, Any]) -> NewEvent:
        return NewEvent(
            "TreasurePosted",
            {
                "from": self.from_account,
                "to": self.to_account,
                "amount": self.amount,
                "reason": self.reason,
                "table": self.table,
                "hand": self.hand,
            },
            metadata,
        )


def wallet(player_id: str) -> str:
    return f"wallet:{player_id}"


def seat(table_id: str, player_id: str) -> str:
    """The account of a player's seat at a table: what he brought to it, less what he bet."""
    return f"seat:{table_id}:{player_id}"


def hold(conn: psycopg.Connection, stream_id: str, expected_version: int | None,
         transfers: Sequence[Transfer]) -> None:
    """Send the check that the transfers overdraw no account but the house's, which locks their
    balance rows (`banco_hold`, migration 013, says how and why): it fails the transaction with
    BC402 (a shortfall) or, when the stream has moved past `expected_version`, BC409 (a lost
    race). For the first statement of a pipeline whose append it guards."""
    conn.execute("SELECT banco_hold(%s, %s, %s, %s, %s)",
                 (stream_id, expected_version, [t.from_account for t in transfers],
                  [t.to_account for t in transfers], [t.amount for t in transfers]))


def _shortfall(e: psycopg.Error) -> InsufficientTreasure:
    detail = orjson.loads(e.diag.message_detail or "{}")
    return InsufficientTreasure(detail["account"], detail["balance"], detail["amount"])


def post(
    conn: psycopg.Connection,
    store: PostgresEventStore,
    stream_id: str,
    transfers: Sequence[Transfer],
    metadata: dict[str, Any],
    expected_version: int | None = None,
    extra: Sequence[NewEvent] = (),
    then: Callable[[psycopg.Connection], None] | None = None,
) -> list[StoredEvent]:
    """Append `extra` events then the transfers to `stream_id`, refusing any overdraft
    (InsufficientTreasure) and a lost race (ConcurrencyConflict); `then`'s statements go with
    the projection's and see its balances.

    Must run inside the caller's transaction. At a known version it is one round trip (psycopg's
    pipeline mode): the balance check, the append, the balances' projection and `then`, in this
    order. The check fails the transaction before the append is run, so a refused request writes
    nothing and draws no position. Without a version the projection needs the positions the
    append returns: a second round trip.
    """
    events = [*extra, *(t.event(metadata) for t in transfers)]
    if not transfers:
        # Most game moves post nothing: no balance to check or lock.
        stored = store.append(stream_id, events, expected_version, conn=conn)
        _project(conn, stored, then)
        return stored
    first = None if expected_version is None else expected_version + 1

    def project(c: psycopg.Connection) -> None:
        if first is None:
            return
        # Unprepared: it follows the check, which may fail (`projections.tables.save_later`).
        balances.apply_appended(c, stream_id, list(enumerate(events, first)), prepare=False)
        if then is not None:
            then(c)

    try:
        stored = store.append_then(stream_id, events, expected_version, conn, project,
                                   before=lambda c: hold(c, stream_id, expected_version, transfers))
    except psycopg.Error as e:
        if e.sqlstate == SHORTFALL:
            raise _shortfall(e) from e
        raise
    if first is None:
        _project(conn, stored, then)
    else:
        apply_inline(conn, stored, balances_applied=True)
    return stored


def _project(conn: psycopg.Connection, stored: Sequence[StoredEvent],
             then: Callable[[psycopg.Connection], None] | None) -> None:
    if then is None:
        apply_inline(conn, stored)
        return
    with conn.pipeline():
        apply_inline(conn, stored)
        then(conn)
