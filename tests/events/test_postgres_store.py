"""What only the PostgreSQL store must prove: immutability, gap-safe reads, safe migrations."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any, ClassVar, Self

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from events.catalog import default_types
from events.model import Checkpoint, ConcurrencyConflict, NewEvent
from events.postgres import PostgresEventStore, make_pool
from projections import migrate
from tests.conftest import fresh_database


def registered(name: str) -> NewEvent:
    # Unique ids: projections rebuilt later in the session replay these events too.
    return NewEvent("PlayerRegistered", {"player_id": uuid.uuid4().hex, "name_enc": name})


@pytest.fixture
def pg_store(pool: ConnectionPool) -> PostgresEventStore:
    return PostgresEventStore(pool, default_types())


@pytest.mark.parametrize(
    "statement",
    ["UPDATE events SET data = '{}' WHERE position = %s", "DELETE FROM events WHERE position = %s",
     "TRUNCATE events"],
)
def test_events_are_immutable(pg_store: PostgresEventStore, database_url: str, statement: str):
    [event] = pg_store.append(f"imm-{uuid.uuid4().hex}", [registered("x")], 0)
    with psycopg.connect(database_url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement, (event.position,) if "%s" in statement else None)
    assert pg_store.read_stream(event.stream_id)[0].data == event.data


def test_a_loser_does_not_burn_a_position(pg_store: PostgresEventStore, database_url: str):
    s = f"burn-{uuid.uuid4().hex}"
    first = pg_store.append(s, [registered("a")], 0)[0]
    with pytest.raises(ConcurrencyConflict):
        pg_store.append(s, [registered("b")], 0)
    second = pg_store.append(s, [registered("c")], 1)[0]
    assert second.position == first.position + 1


@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("expected", [0, 1])
def test_a_conflict_aborts_the_callers_transaction(
    pg_store: PostgresEventStore, database_url: str, batch: int, expected: int
):
    """Single events and batches, new streams and old: a loser's transaction is aborted by the
    server (nothing of it can be committed) and no position is drawn."""
    s = f"abort-{uuid.uuid4().hex}"
    pg_store.append(s, [registered("a"), registered("b")], 0)
    last = pg_store.read_stream(s)[-1].position
    with psycopg.connect(database_url) as conn, pytest.raises(ConcurrencyConflict), conn.transaction():
        pg_store.append(f"{s}-other", [registered("c")], 0, conn=conn)
        with pytest.raises(ConcurrencyConflict):
            pg_store.append(s, [registered("d") for _ in range(batch)], expected, conn=conn)
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        raise ConcurrencyConflict(s, expected)
    assert pg_store.stream_version(f"{s}-other") == 0
    assert pg_store.stream_version(s) == 2
    after = pg_store.append(s, [registered("e")], 2)[0]
    assert after.version == 3
    assert after.position == last + 2  # only the rolled-back "-other" append drew one


@pytest.mark.parametrize("batch", [1, 3])
def test_a_version_for_a_stream_that_does_not_exist_aborts_the_transaction(
    pg_store: PostgresEventStore, database_url: str, batch: int
):
    s = f"missing-{uuid.uuid4().hex}"
    with psycopg.connect(database_url) as conn, pytest.raises(ConcurrencyConflict), conn.transaction():
        with pytest.raises(ConcurrencyConflict):
            pg_store.append(s, [registered("d") for _ in range(batch)], 3, conn=conn)
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        raise ConcurrencyConflict(s, 3)
    assert pg_store.stream_version(s) == 0


@pytest.mark.parametrize("batch", [1, 3])
def test_a_writer_that_waited_on_the_winner_loses_without_drawing_a_position(
    pg_store: PostgresEventStore, database_url: str, batch: int
):
    s = f"race-{uuid.uuid4().hex}"
    pg_store.append(s, [registered("a")], 0)
    outcome: list[object] = []
    with psycopg.connect(database_url) as conn:
        with conn.transaction():
            won = pg_store.append(s, [registered("w") for _ in range(batch)], 1, conn=conn)

            def loser() -> None:
                try:
                    outcome.append(pg_store.append(s, [registered("l") for _ in range(batch)], 1))
                except ConcurrencyConflict as e:
                    outcome.append(e)

            t = threading.Thread(target=loser)
            t.start()
            time.sleep(0.3)  # the loser now waits for the stream row the winner holds
            assert t.is_alive()
        t.join()
    assert isinstance(outcome[0], ConcurrencyConflict)
    after = pg_store.append(s, [registered("n")], 1 + batch)[0]
    assert after.position == won[-1].position + 1


@pytest.fixture
def own_log(servers: Any) -> Iterator[tuple[PostgresEventStore, str]]:
    """A store on a database of its own, for tests that read the whole log: the contract suite
    writes to the shared one event versions the catalog does not know, in whatever order the
    suite's workers take the files."""
    with fresh_database(servers.database_url, "banco_tail") as url, \
            make_pool(url, min_size=1, max_size=10) as pool:
        yield PostgresEventStore(pool, default_types()), url


