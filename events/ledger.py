"""The double-entry treasure ledger: postings recorded as events, never overdrawing an account."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from events.model import ConcurrencyConflict, NewEvent, StoredEvent
from events.postgres import PostgresEventStore
from projections import apply_inline

HOUSE = "house:issued"  # where minted treasure comes from; the only account that may go negative


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


def lock_balances(conn: psycopg.Connection, accounts: Sequence[str]) -> dict[str, int]:
    """Lock the accounts' balance rows (creating missing ones) and return their balances.

    Rows are created and locked in sorted order so that two transfers in opposite directions
    queue instead of deadlocking, and so that positions drawn afterwards follow each account's
    lock order: replaying the log by position then gives the same running balances.

    One statement: an existing row's conflict updates it to itself, which takes its lock (waiting
    for a concurrent holder, then reading the balance it left, under READ COMMITTED) and returns
    it, as the `SELECT ... FOR UPDATE` after an `INSERT ... DO NOTHING` did in two round trips.
    """
    names = sorted(set(accounts))
    rows = conn.execute(
        "INSERT INTO balances AS b (account, balance, last_position)"
        " SELECT a, 0, 0 FROM unnest(%s::text[]) AS a ORDER BY a"
        " ON CONFLICT (account) DO UPDATE SET balance = b.balance"
        " RETURNING account, balance",
        (names,),
    ).fetchall()
    return dict(rows)


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
    """Append `extra` events then the transfers to `stream_id`, refusing any overdraft; `then`'s
    statements go with the projection's, in one round trip (psycopg's pipeline mode), and see
    its balances.

    Must run inside the caller's transaction: balances are checked under row locks before
    anything is appended, so a refused request writes nothing and draws no position.
    """
    accounts = [a for t in transfers for a in (t.from_account, t.to_account)]
    # Most game moves post nothing: they lock no balance, so skip those two round trips.
    held = lock_balances(conn, accounts) if accounts else {}
    for t in transfers:
        if t.from_account != HOUSE and held[t.from_account] < t.amount:
            if (expected_version is not None
                    and store.stream_version(stream_id, conn=conn) != expected_version):
                # The balance was moved by a writer that got there first: the caller lost the
                # race and decided on a state that is gone, so it is a conflict, not a shortfall.
                raise ConcurrencyConflict(stream_id, expected_version)
            raise InsufficientTreasure(t.from_account, held[t.from_account], t.amount)
        held[t.from_account] -= t.amount
        held[t.to_account] += t.amount
    events = [*extra, *(t.event(metadata) for t in transfers)]
    stored = store.append(stream_id, events, expected_version, conn=conn)
    if then is None:
        apply_inline(conn, stored)
        return stored
    with conn.pipeline():
        apply_inline(conn, stored)
        then(conn)
    return stored
