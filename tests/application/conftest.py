"""The application's tests run on both units of work: PostgreSQL's, on the session's database,
and its twin in memory. Each test is one contract; a difference between the two is a defect of
the twin or of the handlers' assumptions about the store."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from events.catalog import default_types
from events.postgres import PostgresEventStore, make_pool
from service.application.memory_unit_of_work import MemoryDatabase, MemoryUnitOfWork
from service.application.postgres_unit_of_work import transaction
from service.application.unit_of_work import UnitOfWork

# A unit of work committed at the block's end, rolled back if the block raises.
Work = Callable[[], contextlib.AbstractContextManager[UnitOfWork]]


@pytest.fixture(scope="module")
def postgres_store(database_url: str) -> Iterator[PostgresEventStore]:
    pool = make_pool(database_url, min_size=1, max_size=4)
    try:
        yield PostgresEventStore(pool, default_types())
    finally:
        pool.close()


@pytest.fixture(params=["memory", "postgres"])
def work(request: pytest.FixtureRequest) -> Work:
    if request.param == "postgres":
        store: PostgresEventStore = request.getfixturevalue("postgres_store")
        return lambda: transaction(store.pool, store)
    db = MemoryDatabase()

    @contextlib.contextmanager
    def memory() -> Iterator[Any]:
        uow = MemoryUnitOfWork(db)
        try:
            yield uow
            uow.commit()
        finally:
            uow.rollback()

    return memory
