"""A log holding events stored under an older schema version reads, rebuilds, verifies and
checkpoints as one of current events: TreasurePosted version 1 (`memo`, tests/events/versions.py)
stored next to version 2, on a copy of a played log."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from events.catalog import default_types
from events.model import NewEvent, canonical_json, chain_hash
from events.postgres import COLUMNS, PostgresEventStore, stored_event
from projections.rebuild import rebuild_all
from service.verification import checkpoints
from service.verification.chain_check import chain_check
from service.verification.hand_log import load_table
from service.verification.merkle import leaf
from service.verification.verify import verify_hand
from tests.events.versions import after_the_rename, as_v1
from tests.service.tamper import log_copy

PROJECTIONS = ("balances", "balance_history", "players", "tables", "hands")


@pytest.fixture
def copy(database_url, played) -> Iterator[psycopg.Connection]:
    with log_copy(database_url) as conn:
        yield conn


def snapshot(conn: psycopg.Connection) -> dict[str, list[Any]]:
    """Every projection's rows (but the time a table row was last written)."""
    return {name: [r[0] for r in conn.execute(
        f"SELECT to_jsonb(t) - 'updated_at' FROM {name} t ORDER BY 1")] for name in PROJECTIONS}


def store_as_two_releases(conn: psycopg.Connection) -> None:
    """Every other posting of the log stored as version 1 wrote it, the rest as version 2, and
    each chain hashed over those bytes, as the store of each release would have."""
    rows = conn.execute("SELECT position, stream_id, data FROM events"
                        " WHERE type = 'TreasurePosted' ORDER BY position").fetchall()
    # executemany sends each batch in one pipeline: the copy holds the whole session's log.
    with conn.cursor() as cur:
        cur.executemany("UPDATE events SET schema_version = %s, data = %s WHERE position = %s",
                        [(2, Jsonb(data), position) if i % 2 else (1, Jsonb(as_v1(data)), position)
                         for i, (position, _, data) in enumerate(rows)])
    rehashed, heads = [], []
    for stream in sorted({r[1] for r in rows}):
        head = b""
        events = conn.execute("SELECT version, type, schema_version, data, metadata FROM events"
                              " WHERE stream_id = %s ORDER BY version", (stream,)).fetchall()
        for version, type_, schema_version, data, metadata in events:
            head = chain_hash(head, canonical_json(stream, NewEvent(type_, data, metadata,
                                                                    schema_version)))
            rehashed.append((head, stream, version))
        heads.append((head, stream))
    with conn.cursor() as cur:
        cur.executemany("UPDATE events SET hash = %s WHERE stream_id = %s AND version = %s", rehashed)
        cur.executemany("UPDATE streams SET head = %s WHERE stream_id = %s", heads)


def test_projections_rebuilt_from_old_version_events_equal_those_of_current_ones(copy):
    rebuild_all(copy)
    current = snapshot(copy)
    assert current["balance_history"] and current["hands"]
    store_as_two_releases(copy)
    rebuild_all(copy, after_the_rename(default_types()))
    assert snapshot(copy) == current


def test_every_reader_sees_the_current_version_and_proofs_cover_the_stored_one(copy, played, app):
    types = after_the_rename(default_types())
    store_as_two_releases(copy)
    saved = checkpoints.record(copy)
    stream = played["stream"]
    table = load_table(copy, stream[len("table-"):], types)
    assert table is not None
    postings = [e for e in table.events if e.type == "TreasurePosted"]
    assert {e.stored[0] if e.stored else None for e in postings} == {1, None}
    store = PostgresEventStore(app.extensions["banco.pool"], types)
    for read in (postings, [e for e in store.read_stream(stream, conn=copy)
                            if e.type == "TreasurePosted"]):
        assert all(e.schema_version == 2 and "reason" in e.data and "memo" not in e.data
                   for e in read)
    assert chain_check(copy, table.events).passed
    report = verify_hand(copy, played["hand"], types)
    assert report is not None and report["passed"], report
    assert checkpoints.compare(copy, saved)["passed"]
    old = copy.execute(f"SELECT {COLUMNS} FROM events WHERE schema_version = 1"
                       " AND type = 'TreasurePosted' LIMIT 1").fetchone()
    assert leaf(stored_event(old, types)) == leaf(stored_event(old, None))
