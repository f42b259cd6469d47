"""The unit of work itself, on both (tests/application/conftest.py): what one flush writes, in
the order it was queued, and that a refusal anywhere in it writes none of it."""

from __future__ import annotations

import secrets

import pytest

from events import ledger
from events.model import ConcurrencyConflict, NewEvent
from tests.application.conftest import Work

META = {"actor": "test"}


def streams() -> tuple[str, str]:
    tag = secrets.token_hex(6)
    return f"uow-a-{tag}", f"uow-b-{tag}"


def deposit(account: str, amount: int) -> NewEvent:
    return ledger.Transfer(ledger.HOUSE, account, amount, "deposit").event(META)


def test_one_flush_writes_several_streams_in_the_order_queued(work: Work):
    a, b = streams()
    with work() as uow:
        uow.append(a, [deposit(f"wallet:{a}", 5)], 0)
        uow.append(b, [deposit(f"wallet:{b}", 7), deposit(f"wallet:{b}", 1)], 0)
        uow.append(a, [deposit(f"wallet:{a}", 2)], 1)
        stored = uow.flush()
    assert [(e.stream_id, e.version) for e in stored] == [(a, 1), (b, 1), (b, 2), (a, 2)]
    assert [e.position for e in stored] == sorted(e.position for e in stored)
    with work() as uow:
        assert uow.balance(f"wallet:{a}") == 7 and uow.balance(f"wallet:{b}") == 8


@pytest.mark.parametrize("refused", ["stale", "overdraft"])
def test_a_refusal_anywhere_in_a_flush_writes_none_of_it(work: Work, refused: str):
    a, b = streams()
    with work() as uow:
        uow.append(a, [deposit(f"wallet:{a}", 5)], 0)
    spend = ledger.Transfer(f"wallet:{b}", ledger.HOUSE, 1, "spend").event(META)
    with pytest.raises(ledger.InsufficientTreasure if refused == "overdraft"
                       else ConcurrencyConflict), work() as uow:
        uow.append(b, [deposit(f"wallet:{b}", 3)], 0)
        if refused == "stale":
            uow.append(a, [deposit(f"wallet:{a}", 1)], 0)  # a is at version 1
        else:
            uow.append(b, [spend, spend, spend, spend], 1)  # b holds 3
        uow.flush()
    with work() as uow:
        assert uow.read_stream(b, 0, 10) == []
        assert len(uow.read_stream(a, 0, 10)) == 1
        assert uow.balance(f"wallet:{b}") == 0 and uow.balance(f"wallet:{a}") == 5
        # The same statements again, on the same connection, work after the failed flush.
        uow.append(b, [deposit(f"wallet:{b}", 3)], 0)
        uow.append(a, [deposit(f"wallet:{a}", 1)], 1)
        assert len(uow.flush()) == 2
