"""Player commands: register a player, credit and debit his wallet, erase his personal data.

Each command is data; its handler appends to the player's stream (`player-<id>`) with its
projections, inside the caller's transaction, and returns what the caller renders. Each runs on a unit
of work (`service.application.unit_of_work`), either of them: the keys that seal personal data
and the tokens' hashes are its credentials (`service.application.credentials`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import psycopg

from events import ledger, personal_data
from events.model import NewEvent, StoredEvent
from projections import players as player_rows
from service.application import tokens
from service.application.errors import Conflict, Invalid, NotFound
from service.application.unit_of_work import UnitOfWork


def stream(player_id: str) -> str:
    """His stream: registration, token changes, erasure and his wallet's deposits and payouts."""
    return tokens.stream("player", player_id)


def new_player_id() -> str:
    return "pl_" + secrets.token_hex(8)


@dataclass(frozen=True)
class RegisterPlayer:
    name: str
    # Drawn where the command is made, so that a caller knows the id before it runs.
    player_id: str = field(default_factory=new_player_id)


@dataclass(frozen=True)
class Deposit:
    """Newly issued treasure into the player's wallet."""

    player_id: str
    amount: int
    reason: str


@dataclass(frozen=True)
class Withdraw:
    """Treasure paid out of the player's wallet; refused beyond what it holds."""

    player_id: str
    amount: int
    reason: str


@dataclass(frozen=True)
class Erasing:
    """Told to the process's subscribers (`bus.Bus`) when an erasure is written and about to
    commit: the API keeps it in the erasure journal (`service.application.erasure_journal`),
    where a restore of the database to an earlier point does not take it back."""

    player_id: str
    actor: str


@dataclass(frozen=True)
class ErasePlayer:
    player_id: str


def find(conn: psycopg.Connection, player_id: str) -> dict[str, Any] | None:
    """The player's row as the API shows it, or None."""
    return player_rows.find(conn, player_id)


def load(conn: psycopg.Connection, player_id: str) -> dict[str, Any]:
    """The player (NotFound when there is none)."""
    player = find(conn, player_id)
    if player is None:
        raise NotFound("player_not_found", f"no player {player_id}")
    return player


def balance(conn: psycopg.Connection, player_id: str) -> dict[str, Any]:
    """His wallet's balance and the position it was last changed at (0 and 0 before any)."""
    account = ledger.wallet(player_id)
    row = conn.execute(
        "SELECT balance, last_position FROM balances WHERE account = %s", (account,)
    ).fetchone()
    held, position = row if row else (0, 0)
    return {"player_id": player_id, "account": account, "balance": held, "as_of_position": position}


def register(uow: UnitOfWork, command: RegisterPlayer,
             metadata: dict[str, Any]) -> dict[str, Any]:
    """Register the player with his name sealed under a key of his own, and issue his first token;
    the token issued (shown once)."""
    player_id = command.player_id
    key = uow.credentials.new_key(player_id)
    sealed = personal_data.seal(key, player_id, "name", command.name)
    event = NewEvent("PlayerRegistered", {"player_id": player_id, "name_enc": sealed}, metadata)
    issued, token_event = tokens.issue(uow, "player", player_id, metadata)
    uow.append(stream(player_id), [event, token_event], 0)
    uow.flush()
    return issued


def deposit(uow: UnitOfWork, command: Deposit, metadata: dict[str, Any]) -> StoredEvent:
    """The posting that credits his wallet from the house (Conflict `player_erased` once he
    was erased: no token can spend it any more; a withdrawal may still empty the wallet)."""
    player = uow.player(command.player_id)
    if player is not None and player["erased"]:
        raise Conflict("player_erased", f"{command.player_id} was erased: his wallet takes no"
                       " deposits (a withdrawal may still pay out what it holds)")
    return _transfer(uow, command.player_id, ledger.HOUSE, ledger.wallet(command.player_id),
                     command.amount, command.reason, metadata)


def withdraw(uow: UnitOfWork, command: Withdraw, metadata: dict[str, Any]) -> StoredEvent:
    """The posting that pays out of his wallet to the house (Invalid `insufficient_treasure`
    when it holds less, and nothing written)."""
    return _transfer(uow, command.player_id, ledger.wallet(command.player_id), ledger.HOUSE,
                     command.amount, command.reason, metadata)


def _transfer(uow: UnitOfWork, player_id: str, source: str, target: str, amount: int,
              reason: str, metadata: dict[str, Any]) -> StoredEvent:
    if uow.player(player_id) is None:
        raise NotFound("player_not_found", f"no player {player_id}")
    posted = ledger.Transfer(source, target, amount, reason).event(metadata)
    uow.append(stream(player_id), [posted], None)
    try:
        [event] = uow.flush()
    except ledger.InsufficientTreasure as e:
        raise Invalid("insufficient_treasure", str(e), balance=e.balance) from e
    return event


def erase(uow: UnitOfWork, command: ErasePlayer, metadata: dict[str, Any]) -> bool:
    """Destroy his key, revoke his tokens and record `PlayerErased`; False, with nothing changed,
    when he was erased already (NotFound when there is no such player)."""
    player_id = command.player_id
    if uow.credentials.lock_subject("player", player_id):
        return False
    uow.credentials.shred(player_id)
    erased = NewEvent("PlayerErased", {"player_id": player_id, "actor": metadata["actor"]},
                      metadata)
    revoked = tokens.revoke_all(uow, "player", player_id, metadata)
    uow.append(stream(player_id), [*revoked, erased], None)
    uow.flush()
    uow.publish(Erasing(player_id, metadata["actor"]))
    return True
