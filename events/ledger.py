"""The double-entry treasure ledger: postings recorded as events, never overdrawing an account."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import psycopg

from events.model import NewEvent

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
         transfers: Sequence[Transfer], prepare: bool | None = None) -> None:
    """Send the check that the transfers overdraw no account but the house's, which locks their
    balance rows (`banco_hold`, migration 013, says how and why): it fails the transaction with
    BC402 (a shortfall) or, when the stream has moved past `expected_version`, BC409 (a lost
    race). For a pipeline, before the append it guards (`prepare` as for
    `projections.tables.save_later`)."""
    conn.execute("SELECT banco_hold(%s, %s, %s, %s, %s)",
                 (stream_id, expected_version, [t.from_account for t in transfers],
                  [t.to_account for t in transfers], [t.amount for t in transfers]),
                 prepare=prepare)


def shortfall(e: psycopg.Error) -> InsufficientTreasure:
    """The overdraft `banco_hold` refused with BC402 (`SHORTFALL`)."""
    detail = orjson.loads(e.diag.message_detail or "{}")
    return InsufficientTreasure(detail["account"], detail["balance"], detail["amount"])
