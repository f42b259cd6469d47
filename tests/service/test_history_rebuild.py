"""The balance history rebuilt by several connections, one partition of accounts each
(projections/history_rebuild.py): the same rows as the replay in one backend and as the inline
projection, nothing visible of a failed rebuild, and writers posting throughout stay correct."""

from __future__ import annotations

import contextlib
import random
import threading
import uuid
from typing import Any

import psycopg
import pytest
from psycopg import sql

from events.ledger import HOUSE, InsufficientTreasure, Transfer
from projections import balances, history_rebuild, migrate
from projections.rebuild import rebuild_all
from tests.conftest import fresh_database
from tests.service import postings

HASHED = next(v for v, name, _ in migrate.available() if name.endswith("_history_by_account_hash.sql"))


@pytest.fixture
def pool(app):
    return app.extensions["banco.pool"]


@pytest.fixture
def store(app):
    return app.extensions["banco.store"]


def post(pool, store, transfers, stream="history-rebuild-test"):
    return postings.post(pool, store, transfers, stream)


def projected(pool) -> tuple[list[Any], list[Any]]:
    with pool.connection() as c:
        return (c.execute("SELECT * FROM balances ORDER BY account").fetchall(),
                c.execute("SELECT tableoid::regclass::text, * FROM balance_history"
                          " ORDER BY account, position").fetchall())


def staging_tables(pool) -> list[str]:
    with pool.connection() as c:
        return [r[0] for r in c.execute("SELECT relname FROM pg_class"
                                        " WHERE relname LIKE 'balance_history_rebuild%'")]


def seed_wallets(pool, store, count: int) -> list[str]:
    """`count` wallets, each with a deposit and a few transfers, so that every partition holds
    some accounts."""
    wallets = [f"wallet:hr{uuid.uuid4().hex[:8]}" for _ in range(count)]
    post(pool, store, [Transfer(HOUSE, w, 100, "deposit") for w in wallets])
    rng = random.Random(27)
    for _ in range(30):
        src, dst = rng.sample(wallets, 2)
        post(pool, store, [Transfer(src, dst, rng.randint(1, 20), "move", table="t1", hand="h1")])
    return wallets


def test_the_partitions_replayed_apart_equal_the_replay_in_one_backend_and_the_inline_rows(pool, store):
    with pool.connection() as c:
        rebuild_all(c)  # level: other tests append events without their projections
    seed_wallets(pool, store, 24)
    inline = projected(pool)
    with pool.connection() as c:
        parts = history_rebuild.partitions(c)
    assert len(parts) > 1 and len({row[0] for row in inline[1]}) == len(parts), \
        "every partition holds some of the history"
    for workers in (0, 1, 2, None):
        with pool.connection() as c:
            rebuild_all(c, workers=workers)
        assert projected(pool) == inline, f"workers={workers}"
    assert staging_tables(pool) == []


def test_a_rebuild_whose_worker_fails_leaves_the_projection_as_it_was(pool, store):
    seed_wallets(pool, store, 8)
    with pool.connection() as c:
        rebuild_all(c)
    before = projected(pool)
    with pool.connection() as c:
        # A name the worker of remainder 1 needs for its table's key: its key cannot be built.
        c.execute("CREATE TABLE history_rebuild_obstacle (a int)")
        c.execute("CREATE INDEX balance_history_rebuild_1_pkey ON history_rebuild_obstacle (a)")
        try:
            with pytest.raises(psycopg.errors.DuplicateTable):
                rebuild_all(c)
        finally:
            c.execute("DROP TABLE history_rebuild_obstacle")
    assert projected(pool) == before
    assert staging_tables(pool) == []
    post(pool, store, [Transfer(HOUSE, before[0][-1][0], 5, "after")])
    after = projected(pool)
    with pool.connection() as c:
        rebuild_all(c)
    assert projected(pool) == after


def test_a_rebuild_that_cannot_read_the_older_postings_leaves_nothing_and_no_worker_waiting(
        pool, store, monkeypatch):
    """The workers start before the older postings are read, and wait for them: when reading
    them fails, the workers give up too, and nothing of the rebuild is left."""
    seed_wallets(pool, store, 4)
    with pool.connection() as c:
        rebuild_all(c)
    before = projected(pool)

    def unreadable(*args: object, **kwargs: object) -> list[tuple[object, ...]]:
        raise RuntimeError("the older postings cannot be read")

    monkeypatch.setattr(balances, "older_postings", unreadable)
    with pool.connection() as c, pytest.raises(RuntimeError, match="older postings"):
        rebuild_all(c)
    assert [t.name for t in threading.enumerate() if t.name.startswith("history-rebuild")] == []
    assert projected(pool) == before
    assert staging_tables(pool) == []


