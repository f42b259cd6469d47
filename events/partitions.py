"""The event log's partitions: a range of positions each, one kept ready ahead of the appends."""

from __future__ import annotations

import re

import psycopg
from psycopg import errors, sql

PARTITION_SIZE = 1_000_000  # positions per partition, as migration 012 made them
UPKEEP_LOCK = 0x62616E636F70  # "bancop": held by the one process attaching a partition
_UPPER = re.compile(r"TO \('?(-?\d+)'?\)")


def name(start: int) -> str:
    """A partition's name, after the first position it holds."""
    return f"events_p{start:012d}"


def bounds(conn: psycopg.Connection) -> list[tuple[str, int | None]]:
    """Each partition's name and the position it ends before (None for the DEFAULT one)."""
    rows = conn.execute(
        "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i"
        " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass"
        " ORDER BY c.relname").fetchall()
    out: list[tuple[str, int | None]] = []
    for relname, bound in rows:
        found = _UPPER.search(bound)
        out.append((relname, int(found.group(1)) if found else None))
    return out


def ensure(conn: psycopg.Connection, ahead: int = PARTITION_SIZE) -> list[str]:
    """Attach partitions until at least `ahead` positions past the last one drawn have one;
    returns the names attached (none when there was room, or when the lock was not had at once:
    the next call tries again).

    The new table is made on its own and then attached. CREATE TABLE ... PARTITION OF would take
    an ACCESS EXCLUSIVE lock on `events` itself, queued behind every reader of the log (a digest
    reads for minutes) and blocking every append queued behind it. ATTACH takes SHARE UPDATE
    EXCLUSIVE on `events`, which neither appends nor reads conflict with; its CHECK constraint
    spares the scan of the new table. It still takes the DEFAULT partition exclusively, to check
    that no row there belongs to the new range, and every reader of the whole log holds that
    partition too: hence the short lock timeout rather than a queue that would stall readers.
    """
    attached: list[str] = []
    while True:
        try:
            with conn.transaction():
                table = _attach_next(conn, ahead)
        except errors.LockNotAvailable:
            return attached  # the whole attempt rolled back; the next call tries again
        if table is None:
            return attached
        attached.append(table)


def _attach_next(conn: psycopg.Connection, ahead: int) -> str | None:
    # One attacher at a time: two workers would both make the same table, and the second's
    # CREATE would wait for the first's commit only to fail. The one that does not get the lock
    # leaves it to the one that has it.
    got = conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (UPKEEP_LOCK,)).fetchone()
    if not got or not got[0]:
        return None
    row = conn.execute(
        "SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('events', 'position')"
        "::regclass), 0), (SELECT max(position) FROM events_default)").fetchone()
    assert row is not None
    drawn, in_default = int(row[0]), row[1]
    top = max((b for _, b in bounds(conn) if b is not None), default=1)
    if top > drawn + ahead:
        return None
    # Rows that landed in the DEFAULT partition stay there: the new range starts after them.
    start = max(top, (in_default or 0) + 1)
    table = sql.Identifier(name(start))
    rng = (sql.Literal(start), sql.Literal(start + PARTITION_SIZE))
    conn.execute("SET LOCAL lock_timeout = '1s'")
    conn.execute(sql.SQL("CREATE TABLE {} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS,"
                         " CHECK (position >= {} AND position < {}))").format(table, *rng))
    # A statement trigger is not cloned from the parent: a TRUNCATE of the partition itself
    # would pass by the parent's.
    conn.execute(sql.SQL("CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON {}"
                         " FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable()").format(table))
    conn.execute(sql.SQL("ALTER TABLE events ATTACH PARTITION {} FOR VALUES FROM ({}) TO ({})")
                 .format(table, *rng))
    return name(start)
