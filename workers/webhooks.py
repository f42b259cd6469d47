"""Webhook delivery: each subscription's events, in the log's order, at least once.

Everything a delivery needs to go on is in PostgreSQL: the subscription's cursor (the last event
sent or skipped), its failures and when to try again. The sweeper queues a job for each
subscription with events past its cursor whose next try is due; the job sends them one by one,
each confirmed by a 2xx before the next goes, and moves the cursor after each. A failure records
the attempt and schedules the next try with an exponential backoff; after
`BANCO_WEBHOOK_MAX_FAILURES` in a row the subscription pauses, its reason shown to the operator.

A worker killed mid-delivery leaves the cursor before the event it was sending, so that event
goes again (with the same `webhook-id`): at least once, in order. Redis only carries the wake-up:
when it is away, or loses the job, the next sweeps find the subscription due again in PostgreSQL.
"""

from __future__ import annotations

import contextlib
import logging
import time
from datetime import UTC, datetime

import orjson
import psycopg
from redis import Redis, RedisError
from rq import get_current_job
from standardwebhooks.webhooks import Webhook

from events.model import Checkpoint
from service.application import webhook_subscriptions, webhooks
from service.application.bus import handle
from service.application.postgres_unit_of_work import PostgresUnitOfWork
from service.application.webhook_deliveries import MoveCursor, RecordAttempt
from workers import context, webhook_client
from workers.queues import queue, webhook_lane

log = logging.getLogger("banco.webhooks")

# Advisory locks are keyed by two integers: this one says "a webhook subscription", the other is
# the subscription id's hash. A session lock (not a transaction's) is held while sending: a
# transaction held open over an HTTP call would hold back the log's watermark for every reader.
LOCK_SPACE = 0x77686B
BATCH = 200  # events read from the log at a time
BUDGET_S = 5.0  # a job stops after this long, to let other jobs run; the next sweep queues the rest


def backoff_s(failures: int) -> float:
    """The wait after `failures` failed attempts in a row: doubling from the base, capped."""
    settings = context.config().webhooks
    return min(settings.backoff_s * 2 ** (failures - 1), settings.backoff_max_s)


def max_failures() -> int:
    """Failed attempts in a row after which a subscription pauses."""
    return context.config().webhooks.max_failures


def lease_s() -> int:
    """How long a queued delivery job keeps others from being queued for its subscription: the
    longest a killed worker's subscription waits before another job takes it up."""
    return context.config().webhooks.lease_s


def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int | None, str | None]:
    """POST `body` within `BANCO_WEBHOOK_TIMEOUT_S` in all, to an address allowed
    (`BANCO_WEBHOOK_ALLOW_NETWORKS`); the receiver's status (None if there was none) and what
    went wrong, if anything."""
    settings = context.config().webhooks
    return webhook_client.post(url, body, headers, settings.allow_networks, settings.timeout_s)


