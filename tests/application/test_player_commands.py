"""Deposits and withdrawals on both units of work (tests/application/conftest.py): the treasure
they move, and their refusals, which write nothing."""

from __future__ import annotations

import pytest

from events import ledger
from service.application import players
from service.application.bus import handle
from service.application.errors import Invalid, NotFound
from service.application.players import Deposit, RegisterPlayer, Withdraw
from service.http.app import REFUSED_STATUS
from tests.application.conftest import Work

META = {"actor": "operator:operator", "command": "test"}


def registered(work: Work) -> str:
    """A player, registered."""
    command = RegisterPlayer("Ada")
    with work() as uow:
        handle(command, uow, META)
    return command.player_id


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
    assert [e.type for e in logged] == ["PlayerRegistered", "TokenIssued", "TreasurePosted",
                                       "TreasurePosted"]


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
        # His registration, its token and the deposit.
        assert len(uow.read_stream(players.stream(player_id), 0, 10)) == 3


def test_a_deposit_to_no_player_is_refused_and_writes_nothing(work: Work):
    with pytest.raises(NotFound) as refused, work() as uow:
        players.deposit(uow, Deposit("pl_nobody", 5, "seed"), META)
    assert refused.value.code == "player_not_found"
    with work() as uow:
        assert uow.read_stream(players.stream("pl_nobody"), 0, 10) == []
        assert uow.balance(ledger.wallet("pl_nobody")) == 0
