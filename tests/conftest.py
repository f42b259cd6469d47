"""Real PostgreSQL and Redis for the whole session: the servers the environment names, or
embedded ones started here. Every session gets a database of its own."""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from projections import migrate
from service.runtime import embedded


@pytest.fixture(scope="session")
def servers() -> Iterator[embedded.EmbeddedServers]:
    with tempfile.TemporaryDirectory(prefix="banco-test-") as tmp:
        running = embedded.start(Path(tmp), keep=False)
        try:
            yield running
        finally:
            running.stop()


@contextlib.contextmanager
def fresh_database(admin: str, prefix: str = "banco_test",
                   upto: int | None = None) -> Iterator[str]:
    """A database of its own on the server `admin` names, migrated (up to version `upto`),
    dropped afterwards."""
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(admin, dbname=name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            migrate.upgrade(conn, upto)
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def database_url(servers: embedded.EmbeddedServers) -> Iterator[str]:
    with fresh_database(servers.database_url) as url:
        yield url


@pytest.fixture(scope="session")
def redis_url(servers: embedded.EmbeddedServers) -> str:
    return servers.redis_url


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the figures the reliability tests reported (responses checked, conflicts, ...)."""
    from tests.service.figures import FIGURES

    if not FIGURES:
        return
    terminalreporter.section("Banco figures")
    for test, figures in FIGURES.items():
        shown = ", ".join(f"{name} {value}" for name, value in figures.items())
        terminalreporter.write_line(f"{test}: {shown}")
    totals: dict[str, int] = {}
    for figures in FIGURES.values():
        for name, value in figures.items():
            totals[name] = totals.get(name, 0) + value
    rows = [("requests sent", totals.get("requests", 0) + totals.get("responses checked", 0)),
            ("responses checked", totals.get("responses checked", 0)),
            ("conflicts seen", totals.get("conflicts", 0)),
            ("faults injected", totals.get("postgres restarts", 0)),
            ("treasure lost (must be 0)", totals.get("treasure lost", 0)),
            ("leaks (must be 0)", totals.get("leaks", 0))]
    terminalreporter.write_line("")
    terminalreporter.write_line("| figure | count |")
    terminalreporter.write_line("| --- | ---: |")
    for name, value in rows:
        terminalreporter.write_line(f"| {name} | {value} |")
