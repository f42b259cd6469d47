"""The partitioned log: an existing log migrated as it is, partitions attached ahead of the
appends, the DEFAULT partition as the safety net, and the store unchanged over all of it."""

from __future__ import annotations

import secrets
import threading
import time

import psycopg
import pytest

from events import partitions
from events.catalog import default_types
from events.model import ConcurrencyConflict, NewEvent, canonical_json, chain_hash
from events.postgres import PostgresEventStore, make_pool
from projections import migrate
from tests.conftest import fresh_database

PARTITIONED = next(v for v, name, _ in migrate.available() if name.endswith("_partitioned_events.sql"))


def registered(n: int) -> NewEvent:
    return NewEvent("PlayerRegistered", {"player_id": f"p{n}-{secrets.token_hex(4)}",
                                         "name_enc": f"sealed-{n}"})


def rows(conn: psycopg.Connection) -> list[tuple[object, ...]]:
    return conn.execute("SELECT position, stream_id, version, type, data, recorded_at, txid, hash"
                        " FROM events ORDER BY position").fetchall()


def where(conn: psycopg.Connection, position: int) -> str:
    row = conn.execute("SELECT tableoid::regclass::text FROM events WHERE position = %s",
                       (position,)).fetchone()
    assert row is not None
    return str(row[0])


def test_an_existing_log_becomes_the_first_partition_as_it_was(servers):
    with (fresh_database(servers.database_url, "banco_part", PARTITIONED - 1) as url,
          make_pool(url, max_size=2) as pool):
        store = PostgresEventStore(pool, default_types())
        for n in range(3):
            store.append(f"s{n}", [registered(n), registered(n + 10)], 0)
        with psycopg.connect(url, autocommit=True) as conn:
            before = rows(conn)
            assert migrate.upgrade(conn, upto=PARTITIONED) == [migrate.available()[PARTITIONED - 1][1]]
            assert rows(conn) == before  # every byte, position and txid kept
            kind = conn.execute("SELECT relkind FROM pg_class WHERE relname = 'events'").fetchone()
            assert kind == ("p",)
            assert {where(conn, int(str(r[0]))) for r in before} == {"events_p000000000000"}
            assert partitions.bounds(conn) == [("events_default", None),
                                               ("events_p000000000000", 1_000_000),
                                               ("events_p000001000000", 2_000_000)]
        # Appends carry on after the old positions and the old chains.
        [old] = store.read_stream("s1")[-1:]
        event = registered(99)
        [more] = store.append("s1", [event], 2)
        assert more.position == len(before) + 1 and more.version == 3
        assert more.hash == chain_hash(old.hash, canonical_json("s1", event))
        assert [e.version for e in store.read_stream("s1")] == [1, 2, 3]
        # The global read, once the watermark (held back by any transaction open on the server)
        # has passed the new event.
        for _ in range(1200):
            if (read := store.read_all(limit=100)) and read[-1].position == more.position:
                break
            time.sleep(0.05)
        assert [e.position for e in read] == [r[0] for r in before] + [more.position]
        with pytest.raises(ConcurrencyConflict):
            store.append("s1", [registered(100)], 2)
        with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM events_p000000000000 WHERE position = 1")


@pytest.mark.parametrize("table", ["events", "events_p000000000000", "events_p000001000000",
                                   "events_default"])
def test_no_partition_can_be_truncated(database_url: str, table: str):
    with psycopg.connect(database_url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(f"TRUNCATE {table}")


def test_a_partition_is_attached_before_the_appends_need_it(servers):
    with fresh_database(servers.database_url, "banco_part") as url, make_pool(url, max_size=2) as pool:
        store = PostgresEventStore(pool, default_types())
        with psycopg.connect(url, autocommit=True) as conn:
            assert partitions.ensure(conn) == []  # a whole partition of room left
            conn.execute("ALTER TABLE events ALTER COLUMN position RESTART WITH 1500000")
            [e] = store.append("late", [registered(1)], 0)
            assert where(conn, e.position) == "events_p000001000000"
            assert partitions.ensure(conn) == ["events_p000002000000"]
            assert partitions.ensure(conn) == []  # a second worker finds the room made
            conn.execute("ALTER TABLE events ALTER COLUMN position RESTART WITH 1999999")
            store.append("late", [registered(2), registered(3)], 1)  # across two partitions
            assert [where(conn, p) for p in (1_999_999, 2_000_000)] == [
                "events_p000001000000", "events_p000002000000"]
            assert partitions.ensure(conn) == ["events_p000003000000"]
            assert [e.version for e in store.read_stream("late")] == [1, 2, 3]


def test_appends_past_every_partition_land_in_the_default_one_and_the_next_starts_after(servers):
    with fresh_database(servers.database_url, "banco_part") as url, make_pool(url, max_size=2) as pool:
        store = PostgresEventStore(pool, default_types())
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ALTER TABLE events ALTER COLUMN position RESTART WITH 5000000")
            stored = store.append("lost", [registered(1), registered(2)], 0)
            assert {where(conn, e.position) for e in stored} == {"events_default"}
            assert partitions.ensure(conn) == ["events_p000005000002"]
            [e] = store.append("lost", [registered(3)], 2)
            assert where(conn, e.position) == "events_p000005000002"
            assert [x.version for x in store.read_stream("lost")] == [1, 2, 3]


def test_ensure_gives_up_at_once_while_a_reader_holds_the_log(servers):
    """A long reader of the log must not get the appends queued behind the attach's lock."""
    with fresh_database(servers.database_url, "banco_part") as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ALTER TABLE events ALTER COLUMN position RESTART WITH 1500000")
            conn.execute("SELECT nextval(pg_get_serial_sequence('events', 'position'))")
        reading, done = threading.Event(), threading.Event()

        def read() -> None:
            with psycopg.connect(url) as reader:  # a transaction open on the DEFAULT partition
                reader.execute("SELECT count(*) FROM events").fetchone()
                reading.set()
                done.wait(10)

        t = threading.Thread(target=read)
        t.start()
        try:
            reading.wait(10)
            with psycopg.connect(url, autocommit=True) as conn:
                assert partitions.ensure(conn) == []
                assert [b for _, b in partitions.bounds(conn)] == [None, 1_000_000, 2_000_000]
        finally:
            done.set()
            t.join()
        with psycopg.connect(url, autocommit=True) as conn:
            assert partitions.ensure(conn) == ["events_p000002000000"]


def test_while_one_process_attaches_another_leaves_it_to_him(servers):
    with fresh_database(servers.database_url, "banco_part") as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ALTER TABLE events ALTER COLUMN position RESTART WITH 1500000")
            conn.execute("SELECT nextval(pg_get_serial_sequence('events', 'position'))")
        with psycopg.connect(url) as first, psycopg.connect(url, autocommit=True) as second:
            first.execute("SELECT pg_advisory_xact_lock(%s)", (partitions.UPKEEP_LOCK,))
            assert partitions.ensure(second) == []
            first.rollback()
            assert partitions.ensure(second) == ["events_p000002000000"]
