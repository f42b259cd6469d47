"""Deposits and withdrawals on both units of work (tests/application/conftest.py): the treasure
they move, and their refusals, which write nothing."""

from __future__ import annotations

import secrets

import pytest

from events import ledger
from events.model import NewEvent
from service.application import players
from service.application.errors import Invalid, NotFound
from service.application.players import Deposit, Withdraw
from service.http.app import REFUSED_STATUS
from tests.application.conftest import Work

META = {"actor": "operator:operator", "command": "test"}


def registered(work: Work) -> str:
    """A player, as his registration's event records him (its sealed name aside: the twin keeps
    no keys; registration itself is PostgreSQL's, tests/service/test_player_commands.py)."""
    player_id = "pl_" + secrets.token_hex(8)
    with work() as uow:
        uow.append(players.stream(player_id), [NewEvent(
            "PlayerRegistered", {"player_id": player_id, "name_enc": "sealed"}, META)], 0)
    return player_id


def test_a_deposit_then_a_withdrawal_move_treasure_between_the_house_and_the_wallet(work: Work):
    player_id = registered(work)
    with work() as uow:
        house = uow.balance(ledger.HOUSE)
        credited = players.deposit(uow, Deposit(player_id, 100, "seed"), META)
    assert (credited.data["from"], credited.data["to"]) == (ledger.HOUSE, ledger.wallet(player_id))
    with work() as uow:
        paid = players.withdraw(uow, Withdraw(player_id, 30, "cash out"), META)
    assert paid.data["amount"] == 30 and paid.stream_id == players.stream(player_id)
    with work() as uow:
        assert uow.balance(ledger.wallet(player_id)) == 70
        assert uow.balance(ledger.HOUSE) == house - 70
        logged = uow.read_stream(players.stream(player_id), 0, 10)
    assert [e.type for e in logged] == ["PlayerRegistered", "TreasurePosted", "TreasurePosted"]


def test_a_withdrawal_over_the_balance_is_refused_and_writes_nothing(work: Work):
    player_id = registered(work)
    with work() as uow:
        players.deposit(uow, Deposit(player_id, 10, "seed"), META)
    with pytest.raises(Invalid) as refused, work() as uow:
        players.withdraw(uow, Withdraw(player_id, 11, "too much"), META)
    assert refused.value.code == "insufficient_treasure" and refused.value.extra == {"balance": 10}
    assert REFUSED_STATUS[type(refused.value)] == 422  # as the API refuses it
    with work() as uow:
        assert uow.balance(ledger.wallet(player_id)) == 10
        assert len(uow.read_stream(players.stream(player_id), 0, 10)) == 2


def test_a_deposit_to_no_player_is_refused_and_writes_nothing(work: Work):
    with pytest.raises(NotFound) as refused, work() as uow:
        players.deposit(uow, Deposit("pl_nobody", 5, "seed"), META)
    assert refused.value.code == "player_not_found"
    with work() as uow:
        assert uow.read_stream(players.stream("pl_nobody"), 0, 10) == []
        assert uow.balance(ledger.wallet("pl_nobody")) == 0
