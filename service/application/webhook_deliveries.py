"""A webhook subscription's deliveries as the application records them: each attempt to send an
event, and the cursor moved past events sent or skipped.

Each command is data; its handler runs it in the caller's transaction (the delivery
worker's, `workers.webhooks`, which does the sending). They append no event: a delivery's record
is the subscription's state, not the log's. Each names the subscription's generation the delivery
began in: a pause or replay by the operator since then moves it on, and the subscription is left
as the operator set it (an attempt is still recorded: it was made).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import psycopg

from events.model import Checkpoint
from service.application.postgres_unit_of_work import PostgresUnitOfWork

Outcome = Literal["delivered", "failed", "paused"]


@dataclass(frozen=True)
class RecordAttempt:
    """One attempt to send the event at `at`, and what came of it."""

    subscription_id: str
    generation: int
    at: Checkpoint
    webhook_id: str
    event_type: str
    status_code: int | None  # None when the receiver gave no answer
    error: str | None  # what went wrong short of an answer (a timeout, an address refused)
    duration_ms: int
    retry_in_s: float  # after a failure, the wait before the next try
    max_failures: int  # failed attempts in a row after which the subscription pauses


@dataclass(frozen=True)
class MoveCursor:
    """Move the subscription's cursor to `cursor`: past events it does not want, in one step."""

    subscription_id: str
    generation: int
    cursor: Checkpoint


# One attempt's record and its effect on the subscription, in one statement: the delivery row
# (its attempt count), the attempt, and the cursor moved past the event when it was delivered.
RECORD = """
WITH d AS (
    INSERT INTO webhook_deliveries AS d (subscription_id, position, webhook_id, event_type, status,
                                         attempts, delivered_at)
    VALUES (%(sid)s, %(position)s, %(webhook_id)s, %(type)s, %(status)s, 1,
            CASE WHEN %(ok)s THEN now() END)
    ON CONFLICT (subscription_id, position) DO UPDATE
    SET attempts = d.attempts + 1, status = EXCLUDED.status,
        delivered_at = coalesce(EXCLUDED.delivered_at, d.delivered_at)
    RETURNING attempts
), a AS (
    INSERT INTO webhook_attempts (subscription_id, position, attempt, status_code, error,
                                  duration_ms)
    SELECT %(sid)s, %(position)s, attempts, %(code)s, %(error)s, %(ms)s FROM d
)
UPDATE webhook_subscriptions
SET cursor_txid = CASE WHEN %(ok)s THEN %(txid)s ELSE cursor_txid END,
    cursor_position = CASE WHEN %(ok)s THEN %(position)s ELSE cursor_position END,
    failures = CASE WHEN %(ok)s THEN 0 ELSE failures + 1 END,
    next_attempt_at = CASE WHEN %(ok)s THEN now() ELSE now() + make_interval(secs => %(wait)s) END,
    status = CASE WHEN NOT %(ok)s AND failures + 1 >= %(max)s THEN 'paused' ELSE status END,
    paused_reason = CASE WHEN NOT %(ok)s AND failures + 1 >= %(max)s
                         THEN format('%%s failed attempts in a row; the last: %%s', failures + 1,
                                     %(error)s) END,
    generation = CASE WHEN NOT %(ok)s AND failures + 1 >= %(max)s THEN generation + 1
                      ELSE generation END,
    updated_at = now()
WHERE subscription_id = %(sid)s AND generation = %(generation)s
RETURNING status
"""


def record_attempt(conn: psycopg.Connection, command: RecordAttempt) -> Outcome | None:
    """Record the attempt; delivered (a 2xx), failed (its next try scheduled), paused (after
    `max_failures` in a row), or None when the operator moved the subscription meanwhile (the
    attempt recorded, the subscription as he left it) or deleted it (nothing recorded)."""
    code = command.status_code
    ok = command.error is None and code is not None and 200 <= code < 300
    error = command.error if ok or command.error is not None else f"HTTP {code}"
    try:
        recorded = _record(conn, command, ok, error)
    except psycopg.errors.ForeignKeyViolation:
        return None  # the operator deleted the subscription meanwhile: nothing to record it for
    if recorded is None:
        return None
    return "delivered" if ok else ("paused" if recorded[0] == "paused" else "failed")


def _record(conn: psycopg.Connection, command: RecordAttempt, ok: bool,
            error: str | None) -> tuple[Any, ...] | None:
    code = command.status_code
    return conn.execute(RECORD, {
        "sid": command.subscription_id, "position": command.at.position, "txid": command.at.txid,
        "webhook_id": command.webhook_id, "type": command.event_type,
        "status": "delivered" if ok else "pending", "ok": ok, "code": code,
        "error": error, "ms": command.duration_ms, "wait": command.retry_in_s,
        "max": command.max_failures, "generation": command.generation,
    }).fetchone()


def move_cursor(conn: psycopg.Connection, command: MoveCursor) -> bool:
    """Whether the cursor moved (not when the operator moved the subscription meanwhile)."""
    return conn.execute(
        "UPDATE webhook_subscriptions SET cursor_txid = %s, cursor_position = %s"
        " WHERE subscription_id = %s AND generation = %s",
        (command.cursor.txid, command.cursor.position, command.subscription_id,
         command.generation)).rowcount == 1


def attempt(uow: PostgresUnitOfWork, command: RecordAttempt, metadata: dict[str, Any]
            ) -> Outcome | None:
    return record_attempt(uow.connection, command)


def skip(uow: PostgresUnitOfWork, command: MoveCursor, metadata: dict[str, Any]) -> bool:
    return move_cursor(uow.connection, command)
