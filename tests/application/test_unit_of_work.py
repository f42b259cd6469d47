"""The unit of work itself, on both (tests/application/conftest.py): what one flush writes, in
the order it was queued, and that a refusal anywhere in it writes none of it."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from events import ledger
from events.catalog import default_types
from events.model import ConcurrencyConflict, NewEvent
from events.postgres import PostgresEventStore, configure_connection
from service.application.postgres_unit_of_work import PostgresUnitOfWork, transaction
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


@pytest.fixture
def eager_store(database_url: str) -> Iterator[PostgresEventStore]:
    """A store on one connection that prepares a statement at its second use."""

    def configure(conn: psycopg.Connection) -> None:
        configure_connection(conn)
        conn.prepare_threshold = 1

    pool = ConnectionPool(database_url, min_size=1, max_size=1, kwargs={"autocommit": True},
                          configure=configure, open=True)
    try:
        yield PostgresEventStore(pool, default_types())
    finally:
        pool.close()


@pytest.mark.parametrize("refused", ["stale", "overdraft"])
def test_a_failed_flush_leaves_no_statement_counted_as_prepared_that_is_not(
        eager_store: PostgresEventStore, refused: str):
    """Every statement of a flush may be prepared. A refused one skips the statements after it,
    whose preparation psycopg noted as it sent them: the rollback must make it forget them, or
    their next use fails with "prepared statement does not exist"."""
    a, b = streams()
    pool = eager_store.pool
    # psycopg forgets its prepared statements at a ROLLBACK statement too, until it prepares
    # that statement itself (at its second use here): two rollbacks of nothing, as a service's
    # connection makes early on, and a plain ROLLBACK forgets nothing more.
    for _ in range(2):
        empty = PostgresUnitOfWork(pool, eager_store)
        assert empty.connection
        empty.rollback()
        empty.release()
    spend = ledger.Transfer(f"wallet:{b}", ledger.HOUSE, 1, "spend").event(META)
    overdraw = ledger.Transfer(f"wallet:{b}", ledger.HOUSE, 1000, "spend").event(META)
    version = 0
    with transaction(pool, eager_store) as uow:
        uow.append(a, [deposit(f"wallet:{a}", 5)], 0)
    for _ in range(4):
        with pytest.raises(ledger.InsufficientTreasure if refused == "overdraft"
                           else ConcurrencyConflict), transaction(pool, eager_store) as uow:
            if refused == "stale":
                uow.append(a, [deposit(f"wallet:{a}", 1)], 0)  # a is at version 1
            else:
                uow.append(b, [deposit(f"wallet:{b}", 1), overdraw], version)
            uow.append(b, [deposit(f"wallet:{b}", 1)], version)
            uow.flush()
        with transaction(pool, eager_store) as uow:  # the same statements, on the connection
            uow.append(b, [deposit(f"wallet:{b}", 1), spend], version)
            uow.append(b, [deposit(f"wallet:{b}", 1)], version + 2)
            assert len(uow.flush()) == 3
        version += 3
    with transaction(pool, eager_store) as uow:
        assert uow.balance(f"wallet:{b}") == 4 and len(uow.read_stream(b, 0, 20)) == 12


def test_a_read_whose_pipeline_failed_gives_back_no_connection(eager_store: PostgresEventStore):
    """Outside a transaction there is no rollback for psycopg to forget its prepared statements
    at: the connection is closed, and the pool opens another."""
    pool = eager_store.pool
    uow = PostgresUnitOfWork(pool, eager_store, begin=False)
    with pytest.raises(psycopg.errors.DivisionByZero), uow.pipelined() as c:
        c.execute("SELECT 1 / %s", (0,))
    first = uow.taken
    uow.release()
    assert first is not None and first.closed
    with transaction(pool, eager_store) as uow:
        assert uow.balance("wallet:nobody") == 0
        assert uow.taken is not first


def test_a_write_outside_a_transaction_that_fails_keeps_its_connection(
        eager_store: PostgresEventStore):
    """A flush outside a transaction runs in psycopg's own, whose rollback forgets the prepared
    statements: the connection stays in the pool, and the same statements work on it."""
    a, b = streams()
    pool = eager_store.pool
    with transaction(pool, eager_store) as uow:
        uow.append(a, [deposit(f"wallet:{a}", 1)], 0)
    for _ in range(3):
        uow = PostgresUnitOfWork(pool, eager_store, begin=False)
        with pytest.raises(ConcurrencyConflict):
            uow.append(a, [deposit(f"wallet:{a}", 1)], 0)  # a is at version 1
            uow.append(b, [deposit(f"wallet:{b}", 1)], 0)
            uow.flush()
        first = uow.taken
        uow.release()
        assert first is not None and not first.closed
    with transaction(pool, eager_store) as uow:
        uow.append(a, [deposit(f"wallet:{a}", 1)], 1)
        uow.append(b, [deposit(f"wallet:{b}", 1)], 0)
        assert len(uow.flush()) == 2
        assert uow.taken is first
