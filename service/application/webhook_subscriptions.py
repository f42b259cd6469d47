"""Webhook subscriptions: registered, listed, paused, resumed and replayed by the operator.

Each command is data, handled on PostgreSQL's unit of work (`service.application.bus`); they
append no event: a subscription is the operator's setting, not the log's.

A subscription's signing secret is shown once, when it is created. It is stored sealed
(AES-256-GCM, events/personal_data.py) under a key of the subscription's own, kept in another
table: neither table alone yields it, and it never reaches a log line or an answer again.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import psycopg
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from events import personal_data
from service.application import event_names, webhook_addresses
from service.application.errors import Invalid, NotFound
from service.application.postgres_unit_of_work import PostgresUnitOfWork
from service.runtime.config import Network

PREFIX = "whsec_"
SECRET_FIELD = "webhook_secret"
SECRET_BYTES = (24, 64)  # what Standard Webhooks asks of a secret's length
NOT_ALLOWED = ("the URL's host must resolve to public addresses only, or to ones in the ranges"
               " the operator allows (BANCO_WEBHOOK_ALLOW_NETWORKS)")

COLUMNS = ("subscription_id, url, event_types, status, paused_reason, cursor_txid, cursor_position,"
           " failures, next_attempt_at, created_at, updated_at")


@dataclass(frozen=True)
class CreateWebhook:
    """Subscribe `url` to `event_types` (every type when empty), signed with `secret` or one
    made for it; its host must be public, or in the ranges the operator allows."""

    url: str
    event_types: list[str]
    secret: str | None = None
    allow_networks: Sequence[Network] = ()


@dataclass(frozen=True)
class PauseWebhook:
    subscription_id: str
    reason: str = "paused by the operator"


@dataclass(frozen=True)
class ResumeWebhook:
    subscription_id: str


@dataclass(frozen=True)
class ReplayWebhook:
    """Send again from the event at `position` (0: the log's beginning)."""

    subscription_id: str
    position: int


@dataclass(frozen=True)
class DeleteWebhook:
    """Delete the subscription, its secret and its deliveries' records: nothing more is sent."""

    subscription_id: str


def subscribe(uow: PostgresUnitOfWork, command: CreateWebhook, metadata: dict[str, Any]
              ) -> tuple[dict[str, Any], str]:
    return create(uow.connection, command.url, command.event_types, command.secret,
                  command.allow_networks)


def pause_subscription(uow: PostgresUnitOfWork, command: PauseWebhook,
                       metadata: dict[str, Any]) -> dict[str, Any]:
    return pause(uow.connection, command.subscription_id, command.reason)


def resume_subscription(uow: PostgresUnitOfWork, command: ResumeWebhook,
                        metadata: dict[str, Any]) -> dict[str, Any]:
    return resume(uow.connection, command.subscription_id)


def delete_subscription(uow: PostgresUnitOfWork, command: DeleteWebhook,
                        metadata: dict[str, Any]) -> None:
    """NotFound when there is no such subscription. A delivery under way finds it gone when it
    records its attempt, and records nothing (`webhook_deliveries.record_attempt`)."""
    conn = uow.connection
    load(conn, command.subscription_id)
    # Its key and deliveries go with it (ON DELETE CASCADE); the attempts are keyed apart.
    conn.execute("DELETE FROM webhook_subscriptions WHERE subscription_id = %s",
                 (command.subscription_id,))
    conn.execute("DELETE FROM webhook_attempts WHERE subscription_id = %s",
                 (command.subscription_id,))


def replay_subscription(uow: PostgresUnitOfWork, command: ReplayWebhook,
                        metadata: dict[str, Any]) -> dict[str, Any]:
    return replay(uow.connection, command.subscription_id, command.position)


def _row(row: tuple[Any, ...]) -> dict[str, Any]:
    (sid, url, types, status, reason, txid, position, failures, next_at, created, updated) = row
    return {"id": sid, "url": url, "event_types": list(types), "status": status,
            "paused_reason": reason, "cursor": {"txid": txid, "position": position},
            "failures": failures, "next_attempt_at": next_at if status == "active" else None,
            "created_at": created, "updated_at": updated}


def check_url(url: str, allow: Sequence[Network]) -> str:
    """`url` if webhooks can be sent to it: http or https, to a host that resolves to addresses
    webhooks may go to (public ones, or in `allow`)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Invalid("invalid_url", "the URL must be http:// or https:// with a host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Invalid("invalid_url", "the URL's port is not a port") from None
    try:
        webhook_addresses.addresses(parts.hostname, port, allow, webhook_addresses.RESOLVE_S)
    except webhook_addresses.NotAllowed:
        # One answer for every reason (a private address, no address at all): the refusal tells
        # nothing of the network behind the service. Named by field, as a schema's errors are.
        raise Invalid("url_not_allowed", NOT_ALLOWED, errors={"json": {"url": [NOT_ALLOWED]}}) \
            from None
    return url


def check_secret(secret: str) -> str:
    """`secret` if it is a Standard Webhooks secret: `whsec_` and 24 to 64 bytes in base64."""
    try:
        raw = base64.b64decode(secret.removeprefix(PREFIX), validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if not secret.startswith(PREFIX) or not SECRET_BYTES[0] <= len(raw) <= SECRET_BYTES[1]:
        raise Invalid("invalid_secret",
                      f"the secret must be {PREFIX} followed by 24 to 64 bytes in base64")
    return secret


def create(conn: psycopg.Connection, url: str, event_types: list[str], secret: str | None,
           allow: Sequence[Network] = ()) -> tuple[dict[str, Any], str]:
    """Register a subscription, which sends the events recorded from now on; returns it and its
    secret (made here unless given). Its URL's host must be public, or in `allow`."""
    check_url(url, allow)
    unknown = [t for t in event_types if not event_names.known_pattern(t)]
    if unknown:
        raise Invalid("unknown_event_type", f"no such event type: {', '.join(unknown)}",
                      unknown=unknown)
    secret = check_secret(secret) if secret is not None else \
        PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()
    subscription_id = "wh_" + secrets.token_hex(8)
    key = AESGCM.generate_key(bit_length=256)
    sealed = personal_data.seal(key, subscription_id, SECRET_FIELD, secret)
    # It starts after the last event below the watermark: one of a transaction still open may
    # yet commit there, and is sent; none recorded before the watermark ever is.
    conn.execute(
        "INSERT INTO webhook_subscriptions (subscription_id, url, event_types, secret_enc,"
        " cursor_txid, cursor_position)"
        " SELECT %s, %s, %s, %s, coalesce(max(txid::text::bigint), 0), coalesce(max(position), 0)"
        " FROM (SELECT txid, position FROM events"
        "       WHERE txid < pg_snapshot_xmin(pg_current_snapshot())"
        "       ORDER BY txid DESC, position DESC LIMIT 1) AS last",
        (subscription_id, url, sorted(set(event_types)), sealed))
    conn.execute("INSERT INTO webhook_keys (subscription_id, key) VALUES (%s, %s)",
                 (subscription_id, key))
    return load(conn, subscription_id), secret


def secret_of(conn: psycopg.Connection, subscription_id: str) -> str:
    """The subscription's signing secret, for signing its deliveries."""
    row = conn.execute("SELECT s.secret_enc, k.key FROM webhook_subscriptions s"
                       " JOIN webhook_keys k USING (subscription_id) WHERE subscription_id = %s",
                       (subscription_id,)).fetchone()
    if row is None:
        raise NotFound("subscription_not_found", f"no webhook subscription {subscription_id}")
    secret = personal_data.unseal(bytes(row[1]), subscription_id, SECRET_FIELD, row[0])
    assert secret is not None, "a subscription's secret opens under its own key"
    return secret


def load(conn: psycopg.Connection, subscription_id: str) -> dict[str, Any]:
    """One subscription (never its secret)."""
    row = conn.execute(f"SELECT {COLUMNS} FROM webhook_subscriptions WHERE subscription_id = %s",
                       (subscription_id,)).fetchone()
    if row is None:
        raise NotFound("subscription_not_found", f"no webhook subscription {subscription_id}")
    return _row(row)


def list_all(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Every subscription, oldest first."""
    rows = conn.execute(f"SELECT {COLUMNS} FROM webhook_subscriptions"
                        " ORDER BY created_at, subscription_id").fetchall()
    return [_row(r) for r in rows]


def pause(conn: psycopg.Connection, subscription_id: str, reason: str) -> dict[str, Any]:
    """Stop sending; the cursor stays where it is (pausing a paused one changes nothing)."""
    conn.execute("UPDATE webhook_subscriptions SET status = 'paused', paused_reason = %s,"
                 " generation = generation + 1, updated_at = now()"
                 " WHERE subscription_id = %s AND status = 'active'", (reason, subscription_id))
    return load(conn, subscription_id)


def resume(conn: psycopg.Connection, subscription_id: str) -> dict[str, Any]:
    """Send again, at once, from the cursor: the event it stopped at first."""
    conn.execute("UPDATE webhook_subscriptions SET status = 'active', paused_reason = NULL,"
                 " failures = 0, next_attempt_at = now(), generation = generation + 1,"
                 " updated_at = now() WHERE subscription_id = %s AND status = 'paused'",
                 (subscription_id,))
    return load(conn, subscription_id)


def replay(conn: psycopg.Connection, subscription_id: str, position: int) -> dict[str, Any]:
    """Send again from the event at `position` (0: the log's beginning), in the log's order;
    a paused subscription stays paused and goes on from there when resumed."""
    load(conn, subscription_id)
    if position == 0:
        cursor = (0, 0)
    else:
        row = conn.execute("SELECT txid::text::bigint FROM events WHERE position = %s",
                           (position,)).fetchone()
        if row is None:
            raise Invalid("unknown_position", f"no event at position {position}")
        # Just before it in the log's (txid, position) order.
        cursor = (row[0], position - 1)
    conn.execute("UPDATE webhook_subscriptions SET cursor_txid = %s, cursor_position = %s,"
                 " failures = 0, next_attempt_at = now(), generation = generation + 1,"
                 " updated_at = now() WHERE subscription_id = %s", (*cursor, subscription_id))
    return load(conn, subscription_id)


def deliveries(conn: psycopg.Connection, subscription_id: str, limit: int,
               before: int | None) -> list[dict[str, Any]]:
    """The subscription's deliveries, latest event first, each with its attempts."""
    load(conn, subscription_id)
    rows = conn.execute(
        "SELECT position, webhook_id, event_type, status, attempts, created_at, delivered_at"
        " FROM webhook_deliveries WHERE subscription_id = %s AND position < %s"
        " ORDER BY position DESC LIMIT %s",
        (subscription_id, before if before is not None else 2**62, limit)).fetchall()
    found = {r[0]: {"position": r[0], "webhook_id": r[1], "event_type": r[2], "status": r[3],
                    "attempt_count": r[4], "created_at": r[5], "delivered_at": r[6],
                    "attempts": []} for r in rows}
    if found:
        for position, attempt, at, code, error, ms in conn.execute(
                "SELECT position, attempt, attempted_at, status_code, error, duration_ms"
                " FROM webhook_attempts WHERE subscription_id = %s AND position = ANY(%s)"
                " ORDER BY position, attempt", (subscription_id, list(found))):
            found[position]["attempts"].append({"attempt": attempt, "attempted_at": at,
                                                "status_code": code, "error": error,
                                                "duration_ms": ms})
    return list(found.values())
