"""Versioned SQL migrations (`events/migrations/`, the log's tables and the projections'),
applied in order, once, even when several processes start at once; one whose rows need code to
convert is followed by its step (`STEPS`), in the same transaction. Here, above the log, since a
step may derive a projection's rows again from it."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

import psycopg

from projections import table_fold

# Any constant works; it names the lock every migrating process queues on.
MIGRATION_LOCK = 0x62616E636F  # "banco"


# The code a migration's rows need after its SQL, by version. A step runs today's code on rows
# of any age, so it reads none of their old form: it derives them again from the log.
STEPS: dict[int, Callable[[psycopg.Connection], object]] = {
    15: table_fold.resnapshot,  # the tables' snapshots, pickled before (015_state_snapshots.sql)
}


def available() -> list[tuple[int, str, str]]:
    """Every migration shipped with Banco as (version, name, sql), in order."""
    found = []
    for entry in resources.files("events.migrations").iterdir():
        if entry.name.endswith(".sql"):
            version = int(entry.name.split("_", 1)[0])
            found.append((version, entry.name, entry.read_text()))
    return sorted(found)


def applied(conn: psycopg.Connection) -> set[int]:
    """The versions already applied (empty before the first migration)."""
    exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return set()
    return {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}


def pending(conn: psycopg.Connection) -> list[int]:
    """The versions not yet applied; empty when the schema is current."""
    done = applied(conn)
    return [version for version, _, _ in available() if version not in done]


def upgrade(conn: psycopg.Connection, upto: int | None = None) -> list[str]:
    """Apply every pending migration (up to version `upto`) in one transaction; returns the names
    applied."""
    names = []
    with conn.transaction():
        # Concurrent starters queue here; the second one then finds nothing left to do. Without
        # the lock both would see the same pending list and the second would fail half-way.
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = applied(conn)
        for version, name, sql in available():
            if version in done or (upto is not None and version > upto):
                continue
            conn.execute(sql.encode())
            if version in STEPS:
                STEPS[version](conn)
            conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (version, name)
            )
            names.append(name)
    return names