def test_writers_posting_through_parallel_rebuilds_lose_nothing(pool, store):
    """Postings committed while rebuilds run, inline, are all in the projection afterwards, with
    the running balances a rebuild from the log gives them."""
    wallets = seed_wallets(pool, store, 8)
    stop = threading.Event()
    errors: list[BaseException] = []

    def write() -> None:
        rng = random.Random(threading.get_ident())
        while not stop.is_set():
            src, dst = rng.sample(wallets, 2)
            try:
                with contextlib.suppress(InsufficientTreasure):
                    post(pool, store, [Transfer(src, dst, rng.randint(1, 9), "live")],
                         stream=f"live-{rng.randint(1, 4)}")
            except BaseException as e:  # the test reads what it was
                errors.append(e)
                return

    writers = [threading.Thread(target=write) for _ in range(3)]
    for t in writers:
        t.start()
    try:
        for _ in range(4):
            with pool.connection() as c:
                rebuild_all(c)
    finally:
        stop.set()
        for t in writers:
            t.join()
    assert errors == []
    live = projected(pool)
    with pool.connection() as c:
        assert c.execute("SELECT count(*) FROM events WHERE data->>'reason' = 'live'"
                         " AND type = 'TreasurePosted'").fetchone()[0] > 0
        assert c.execute("SELECT sum(balance) FROM balances").fetchone() == (0,)
        rebuild_all(c, workers=0)
    assert projected(pool) == live


def test_an_existing_history_is_kept_row_for_row_in_the_partitions_of_its_accounts(servers):
    with fresh_database(servers.database_url, "banco_history", HASHED - 1) as url, \
            psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO balance_history (position, account, recorded_at, amount,"
                     " balance_after, reason, counterparty, table_id, hand_id)"
                     " SELECT g, 'wallet:m' || (g % 13), now(), g, g * 2, 'r', 'house:issued',"
                     " nullif('t' || (g % 3), 't0'), NULL FROM generate_series(1, 200) g")
        before = conn.execute("SELECT * FROM balance_history ORDER BY account, position").fetchall()
        migrate.upgrade(conn, upto=HASHED)
        assert conn.execute("SELECT * FROM balance_history ORDER BY account, position").fetchall() == before
        parts = history_rebuild.partitions(conn)
        assert [p.remainder for p in parts] == [0, 1, 2, 3]
        matched = 0
        for part in parts:
            # The rebuild's own filter finds each partition's rows where PostgreSQL put them.
            found = conn.execute(
                sql.SQL("SELECT count(*) FILTER (WHERE tableoid = {}::regclass), count(*)"
                                " FROM (SELECT tableoid, account FROM balance_history) AS legs{}")
                .format(sql.Literal(part.name), part.where())).fetchone()
            assert found is not None and found[0] == found[1] > 0
            matched += found[1]
        assert matched == len(before)
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("INSERT INTO balance_history SELECT * FROM balance_history LIMIT 1")


def test_a_writer_holding_a_table_the_rebuild_waits_for_is_not_made_a_deadlock_victim(pool):
    """A table command reads `tables` before it locks `balances`; the rebuild locks `balances`
    before `tables`. Were the rebuild to wait on `tables` holding `balances`, the two would
    deadlock and PostgreSQL would abort one of them (seen in a CI run: the rebuild). The rebuild
    gives up its locks instead, and the writer finishes first."""
    done: list[int] = []
    with pool.connection() as writer:
        with writer.transaction():
            writer.execute("SELECT count(*) FROM tables")  # a command's first read
            rebuild = threading.Thread(target=lambda: done.append(_rebuild(pool)))
            rebuild.start()
            with pool.connection() as watch:  # until the rebuild waits for `tables`
                for _ in range(500):
                    if watch.execute("SELECT count(*) FROM pg_locks WHERE NOT granted"
                                     " AND mode = 'AccessExclusiveLock'").fetchone() != (0,):
                        break
                    threading.Event().wait(0.01)
                else:
                    raise AssertionError("the rebuild never waited for the table's lock")
            # The command goes on to the balances the rebuild locked first: it waits for them
            # until the rebuild lets go, and is not aborted.
            writer.execute("SELECT count(*) FROM balances")
        rebuild.join(60)
    assert not rebuild.is_alive() and len(done) == 1


def _rebuild(pool) -> int:
    with pool.connection() as c:
        return rebuild_all(c)
