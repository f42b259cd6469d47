"""The operator's scoped API keys as the application changes them: created, rotated and
revoked, each change an event of the key's stream (`operator-key-<id>`), as tokens' are.

A key is shown once, as it is created or rotated, and stored only as its SHA-256 under an id
(`ok_...`) that events, answers and log lines name. It carries a name, its scopes
(`service.application.scopes`) and an optional expiry, past which it is refused as a revoked
one is. Rotating replaces its secret and keeps its id, name, scopes and expiry; revoking drops
its hash and keeps the rest, listed as revoked. The hashes a key no longer has are kept apart
(`operator_key_retired_hashes`), only to name the key in the log line of a request that still
sends one of its old secrets. Each change is made with the key's row held
(`Credentials.lock_operator_key`), so two changes of one key queue.

A key may grant only the scopes it holds: a key with `keys:admin` alone can make keys that do
nothing else, not one that can do everything.

A revocation and a rotation are published (`KeyRevoking`, `KeyRotating`) before they commit: the
API keeps them, ids and times only, in the journal that a restore of the database does not take
back (`service.application.erasure_journal`). After a restore, `RevokeKey` revokes again a key the
restored database holds live, and `RetireKeySecret` replaces, by one shown to nobody, a secret a
rotation had retired.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from events.model import NewEvent
from service.application.errors import Conflict, Forbidden, Invalid
from service.application.scopes import ALL, SCOPES
from service.application.unit_of_work import UnitOfWork

PREFIX = "bok_"  # every operator key starts with it: its look-up goes to its own table
NAME_MAX = 100
# The farthest expiry a key may have, in years from now (to the day: 29 February goes to the 28th
# in a year that has none): one that must outlive this is better made with none.
LONGEST_YEARS = 10


def farthest_expiry(now: datetime) -> datetime:
    """`LONGEST_YEARS` years from `now`, on the calendar."""
    try:
        return now.replace(year=now.year + LONGEST_YEARS)
    except ValueError:  # 29 February, in a year that has none
        return now.replace(year=now.year + LONGEST_YEARS, day=28)


@dataclass(frozen=True)
class CreateKey:
    """Make a key named `name` with `scopes`, that expires at `expires_at` (never when None),
    on behalf of a key that holds `granting` and expires at `granting_expires` (never when
    None): the new key may not outlive it."""

    name: str
    scopes: tuple[str, ...]
    expires_at: datetime | None = None
    granting: Collection[str] = ALL
    granting_expires: datetime | None = None


@dataclass(frozen=True)
class RotateKey:
    """Replace the key's secret by a new one: the old stops working at once. On behalf of a key
    that holds `granting`: a new secret is the key's scopes handed over, so they must be held."""

    key_id: str
    granting: Collection[str] = ALL


@dataclass(frozen=True)
class RevokeKey:
    """Revoke the key for good (a revoked key is not revoked again: nothing is appended)."""

    key_id: str


@dataclass(frozen=True)
class RetireKeySecret:
    """Replace the key's secret by one shown to nobody if the secret it holds was issued at or
    before `issued_at` (when a rotation since retired it): a secret a restore of the database
    brought back. The key stays, with its name and scopes: a rotation gives it a usable secret."""

    key_id: str
    issued_at: datetime


@dataclass(frozen=True)
class KeyRevoking:
    """Told to the process's subscribers (`bus.Bus`) as a key's revocation is about to commit."""

    key_id: str
    actor: str


@dataclass(frozen=True)
class KeyRotating:
    """Told to the process's subscribers as a key's rotation is about to commit: the secret it
    retires is named by when it was issued (`issued_at`, the key's creation or last rotation as
    the database holds it), never by itself or its hash."""

    key_id: str
    issued_at: datetime
    actor: str


def new_secret() -> tuple[str, bytes]:
    """A key to show once, and the hash that is stored."""
    secret = PREFIX + secrets.token_urlsafe(32)
    return secret, secret_hash(secret)


def secret_hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def stream(key_id: str) -> str:
    return f"operator-key-{key_id}"


