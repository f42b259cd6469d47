"""The balance history and the balances replayed by several backends at once, one per partition
of the history (migration 017: a hash of the account), inside the rebuild's transaction.

One `INSERT ... SELECT` runs in one backend: PostgreSQL plans no parallel insert, and the sort of
every leg, the running balance, the writing of the rows and the key's build after them would
all run on one core. Here each partition's accounts are replayed by a connection of their own,
reading the log as the rebuild's transaction sees it (its exported snapshot), into a table of
their own with its primary key; the rebuild's transaction then swaps those tables in for the
partitions. Nothing of it is visible before that transaction commits: until then the new tables
are not part of `balance_history`, and the rebuild holds the projection's tables locked, so no
one reads the old partitions half-replaced nor writes a posting the replay would miss.
"""

from __future__ import annotations

import contextlib
import re
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

from events.catalog import TYPES
from events.types import EventTypes
from projections import balances

# The hash PostgreSQL partitions by, for one text key: hashtextextended with the partitioning
# seed, to which hash_combine64 adds a constant (partbounds.c; both fixed, since a pg_upgrade
# keeps the rows where they are). A row belongs to remainder (hash + offset) mod modulus, taken
# unsigned; for a modulus that is a power of two that is the low bits, which bigint arithmetic
# gets right. Attaching a table checks every row against its partition, so a wrong formula is
# an error, never a misplaced row.
HASH_SEED = 0x7A5B22367996DCFD
HASH_OFFSET = 0x49A0F4DD15E5A5E3
STAGING = "balance_history_rebuild_{}"
# The columns of balance_history as migration 017 made them (attaching checks that they match).
# A worker cannot copy them with LIKE: that reads the table the rebuild holds locked.
STAGING_COLUMNS = """(
    position bigint NOT NULL, account text NOT NULL, recorded_at timestamptz NOT NULL,
    amount bigint NOT NULL, balance_after bigint NOT NULL, reason text NOT NULL,
    counterparty text NOT NULL, table_id text, hand_id text)"""
_BOUND = re.compile(r"MODULUS (\d+), REMAINDER (\d+)", re.IGNORECASE)
# A worker waits on nothing the rebuild holds; should it ever, it fails instead of waiting on a
# transaction that waits on it.
WORKER_LOCK_TIMEOUT = "30s"
WORKER_SETTINGS = [
    # The sort of the legs in memory, and the key's.
    "SET LOCAL work_mem = '256MB'",
    "SET LOCAL maintenance_work_mem = '256MB'",
    f"SET LOCAL lock_timeout = '{WORKER_LOCK_TIMEOUT}'",
]


@dataclass(frozen=True)
class Partition:
    name: str
    modulus: int
    remainder: int

    @property
    def staging(self) -> str:
        return STAGING.format(self.remainder)

    def where(self) -> sql.Composable:
        """The legs of this partition's accounts."""
        mask = self.modulus - 1
        return sql.SQL(" WHERE ((hashtextextended(account, {seed}) & {mask}) + {offset}) & {mask}"
                       " = {remainder}").format(
            seed=sql.Literal(HASH_SEED), mask=sql.Literal(mask),
            offset=sql.Literal(HASH_OFFSET & mask), remainder=sql.Literal(self.remainder))


def partitions(conn: psycopg.Connection) -> list[Partition]:
    """balance_history's partitions, by remainder."""
    rows = conn.execute(
        "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i"
        " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'balance_history'::regclass"
    ).fetchall()
    found = []
    for name, bound in rows:
        match = _BOUND.search(bound)
        assert match, f"{name} is not a hash partition: {bound}"
        modulus, remainder = int(match.group(1)), int(match.group(2))
        assert modulus & (modulus - 1) == 0, f"{name}: modulus {modulus} is not a power of two"
        found.append(Partition(name, modulus, remainder))
    return sorted(found, key=lambda p: p.remainder)


def worker_conninfo(conn: psycopg.Connection) -> str:
    """Where the workers connect: the rebuild's own server, database and role."""
    password = conn.info.password
    return make_conninfo(conn.info.dsn, **({"password": password} if password else {}))


