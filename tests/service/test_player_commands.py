"""The player commands run on their own: on a connection of the session's database, in a
transaction of the caller's, with no app and no HTTP in sight. Their refusals run on both units
of work, in tests/application/test_player_commands.py."""

from __future__ import annotations

import psycopg
import pytest

from events.postgres import PostgresEventStore
from service.application import players
from service.application.errors import NotFound
from service.application.players import Deposit, ErasePlayer, RegisterPlayer, Withdraw
from service.application.postgres_unit_of_work import PostgresUnitOfWork
from service.application.tokens import token_hash
from tests.service.command_db import joined, meta


def registered(conn: psycopg.Connection, store: PostgresEventStore, name: str = "Ada",
               deposit: int = 0) -> str:
    command = RegisterPlayer(name)
    with conn.transaction():
        players.register(joined(conn, store), command, meta("RegisterPlayer"))
        if deposit:
            players.deposit(PostgresUnitOfWork.joining(conn, store),
                            Deposit(command.player_id, deposit, "seed"), meta("Deposit"))
    return command.player_id


def written(conn: psycopg.Connection) -> tuple[int, list[tuple[str, int]]]:
    """How many events the log holds, and every balance."""
    [count] = conn.execute("SELECT count(*) FROM events").fetchone() or [0]
    return count, conn.execute("SELECT account, balance FROM balances ORDER BY account").fetchall()


def test_a_registration_then_a_deposit_and_a_withdrawal_move_treasure_as_the_api_does(conn, store):
    command = RegisterPlayer("Ada")
    with conn.transaction():
        issued = players.register(joined(conn, store), command, meta("RegisterPlayer"))
    player_id = command.player_id
    assert player_id.startswith("pl_") and issued["subject"] == player_id
    assert players.load(conn, player_id)["name"] == "Ada"
    # The token works as a bearer token would: its hash is stored, under his id, never itself.
    [(role, subject)] = conn.execute("SELECT role, subject FROM tokens WHERE token_hash = %s",
                                     (token_hash(issued["token"]),)).fetchall()
    assert (role, subject) == ("player", player_id)
    assert players.balance(conn, player_id)["balance"] == 0

    with conn.transaction():
        credited = players.deposit(PostgresUnitOfWork.joining(conn, store),
                                   Deposit(player_id, 100, "seed"), meta("Deposit"))
    assert (credited.data["from"], credited.data["to"]) == ("house:issued", f"wallet:{player_id}")
    with conn.transaction():
        paid = players.withdraw(PostgresUnitOfWork.joining(conn, store),
                                Withdraw(player_id, 30, "cash out"), meta("Withdraw"))
    assert (paid.data["from"], paid.data["to"]) == (f"wallet:{player_id}", "house:issued")
    assert paid.data["amount"] == 30 and paid.metadata["command"] == "Withdraw"
    assert players.balance(conn, player_id) == {
        "player_id": player_id, "account": f"wallet:{player_id}", "balance": 70,
        "as_of_position": paid.position}


def test_erasing_a_player_forgets_his_name_and_revokes_his_tokens_once(conn, store):
    player_id = registered(conn, store, name="Grace", deposit=20)
    with conn.transaction():
        assert players.erase(joined(conn, store), ErasePlayer(player_id), meta("ErasePlayer")) is True
    assert players.load(conn, player_id)["name"] is None
    assert players.load(conn, player_id)["erased"] is True
    assert conn.execute("SELECT count(*) FROM tokens WHERE subject = %s",
                        (player_id,)).fetchone() == (0,)
    assert players.balance(conn, player_id)["balance"] == 20
    before = written(conn)
    with conn.transaction():
        assert players.erase(joined(conn, store), ErasePlayer(player_id), meta("ErasePlayer")) is False
    assert written(conn) == before
    with pytest.raises(NotFound), conn.transaction():
        players.erase(joined(conn, store), ErasePlayer("pl_nobody"), meta("ErasePlayer"))
