"""Treasure posted through PostgreSQL's unit of work, in a transaction of the test's: for the
tests of the ledger and of its rebuild."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from events.ledger import Transfer
from events.model import StoredEvent
from events.postgres import PostgresEventStore
from service.application.postgres_unit_of_work import PostgresUnitOfWork


def posted(c: psycopg.Connection, store: PostgresEventStore, stream: str,
           transfers: Sequence[Transfer], metadata: dict[str, Any],
           expected_version: int | None = None) -> list[StoredEvent]:
    """The transfers appended to `stream` through the unit of work, in `c`'s transaction."""
    uow = PostgresUnitOfWork.joining(c, store)
    uow.append(stream, [t.event(metadata) for t in transfers], expected_version)
    return uow.flush()


def post(pool: ConnectionPool, store: PostgresEventStore, transfers: Sequence[Transfer],
         stream: str) -> list[StoredEvent]:
    """The transfers appended to `stream` in a transaction of their own."""
    with pool.connection() as c, c.transaction():
        return posted(c, store, stream, transfers, {"actor": "test"})
