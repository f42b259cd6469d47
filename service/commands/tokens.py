"""Bearer tokens of players and auditors as the application changes them: issued and revoked,
each change an event for the subject's stream (`player-<id>`, `auditor-<id>`).

A token is stored only as its SHA-256, under an id (`tk_...`) that events and answers may name.
Revoking deletes its row: every API process looks tokens up in the database on each request, so
the next request with it is a 401 wherever it lands. Each change is made with the subject's row
locked (`lock_subject`), so two changes of one subject's tokens queue.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any, Literal

import psycopg

from events.model import NewEvent
from service.commands import notify
from service.commands.errors import NotFound

Holder = Literal["player", "auditor"]
_REGISTRY = {  # the table that says the subject exists (and whether he was erased), and its 404
    "player": ("SELECT erased_at IS NOT NULL FROM players WHERE player_id = %s FOR NO KEY UPDATE",
               "player_not_found"),
    "auditor": ("SELECT false FROM auditors WHERE auditor_id = %s FOR NO KEY UPDATE",
                "auditor_not_found"),
}


def new_token() -> tuple[str, bytes]:
    """A bearer token to show once, and the hash that is stored."""
    token = "bnc_" + secrets.token_urlsafe(32)
    return token, token_hash(token)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def stream(role: Holder, subject: str) -> str:
    return f"{role}-{subject}"


def lock_subject(conn: psycopg.Connection, role: Holder, subject: str) -> bool:
    """Lock the player's or auditor's row for the rest of the transaction (NotFound when
    unknown); whether he was erased."""
    sql, code = _REGISTRY[role]
    row = conn.execute(sql, (subject,)).fetchone()
    if row is None:
        raise NotFound(code, f"no {role} {subject}")
    return bool(row[0])


def issued_ids(conn: psycopg.Connection, role: Holder, subject: str) -> list[str]:
    """The id of every token ever issued to `subject`, live or not, from his stream."""
    rows = conn.execute("SELECT data->>'token_id' FROM events WHERE stream_id = %s"
                        " AND type = 'TokenIssued'", (stream(role, subject),)).fetchall()
    return [token_id for (token_id,) in rows]


def event(kind: str, role: str, subject: str, token_id: str,
          metadata: dict[str, Any]) -> NewEvent:
    return NewEvent(kind, {"role": role, "subject": subject, "token_id": token_id,
                           "actor": metadata["actor"]}, metadata)


def issue(conn: psycopg.Connection, role: Holder, subject: str,
          metadata: dict[str, Any]) -> tuple[dict[str, Any], NewEvent]:
    """A new token for `subject` (shown once, in the returned dict) and its `TokenIssued` event,
    for the caller to append."""
    token, digest = new_token()
    token_id = "tk_" + secrets.token_hex(8)
    conn.execute(
        "INSERT INTO tokens (token_hash, role, subject, token_id) VALUES (%s, %s, %s, %s)",
        (digest, role, subject, token_id))
    issued = {"token_id": token_id, "role": role, "subject": subject, "token": token}
    return issued, event("TokenIssued", role, subject, token_id, metadata)


def revoke_all(conn: psycopg.Connection, role: Holder, subject: str,
               metadata: dict[str, Any]) -> list[NewEvent]:
    """Revoke every token of `subject`; a `TokenRevoked` event each, for the caller to append."""
    rows = conn.execute(
        "DELETE FROM tokens WHERE role = %s AND subject = %s RETURNING token_id",
        (role, subject)).fetchall()
    if rows:
        notify.revoked(conn, f"{role}:{subject}")
    return [event("TokenRevoked", role, subject, token_id, metadata)
            for (token_id,) in sorted(rows)]
