"""Real PostgreSQL and Redis for the whole session: the servers the environment names, or
embedded ones started here. Every session gets a database of its own.

`./quickstart test` runs the suite in worker processes (pytest-xdist), each a session of its own:
its own PostgreSQL database, its own Redis database (the next numbers after REDIS_URL's), or its
own embedded servers when the environment names none."""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from redis.connection import parse_url

from projections import migrate
from service.runtime import embedded


def worker_redis_url(url: str, worker: int) -> str:
    """`url`'s Redis with the database numbered `worker` after its own, so that xdist's workers
    share no queue, rate limit or key. Sockets and Sentinel URLs name their database otherwise:
    left as they are (a worker's queues are still its own, named by its process)."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        return url
    db = int(parse_url(url).get("db", 0)) + worker
    return urlunsplit(parts._replace(path=f"/{db}"))


def pytest_configure(config: pytest.Config) -> None:
    # xdist names its workers gw0, gw1, ...; everything a test derives from REDIS_URL (the
    # servers below, the environment of the `banco` processes it starts) then reads the worker's.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker.startswith("gw") and os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = worker_redis_url(os.environ["REDIS_URL"], int(worker[2:]))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Whole test files to each worker, as `--dist loadfile` does (a file's module-scoped
    fixtures, such as a `banco run` or an SDK's build, are set up once), and the pages' tests,
    which share one `banco serve` and one browser, together."""
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "tests/pages/" if path.startswith("tests/pages/") else path

    return ByFile(config, log)


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


def pytest_sessionfinish(session: pytest.Session) -> None:
    # An xdist worker hands its figures to the main process, which prints them all.
    if hasattr(session.config, "workeroutput"):
        from tests.service.figures import FIGURES

        session.config.workeroutput["banco_figures"] = {t: dict(f) for t, f in FIGURES.items()}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    from tests.service.figures import FIGURES

    for test, figures in getattr(node, "workeroutput", {}).get("banco_figures", {}).items():
        FIGURES[test].update(figures)


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