def test_tailing_reader_sees_every_committed_event_once_in_a_stable_order(
    own_log: tuple[PostgresEventStore, str]
):
    """Overlapping writers: a slow one that draws positions early and commits late, a rolled
    back one, and many quick ones, while a reader tails the global log by checkpoint."""
    pg_store, database_url = own_log
    tag = uuid.uuid4().hex[:8]
    start = pg_store.read_all(after=Checkpoint(), limit=10**9)
    after = start[-1].checkpoint if start else Checkpoint()
    committed: list[str] = []
    lock = threading.Lock()
    done = threading.Event()

    def slow_writer() -> None:
        with psycopg.connect(database_url) as conn, conn.transaction():
            pg_store.append(f"{tag}-slow", [registered("slow-1")], 0, conn=conn)
            time.sleep(0.8)  # holds an early position while others commit later ones
            pg_store.append(f"{tag}-slow2", [registered("slow-2")], 0, conn=conn)
        with lock:
            committed.extend(["slow-1", "slow-2"])

    def rolled_back_writer() -> None:
        conn = psycopg.connect(database_url)
        try:
            with conn.transaction():
                pg_store.append(f"{tag}-rb", [registered("rolled-back")], 0, conn=conn)
                time.sleep(0.3)
                raise RuntimeError("roll back")
        except RuntimeError:
            pass
        finally:
            conn.close()

    def quick_writer(i: int) -> None:
        for j in range(15):
            name = f"q{i}-{j}"
            pg_store.append(f"{tag}-q{i}-{j}", [registered(name)], 0)
            with lock:
                committed.append(name)

    seen: list[str] = []
    order: list[Checkpoint] = []

    def reader() -> None:
        nonlocal after
        give_up = None
        while True:
            for e in pg_store.read_all(after=after, limit=50):
                after = e.checkpoint
                if e.stream_id.startswith(tag):
                    seen.append(e.data["name_enc"])
                    order.append(e.checkpoint)
            if done.is_set():
                # Writers are done; the watermark may still trail behind a transaction open
                # elsewhere on the server, so read until everything committed has shown up.
                give_up = give_up or time.monotonic() + 30
                if len(seen) >= len(committed) or time.monotonic() > give_up:
                    return
            time.sleep(0.01)

    writers = [threading.Thread(target=slow_writer), threading.Thread(target=rolled_back_writer)]
    writers += [threading.Thread(target=quick_writer, args=(i,)) for i in range(4)]
    tail = threading.Thread(target=reader)
    tail.start()
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    time.sleep(0.05)
    done.set()
    tail.join()
    assert sorted(seen) == sorted(committed)  # every committed event, exactly once
    assert "rolled-back" not in seen
    assert order == sorted(order)
    again = [e.data["name_enc"] for e in pg_store.read_all(after=start[-1].checkpoint if start else
                                                       Checkpoint(), limit=10**9)
             if e.stream_id.startswith(tag)]
    assert again == seen  # the order is stable across reads