def build(conninfo: str, snapshot: str, part: Partition,
          older: Future[list[tuple[object, ...]]], types: EventTypes = TYPES
          ) -> list[tuple[str, int, int]]:
    """Replay `part`'s accounts into its staging table, committed, with the primary key, as of
    `snapshot`; returns each account's balance and last position. `older` brings the postings
    of older schema versions, upcast, which the rebuild reads while the workers connect."""
    with psycopg.connect(conninfo) as w:
        w.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        with w.transaction():
            w.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)))
            for setting in WORKER_SETTINGS:
                w.execute(setting)
            staging = sql.Identifier(part.staging)
            # Left by a rebuild that failed after its workers had committed.
            w.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(staging))
            w.execute(sql.SQL("CREATE TABLE {} " + STAGING_COLUMNS).format(staging))
            balances.load_older(w, older.result())
            insert = sql.SQL("INSERT INTO {} ").format(staging).as_string(w).encode()
            w.execute(insert + balances.statement(w, balances.HISTORY_COLUMNS + balances.REPLAY,
                                                  types, part.where()))
            # Named, so that a name taken fails here instead of drawing another one.
            w.execute(sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} PRIMARY KEY (account, position)")
                      .format(staging, sql.Identifier(part.staging + "_pkey")))
            return [(a, int(b), int(p)) for a, b, p in w.execute(
                sql.SQL("SELECT account, sum(amount), max(position) FROM {} GROUP BY account")
                .format(staging)).fetchall()]


@dataclass
class Replay:
    """The workers of one rebuild, replaying every partition."""

    pool: ThreadPoolExecutor
    parts: list[Partition]
    futures: dict[Future[list[tuple[str, int, int]]], Partition]


def start(conn: psycopg.Connection, workers: int | None = None, types: EventTypes = TYPES) -> Replay:
    """Start replaying every partition, `workers` at a time (default: all at once), as the
    caller's transaction sees the log; the caller goes on with other work and then calls
    `finish`, or `discard` if it fails. The transaction must hold the projection's tables locked
    (as `rebuild_all` does), so that no posting commits between its snapshot and its end."""
    parts = partitions(conn)
    row = conn.execute("SELECT pg_export_snapshot()").fetchone()
    assert row is not None
    conninfo = worker_conninfo(conn)
    pool = ThreadPoolExecutor(max_workers=workers or len(parts), thread_name_prefix="history-rebuild")
    older: Future[list[tuple[object, ...]]] = Future()
    replay = Replay(pool, parts,
                    {pool.submit(build, conninfo, row[0], part, older, types): part for part in parts})
    # Read while the workers connect and take the snapshot; they wait for it before replaying.
    try:
        older.set_result(balances.older_postings(conn, types))
    except BaseException as e:
        older.set_exception(e)
        pool.shutdown(wait=True)
        raise
    return replay


def finish(conn: psycopg.Connection, replay: Replay) -> None:
    """Swap the workers' tables in for the partitions and write the balances, inside the
    caller's transaction, each partition as soon as its worker is done: attaching checks every
    row of the table, and the last workers are still replaying meanwhile."""
    conn.execute("TRUNCATE balances")
    for future in as_completed(replay.futures):
        totals = future.result()
        part = replay.futures[future]
        staging, name = sql.Identifier(part.staging), sql.Identifier(part.name)
        # Dropping the partition drops its rows and its index at commit, without reading them.
        conn.execute(sql.SQL("DROP TABLE {}").format(name))
        conn.execute(sql.SQL("ALTER TABLE balance_history ATTACH PARTITION {}"
                             " FOR VALUES WITH (MODULUS {}, REMAINDER {})").format(
            staging, sql.Literal(part.modulus), sql.Literal(part.remainder)))
        conn.execute(sql.SQL("ALTER TABLE {} RENAME TO {}").format(staging, name))
        conn.execute(sql.SQL("ALTER TABLE {} RENAME CONSTRAINT {} TO {}").format(
            name, sql.Identifier(f"{part.staging}_pkey"), sql.Identifier(f"{part.name}_pkey")))
        columns = [list(column) for column in zip(*totals, strict=True)] or [[], [], []]
        conn.execute("INSERT INTO balances (account, balance, last_position)"
                     " SELECT * FROM unnest(%s::text[], %s::bigint[], %s::bigint[])", columns)
    replay.pool.shutdown(wait=True)


def discard(conn: psycopg.Connection, replay: Replay) -> None:
    """After the rebuild's transaction rolled back: wait for the workers and drop what they
    committed, which that rollback does not undo (a later rebuild's workers would drop it too)."""
    replay.pool.shutdown(wait=True)
    with contextlib.suppress(psycopg.Error), conn.transaction():
        for part in replay.parts:
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(part.staging)))
