"""The two event stores the contract suite runs against."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from psycopg_pool import ConnectionPool

from events.catalog import default_types
from events.memory import InMemoryEventStore
from events.postgres import PostgresEventStore, make_pool
from events.store import EventStore
from service.runtime import embedded
from tests.conftest import fresh_database


@pytest.fixture(scope="session")
def database_url(servers: embedded.EmbeddedServers) -> Iterator[str]:
    """The store's own database: its contract tests write what no ledger would (postings of no
    account's balance, versions of event types no release of the catalog knows), which the service
    tests' readers of the whole log must never meet."""
    with fresh_database(servers.database_url, "banco_events") as url:
        yield url


@pytest.fixture(scope="session")
def pool(database_url: str) -> Iterator[ConnectionPool]:
    p = make_pool(database_url, min_size=1, max_size=20)
    yield p
    p.close()


@pytest.fixture(params=["memory", "postgres"])
def store(request: pytest.FixtureRequest) -> EventStore:
    if request.param == "memory":
        return InMemoryEventStore(default_types())
    return PostgresEventStore(request.getfixturevalue("pool"), default_types())
