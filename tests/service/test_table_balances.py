"""Seat balances shown with a table are read in the statement that loads or saves the table's row
(`projections.tables`), not by a query of their own: they must still be the ledger's, before and
after a move that posts treasure, for a player with no balance row as well."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from events import ledger
from projections import tables
from service.application import handlers
from service.application.postgres_unit_of_work import PostgresUnitOfWork
from tests.service.conftest import OPERATOR, Player


def held_by_ledger(app: Flask, table_id: str, players: list[Player]) -> dict[str, int]:
    """The seat balances as the ledger holds them, 0 where an account has no row yet."""
    with app.extensions["banco.pool"].connection() as conn:
        rows = dict(conn.execute("SELECT account, balance FROM balances WHERE account LIKE %s",
                                 (f"seat:{table_id}:%",)).fetchall())
    return {p.id: rows.get(f"seat:{table_id}:{p.id}", 0) for p in players}


def shown(body: dict[str, Any]) -> dict[str, int]:
    return {s["player_id"]: s["balance"] for s in body["seats"]}


def test_seat_balances_shown_with_a_table_are_the_ledgers(app: Flask, client: FlaskClient,
                                                          new_player: Any):
    players = [new_player(f"Bal{i}", deposit=50) for i in range(3)]
    table_id = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
    for i, (player, buy_in) in enumerate(zip(players, (7, 11, 13), strict=True)):
        r = client.post(f"/v1/tables/{table_id}/seats", json={"buy_in": buy_in}, headers=player.auth)
        assert r.status_code == 201, r.json
        # The join's response: balances read by the statement that saved the row.
        assert shown(r.json["table"]) == held_by_ledger(app, table_id, players[: i + 1])
    assert held_by_ledger(app, table_id, players) == {
        p.id: b for p, b in zip(players, (7, 11, 13), strict=True)}

    r = client.post(f"/v1/tables/{table_id}/hands", headers=players[0].auth)
    assert r.status_code == 201, r.json
    assert shown(r.json) == held_by_ledger(app, table_id, players)

    # A bet moves treasure from the seat to the hand's escrow: the bettor's response shows it.
    bettor, bet = None, None
    for player in players:
        view = client.get(f"/v1/tables/{table_id}", headers=player.auth).json
        offered = {a["type"]: a for a in view["legal_actions"]}
        if "bet" in offered:
            bettor, bet = player, offered["bet"]["amount"]["min"] + 1
            version = view["version"]
            break
    assert bettor is not None and bet is not None, "nobody was offered a bet"
    before = held_by_ledger(app, table_id, players)
    r = client.post(f"/v1/tables/{table_id}/actions", json={"type": "bet", "amount": bet},
                    headers={**bettor.auth, "If-Match": f'"{version}"'})
    assert r.status_code == 200, r.json
    after = held_by_ledger(app, table_id, players)
    assert after[bettor.id] == before[bettor.id] - bet
    assert shown(r.json) == after
    for player in players:  # the table as GET shows it: balances read with the row
        assert shown(client.get(f"/v1/tables/{table_id}", headers=player.auth).json) == after

    with app.extensions["banco.pool"].connection() as conn:
        table = tables.load(conn, table_id, balances=True)
        assert table is not None
        assert table.balances == after
        # Read apart from the row, as a table loaded without them or posted to since is.
        unread = tables.load(conn, table_id)
        assert unread is not None and unread.balances is None
        assert tables.seat_balances(conn, unread) == after
        # A posting makes the balances read with the row stale: they are read again after it.
        mover = players[2].id
        with conn.transaction(force_rollback=True):
            uow = PostgresUnitOfWork.joining(conn, app.extensions["banco.store"])
            handlers.record(uow, table, [], [
                ledger.Transfer(ledger.seat(table_id, mover), ledger.wallet(mover), 1, "test")],
                {"actor": "test"})
            assert uow.seat_balances(table) == {**after, mover: after[mover] - 1}
        table = tables.load(conn, table_id, balances=True)
        assert table is not None
        # A seat whose account has no row yet reads as 0, as the ledger query gives it.
        ghost = {"seat": 3, "player_id": "pl_nobody_here", "age": None, "seed": None}
        table.seats = [*table.seats, ghost]
        with conn.transaction(force_rollback=True):
            tables.save(conn, table)
            assert table.balances == {**after, "pl_nobody_here": 0}
