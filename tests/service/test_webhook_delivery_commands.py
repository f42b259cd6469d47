"""The webhook delivery commands run on their own: on a connection of the session's database,
with no worker, no queue and no receiver in sight."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from events.model import Checkpoint
from events.postgres import make_pool
from service.application import webhook_deliveries as deliveries
from service.application import webhook_subscriptions as subscriptions
from service.application.webhook_deliveries import MoveCursor, RecordAttempt

LOCAL = [ipaddress.ip_network("127.0.0.0/8")]


@pytest.fixture
def conn(database_url: str) -> Iterator[psycopg.Connection]:
    pool = make_pool(database_url, max_size=1)
    try:
        with pool.connection() as c:
            yield c
    finally:
        pool.close()


def subscribed(conn: psycopg.Connection) -> str:
    with conn.transaction():
        subscription, _ = subscriptions.create(conn, "http://127.0.0.1:9/hook", [], None, LOCAL)
    return str(subscription["id"])


def state(conn: psycopg.Connection, sid: str) -> tuple[Any, ...]:
    """The subscription's cursor, failures, status, reason and generation."""
    row = conn.execute("SELECT cursor_txid, cursor_position, failures, status, paused_reason,"
                       " generation, next_attempt_at > now() FROM webhook_subscriptions"
                       " WHERE subscription_id = %s", (sid,)).fetchone()
    assert row is not None
    return tuple(row)


def attempt(sid: str, generation: int, at: Checkpoint, code: int | None, error: str | None = None,
            max_failures: int = 3) -> RecordAttempt:
    return RecordAttempt(sid, generation, at, f"{sid}_{at.position}", "PlayerRegistered", code,
                         error, 12, 60.0, max_failures)


def test_a_delivered_attempt_moves_the_cursor_past_its_event_and_clears_the_failures(conn):
    sid = subscribed(conn)
    txid, position, *_, generation, _ = state(conn, sid)
    at = Checkpoint(txid + 1, position + 1)
    assert deliveries.record_attempt(conn, attempt(sid, generation, at, None, "timed out")) == "failed"
    assert state(conn, sid)[:4] == (txid, position, 1, "active")
    assert state(conn, sid)[6] is True  # its next try waits

    assert deliveries.record_attempt(conn, attempt(sid, generation, at, 204)) == "delivered"
    assert state(conn, sid) == (at.txid, at.position, 0, "active", None, generation, False)
    [delivery] = subscriptions.deliveries(conn, sid, 10, None)
    assert (delivery["position"], delivery["status"], delivery["attempt_count"]) == (
        at.position, "delivered", 2)
    assert [(a["status_code"], a["error"], a["duration_ms"]) for a in delivery["attempts"]] == [
        (None, "timed out", 12), (204, None, 12)]


def test_failures_in_a_row_pause_the_subscription_and_a_stale_generation_changes_nothing(conn):
    sid = subscribed(conn)
    txid, position, *_, generation, _ = state(conn, sid)
    at = Checkpoint(txid + 1, position + 1)
    assert deliveries.record_attempt(conn, attempt(sid, generation, at, 500, max_failures=2)) == "failed"
    assert deliveries.record_attempt(conn, attempt(sid, generation, at, 503, max_failures=2)) == "paused"
    cursor, moved, failures, status, reason, now_generation, _ = state(conn, sid)
    assert (cursor, moved, failures, status) == (txid, position, 2, "paused")
    assert reason == "2 failed attempts in a row; the last: HTTP 503"
    assert now_generation == generation + 1
    [delivery] = subscriptions.deliveries(conn, sid, 10, None)
    assert (delivery["status"], delivery["attempt_count"]) == ("pending", 2)

    # The job that began before the pause has its last attempt recorded (it was made), but
    # moves no cursor and leaves the subscription paused.
    before = state(conn, sid)
    assert deliveries.record_attempt(conn, attempt(sid, generation, at, 204)) is None
    assert deliveries.move_cursor(conn, MoveCursor(sid, generation, at)) is False
    assert state(conn, sid) == before
    assert subscriptions.deliveries(conn, sid, 10, None)[0]["attempt_count"] == 3


def test_the_cursor_moves_past_skipped_events_in_its_generation_only(conn):
    sid = subscribed(conn)
    txid, position, *_, generation, _ = state(conn, sid)
    skipped = Checkpoint(txid + 5, position + 5)
    assert deliveries.move_cursor(conn, MoveCursor(sid, generation, skipped)) is True
    assert state(conn, sid)[:2] == (skipped.txid, skipped.position)
    assert deliveries.move_cursor(conn, MoveCursor(sid, generation - 1, Checkpoint(0, 0))) is False
    assert state(conn, sid)[:2] == (skipped.txid, skipped.position)
    assert subscriptions.deliveries(conn, sid, 10, None) == []
