"""Checkpoints recorded incrementally: the root of a fold resumed from the latest checkpoint is
the root over the whole log, and only the events since are read."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterator

import psycopg
import pytest
from psycopg.types.json import Jsonb

from events.catalog import default_types
from events.model import NewEvent
from events.postgres import PostgresEventStore, configure_connection, make_pool
from service.verification import checkpoints
from service.verification.merkle import MerkleRoot
from tests.conftest import fresh_database


@pytest.fixture
def log(servers) -> Iterator[tuple[psycopg.Connection, PostgresEventStore]]:
    """A log of the test's own, which it may tamper with."""
    with fresh_database(servers.database_url, "banco_ckpt") as url, \
            make_pool(url, max_size=2) as pool, psycopg.connect(url, autocommit=True) as conn:
        configure_connection(conn)
        yield conn, PostgresEventStore(pool, default_types())


def append(store: PostgresEventStore, count: int) -> None:
    """Append `count` events, and wait until a checkpoint can cover them."""
    for n in range(count):
        store.append(f"s-{secrets.token_hex(4)}", [NewEvent(
            "PlayerRegistered", {"player_id": f"p{n}", "name_enc": secrets.token_hex(4)})], 0)
    # A transaction open anywhere on the server (ids are server-wide) holds the watermark back.
    with store.pool.connection() as conn:
        for _ in range(1200):
            row = conn.execute("SELECT max(txid) < pg_snapshot_xmin(pg_current_snapshot())"
                               " FROM events").fetchone()
            if row is not None and row[0]:
                return
            time.sleep(0.05)


def test_a_resumed_fold_gives_the_root_of_the_whole_fold_at_every_split():
    leaves = [hashlib.sha256(str(n).encode()).digest() for n in range(37)]
    for total in range(len(leaves) + 1):
        whole = MerkleRoot()
        for x in leaves[:total]:
            whole.add(x)
        for split in range(total + 1):
            first = MerkleRoot()
            for x in leaves[:split]:
                first.add(x)
            resumed = MerkleRoot.resumed(first.frontier())
            assert resumed.count == split
            for x in leaves[split:total]:
                resumed.add(x)
            assert (resumed.count, resumed.root()) == (whole.count, whole.root())


def test_each_checkpoint_equals_a_digest_of_the_whole_log(log):
    conn, store = log
    first = checkpoints.record(conn)  # an empty log
    assert first["events"] == 0
    append(store, 5)
    second = checkpoints.record(conn)
    append(store, 7)
    third = checkpoints.record(conn)
    fourth = checkpoints.record(conn)  # nothing since
    for saved in (second, third, fourth):
        whole = checkpoints.digest(conn, (saved["txid"], saved["position"]))
        assert {k: saved[k] for k in whole} == whole
        assert checkpoints.compare(conn, saved)["passed"]
    assert (second["events"], third["events"], fourth["events"]) == (5, 12, 12)
    assert fourth["root"] == third["root"] and fourth["position"] == third["position"]


def test_a_checkpoint_reads_only_the_events_after_the_last_one(log):
    """An event before the last checkpoint changed behind the store's back is not read again:
    the new checkpoint still vouches for the history as it was, and comparing the log with it
    (which rereads everything) finds the change."""
    conn, store = log
    append(store, 4)
    before = checkpoints.record(conn)
    conn.execute("ALTER TABLE events DISABLE TRIGGER events_no_update_delete")
    conn.execute("UPDATE events SET data = %s WHERE position = (SELECT min(position) FROM events)",
                 (Jsonb({"player_id": "forged", "name_enc": "forged"}),))
    append(store, 3)
    after = checkpoints.record(conn)

    assert after["events"] == 7
    assert checkpoints.digest(conn, (after["txid"], after["position"]))["root"] != after["root"]
    assert not checkpoints.compare(conn, after)["passed"]
    assert not checkpoints.compare(conn, before)["passed"]


def test_a_frontier_that_does_not_fold_to_its_root_is_not_resumed(log):
    conn, store = log
    append(store, 3)
    checkpoints.record(conn)
    conn.execute("UPDATE audit_checkpoints SET frontier = %s", (bytes(33),))
    append(store, 2)
    found = checkpoints.record(conn)  # folded from the log's start instead
    assert {k: found[k] for k in ("events", "root")} == {
        k: v for k, v in checkpoints.digest(conn).items() if k in ("events", "root")}