def headers_for(signer: Webhook, webhook_id: str, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers for one attempt, signed now."""
    now = datetime.now(UTC)
    return {"Content-Type": "application/json", "User-Agent": "Banco-Webhooks",
            "webhook-id": webhook_id, "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": signer.sign(webhook_id, now, body.decode())}


def deliver(subscription_id: str) -> int:
    """Send the subscription's due events in order until one fails, none is left or the job's
    time is up; returns how many were delivered (0 too when another job holds it)."""
    with context.pool().connection() as conn:
        held = conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))",
                            (LOCK_SPACE, subscription_id)).fetchone()
        if not (held and held[0]):
            return 0
        # A delivery's record need not wait for its WAL flush: lost in a crash of PostgreSQL,
        # it leaves the cursor a little behind, and those events go again with the same ids,
        # which at-least-once allows. (Reset before the connection goes back to the pool.)
        conn.execute("SET synchronous_commit = off")
        try:
            return _deliver(conn, subscription_id)
        finally:
            conn.execute("RESET synchronous_commit")
            conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))",
                         (LOCK_SPACE, subscription_id))


def _deliver(conn: psycopg.Connection, subscription_id: str) -> int:
    row = conn.execute(
        "SELECT url, event_types, cursor_txid, cursor_position, failures, generation"
        " FROM webhook_subscriptions WHERE subscription_id = %s AND status = 'active'"
        " AND next_attempt_at <= now()", (subscription_id,)).fetchone()
    if row is None:
        return 0  # paused, gone, or its next try is not due yet
    url, types, txid, position, failures, generation = row
    signer = Webhook(webhook_subscriptions.secret_of(conn, subscription_id))
    saved = cursor = Checkpoint(txid, position)
    sent, stop_at = 0, time.monotonic() + BUDGET_S
    while time.monotonic() < stop_at:
        events, redactor = webhooks.read(conn, context.store(), cursor, BATCH)
        if not events:
            break
        for stored in events:
            if not webhooks.matches(types, stored.type):
                cursor = Checkpoint(stored.txid, stored.position)
                continue
            if cursor != saved and not _save(conn, subscription_id, generation, cursor):
                return sent  # a skipped stretch first, so a failure below keeps it skipped
            saved = cursor
            out = webhooks.outgoing(stored, redactor)
            status = _attempt(conn, subscription_id, generation, url, signer, out, failures)
            if status != "delivered":
                return sent
            sent, failures, saved = sent + 1, 0, out.at
            cursor = out.at
    if cursor != saved:
        _save(conn, subscription_id, generation, cursor)
    return sent


def _joined(conn: psycopg.Connection) -> PostgresUnitOfWork:
    """The delivery's connection as a unit of work for its commands, which run on it as they
    would on the connection itself."""
    return PostgresUnitOfWork.joining(conn, context.store())


def _save(conn: psycopg.Connection, subscription_id: str, generation: int, cursor: Checkpoint) -> bool:
    return bool(handle(MoveCursor(subscription_id, generation, cursor), _joined(conn)))


def _attempt(conn: psycopg.Connection, subscription_id: str, generation: int, url: str,
             signer: Webhook, out: webhooks.Outgoing, failures: int) -> str | None:
    """Send one event once and record it; 'delivered', 'failed', 'paused', or None when the
    operator moved the subscription meanwhile."""
    webhook_id = f"{subscription_id}_{out.at.position}"
    body = orjson.dumps(out.body)
    began = time.monotonic()
    code, error = post(url, body, headers_for(signer, webhook_id, body))
    ms = int((time.monotonic() - began) * 1000)
    outcome: str | None = handle(RecordAttempt(
        subscription_id, generation, out.at, webhook_id, out.type, code, error, ms,
        backoff_s(failures + 1), max_failures()), _joined(conn))
    if error is not None or code is None or not 200 <= code < 300:
        log.info("webhook %s to subscription %s failed: %s", webhook_id, subscription_id,
                 error or f"HTTP {code}")
    return outcome


def job(subscription_id: str) -> int:
    """The RQ job: deliver, then let the sweeper queue the subscription again at once."""
    try:
        return deliver(subscription_id)
    finally:
        current = get_current_job()
        if current is not None:
            # Redis away: the key expires after its lease instead.
            with contextlib.suppress(RedisError):
                current.connection.delete(_queued_key(current.origin, subscription_id))


def _queued_key(queue_name: str, subscription_id: str) -> str:
    return f"banco:{queue_name}:webhook-queued:{subscription_id}"


# Due: active, its next try's time come, and an event past its cursor below the watermark.
DUE = """
SELECT subscription_id FROM webhook_subscriptions s
WHERE status = 'active' AND next_attempt_at <= now()
AND EXISTS (SELECT 1 FROM events e
            WHERE (e.txid, e.position) > (s.cursor_txid::text::xid8, s.cursor_position)
            AND e.txid < pg_snapshot_xmin(pg_current_snapshot()))
ORDER BY next_attempt_at LIMIT 500
"""


def due(conn: psycopg.Connection) -> list[str]:
    """The subscriptions with something to send now."""
    return [r[0] for r in conn.execute(DUE).fetchall()]


def enqueue_due(connection: Redis, queue_name: str) -> int:
    """Queue a delivery job for each due subscription that has none queued, on the webhooks'
    lane beside `queue_name`; how many were."""
    with context.pool().connection() as conn:
        ids = due(conn)
    queued, lane = 0, webhook_lane(queue_name)
    for subscription_id in ids:
        # One job at a time per subscription: the key lasts until the job ends, or its lease
        # runs out when the worker running it was killed.
        if connection.set(_queued_key(lane, subscription_id), 1, nx=True, ex=lease_s()):
            queue(connection, lane).enqueue(job, subscription_id, result_ttl=60,
                                            failure_ttl=3600)
            queued += 1
    return queued