def create(uow: UnitOfWork, command: CreateKey, metadata: dict[str, Any]) -> dict[str, Any]:
    """The key made, with its secret (shown once) in `secret`. Invalid for a name that is blank
    or too long, no scope or an unknown one, or an expiry not in the future or more than about
    ten years away; Forbidden
    (`scope_not_held`) for a scope the granting key does not hold."""
    name = command.name.strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise Invalid("invalid_name", f"a key's name is 1 to {NAME_MAX} characters")
    scopes = sorted(set(command.scopes))
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown or not scopes:
        raise Invalid("unknown_scope", f"no such scope: {', '.join(unknown)}" if unknown
                      else "a key holds at least one scope", unknown=unknown,
                      known=list(SCOPES))
    not_held = [s for s in scopes if s not in command.granting]
    if not_held:
        raise Forbidden("scope_not_held", "a key grants only scopes it holds; this one lacks"
                        f" {', '.join(not_held)}", scope=not_held[0], missing=not_held)
    expires_at, limit = command.expires_at, command.granting_expires
    if expires_at is None:
        # A key made by one that expires ends with it: temporary access stays temporary.
        expires_at = limit
    elif expires_at.tzinfo is None:
        expires_at = expires_at.replace(tzinfo=UTC)
    if expires_at is not None:
        if expires_at <= datetime.now(UTC):
            raise Invalid("expiry_passed", "a key's expiry must be in the future")
        if expires_at > (farthest := farthest_expiry(datetime.now(UTC))):
            raise Invalid("expiry_too_far", "a key's expiry is at most ten years away: for one"
                          " that must last longer, give none", limit=farthest.isoformat())
        if limit is not None and expires_at > limit:
            raise Invalid("expiry_too_far", "a key may not outlive the key that makes it,"
                          f" which expires at {limit.isoformat()}", limit=limit.isoformat())
    secret, digest = new_secret()
    key_id = "ok_" + secrets.token_hex(8)
    created_at = _append(uow, key_id, NewEvent("OperatorKeyCreated", {
        "key_id": key_id, "name": name, "scopes": scopes,
        "expires_at": None if expires_at is None else expires_at.isoformat(),
        "actor": metadata["actor"]}, metadata))
    uow.credentials.add_operator_key(key_id, digest, name, scopes, expires_at, created_at)
    key = {"id": key_id, "name": name, "scopes": scopes, "status": "active",
           "expires_at": expires_at, "created_at": created_at, "rotated_at": None,
           "revoked_at": None}
    return {"key": key, "secret": secret}


def rotate(uow: UnitOfWork, command: RotateKey, metadata: dict[str, Any]) -> dict[str, Any]:
    """The key with its new secret (shown once) in `secret`. NotFound for no such key; Conflict
    `key_revoked` or `key_expired` for a key that no longer works, which is not given one;
    Forbidden (`scope_not_held`) for a key with a scope the rotating key does not hold."""
    key = _live(uow, command.key_id)
    not_held = [s for s in key["scopes"] if s not in command.granting]
    if not_held:
        raise Forbidden("scope_not_held", "a key rotates only keys whose scopes it holds; this"
                        f" one lacks {', '.join(not_held)}", scope=not_held[0], missing=not_held)
    secret, rotated_at = _replace(uow, command.key_id, metadata)
    uow.publish(KeyRotating(command.key_id, _issued_at(key), metadata["actor"]))
    return {"key": {**key, "rotated_at": rotated_at}, "secret": secret}


def revoke(uow: UnitOfWork, command: RevokeKey, metadata: dict[str, Any]) -> bool:
    """Revoke the key (NotFound for no such key); whether it was revoked now: one revoked
    already is left as it is."""
    key = uow.credentials.lock_operator_key(command.key_id)
    if key["status"] == "revoked":
        return False
    revoked_at = _append(uow, command.key_id,
                         _changed("OperatorKeyRevoked", command.key_id, metadata))
    uow.credentials.revoke_operator_key(command.key_id, revoked_at)
    uow.publish(KeyRevoking(command.key_id, metadata["actor"]))
    return True


def retire_secret(uow: UnitOfWork, command: RetireKeySecret, metadata: dict[str, Any]) -> bool:
    """Replace the key's secret by one shown to nobody, with an `OperatorKeyRotated` event, if
    it was issued at or before `command.issued_at`; whether it was (NotFound for no such key).
    A revoked key, or one rotated since, is left as it is. Not published: it retires again what
    a journal holds."""
    key = uow.credentials.lock_operator_key(command.key_id)
    if key["status"] == "revoked" or _issued_at(key) > command.issued_at:
        return False
    _replace(uow, command.key_id, metadata)  # its secret is dropped here, seen by no one
    return True


def _issued_at(key: dict[str, Any]) -> datetime:
    """When the key's secret was issued: its last rotation, else its creation."""
    issued_at: datetime = key["rotated_at"] or key["created_at"]
    return issued_at


def _replace(uow: UnitOfWork, key_id: str, metadata: dict[str, Any]) -> tuple[str, datetime]:
    """Give the key a new secret; it, and when it was issued."""
    secret, digest = new_secret()
    rotated_at = _append(uow, key_id, _changed("OperatorKeyRotated", key_id, metadata))
    uow.credentials.replace_operator_key(key_id, digest, rotated_at)
    return secret, rotated_at


def _live(uow: UnitOfWork, key_id: str) -> dict[str, Any]:
    key = uow.credentials.lock_operator_key(key_id)
    if key["status"] == "revoked":
        raise Conflict("key_revoked", f"{key_id} was revoked: make a new key")
    if key["status"] == "expired":
        raise Conflict("key_expired", f"{key_id} has expired: make a new key")
    return key


def _changed(kind: str, key_id: str, metadata: dict[str, Any]) -> NewEvent:
    return NewEvent(kind, {"key_id": key_id, "actor": metadata["actor"]}, metadata)


def _append(uow: UnitOfWork, key_id: str, event: NewEvent) -> datetime:
    """Append the key's event; when it was recorded, which the key's row and the answer give as
    the time of the change, to the microsecond."""
    uow.append(stream(key_id), [event], None)
    [stored] = uow.flush()
    return stored.recorded_at