def test_concurrent_upgrades_are_safe(servers, database_url: str):
    """Two processes starting at once on an empty database: both succeed, each migration once."""
    from psycopg.conninfo import make_conninfo

    name = f"banco_mig_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(servers.database_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(servers.database_url, dbname=name)
    results: list[object] = []

    def run() -> None:
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                results.append(migrate.upgrade(conn))
        except Exception as e:  # collected and asserted below
            results.append(e)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert not [r for r in results if isinstance(r, Exception)]
        applied = [names for names in results if names]
        assert len(applied) == 1 and applied[0] == [n for _, n, _ in migrate.available()]
        with psycopg.connect(url, autocommit=True) as conn:
            assert migrate.pending(conn) == []
            assert migrate.upgrade(conn) == []
    finally:
        with psycopg.connect(servers.database_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


class _Recording(psycopg.Cursor):
    """A cursor that keeps every statement it is given, to EXPLAIN what the store really sent."""

    sent: ClassVar[list[tuple[Any, Any]]] = []

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Self:
        self.sent.append((query, params))
        return super().execute(query, params, **kwargs)


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


@pytest.mark.parametrize("types", [None, ["PlayerRegistered"]])
def test_a_page_inside_a_large_transaction_follows_the_index_without_sorting(
    servers: Any, types: list[str] | None
):
    """The global read keeps to the (txid, position) index's order and stops at its LIMIT when
    the checkpoint is inside the log's last, large transaction (a bulk write), whether or not
    the statistics know of that transaction yet: no Sort node, and the scans hand up no more
    rows than the page holds (one more per partition at most). Given the checkpoint as
    constants, the planner estimated the row comparison from `txid > checkpoint's txid` alone,
    which nothing matches there, and sorted every event left in the transaction for each page."""
    limit, bulk = 100, 10_000
    with fresh_database(servers.database_url, "banco_order") as url, \
            psycopg.connect(url, autocommit=True, cursor_factory=_Recording) as conn:
        store = PostgresEventStore(make_pool(url, open=False), default_types())
        for i in range(50):
            store.append(f"small-{i}", [registered(f"s{i}")], 0, conn=conn)
        conn.execute("ANALYZE events")
        conn.execute(
            "INSERT INTO events (stream_id, version, type, data, hash)"
            " SELECT 'bulk', g, 'PlayerRegistered',"
            "        jsonb_build_object('player_id', 'p' || g, 'name_enc', 'x'), '\\x'::bytea"
            " FROM generate_series(1, %s) AS g", (bulk,))
        deadline = time.monotonic() + 30
        while conn.execute("SELECT count(*) FROM events WHERE txid < pg_snapshot_xmin("
                           "pg_current_snapshot())").fetchone() != (50 + bulk,):
            assert time.monotonic() < deadline, "the watermark stayed behind the bulk write"
            time.sleep(0.05)
        row = conn.execute("SELECT position FROM events WHERE stream_id = 'bulk' AND version = 1000"
                           ).fetchone()
        assert row is not None
        checkpoint = store.checkpoint_at(row[0], conn=conn)
        assert checkpoint is not None
        for statistics in ("before the bulk write", "after it"):
            if statistics == "after it":
                conn.execute("ANALYZE events")
            _Recording.sent.clear()
            page = store.read_all(checkpoint, limit, conn=conn, types=types)
            assert [e.version for e in page] == list(range(1001, 1001 + limit))
            [(query, params)] = _Recording.sent
            [[[explained]]] = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + query,
                                           params).fetchall()
            nodes = list(_nodes(explained["Plan"]))
            assert not [n for n in nodes if "Sort" in n["Node Type"]], (statistics, nodes)
            scans = [n for n in nodes if n["Node Type"] in ("Index Scan", "Seq Scan",
                                                             "Bitmap Heap Scan")]
            assert sum(n["Actual Rows"] for n in scans) <= limit + len(scans), (statistics, nodes)
