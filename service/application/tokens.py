"""Bearer tokens of players and auditors as the application changes them: issued, rotated,
revoked and reissued, each change an event for the subject's stream (`player-<id>`,
`auditor-<id>`).

The commands (`RotateTokens`, `RevokeTokens`, `ReissueToken`, `RetireToken`) are data; their
handlers run them on the caller's unit of work, its credentials
(`service.application.credentials`) and its appends. `issue` and `revoke_all` are the steps other
commands take with theirs (a registration issues a first token, an erasure revokes them all).

Each token a rotation, a revocation or a reissue retires is published (`TokensRetiring`) before
the work commits: the API keeps its id in the journal that a restore of the database does not
take back (`service.application.erasure_journal`), and `RetireToken` retires it again after a
restore that brought it back. An erasure's tokens are not published: its own notice covers them.

A token is stored only as its SHA-256, under an id (`tk_...`) that events and answers may name.
Revoking deletes its row: every API process looks tokens up in the database on each request, so
the next request with it is a 401 wherever it lands. Each change is made with the subject's row
held (`Credentials.lock_subject`), so two changes of one subject's tokens queue.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from events.model import NewEvent
from service.application.credentials import Holder
from service.application.errors import Conflict
from service.application.unit_of_work import UnitOfWork

__all__ = ["Holder", "ReissueToken", "RetireToken", "RevokeTokens", "RotateTokens",
           "TokensRetiring"]


@dataclass(frozen=True)
class RotateTokens:
    """Revoke the subject's tokens and issue him one in their place."""

    role: Holder
    subject: str


@dataclass(frozen=True)
class RevokeTokens:
    """Revoke every token of the subject, until one is issued to him again."""

    role: Holder
    subject: str


@dataclass(frozen=True)
class ReissueToken:
    """Replace one token by a new one of the same subject: for the replay of an answer that
    issued it, whose client may have lost it."""

    token_id: str


@dataclass(frozen=True)
class RetireToken:
    """Revoke the one token `token_id` if it is still valid, and issue nothing: a token a
    restore of the database brought back after it was revoked or replaced."""

    token_id: str


@dataclass(frozen=True)
class TokensRetiring:
    """Told to the process's subscribers (`bus.Bus`) when tokens are revoked or replaced and
    about to commit: the API keeps their ids (never the tokens) in the journal, where a restore
    of the database to an earlier point does not take them back."""

    role: Holder
    subject: str
    token_ids: tuple[str, ...]
    actor: str


def new_token() -> tuple[str, bytes]:
    """A bearer token to show once, and the hash that is stored."""
    token = "bnc_" + secrets.token_urlsafe(32)
    return token, token_hash(token)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def stream(role: Holder, subject: str) -> str:
    return f"{role}-{subject}"


def event(kind: str, role: str, subject: str, token_id: str,
          metadata: dict[str, Any]) -> NewEvent:
    return NewEvent(kind, {"role": role, "subject": subject, "token_id": token_id,
                           "actor": metadata["actor"]}, metadata)


def issue(uow: UnitOfWork, role: Holder, subject: str,
          metadata: dict[str, Any]) -> tuple[dict[str, Any], NewEvent]:
    """A new token for `subject` (shown once, in the returned dict) and its `TokenIssued` event,
    for the caller to append."""
    token, digest = new_token()
    token_id = "tk_" + secrets.token_hex(8)
    uow.credentials.add_token(digest, role, subject, token_id)
    issued = {"token_id": token_id, "role": role, "subject": subject, "token": token}
    return issued, event("TokenIssued", role, subject, token_id, metadata)


def revoke_all(uow: UnitOfWork, role: Holder, subject: str,
               metadata: dict[str, Any]) -> list[NewEvent]:
    """Revoke every token of `subject`; a `TokenRevoked` event each, for the caller to append."""
    return [event("TokenRevoked", role, subject, token_id, metadata)
            for token_id in uow.credentials.revoke_all(role, subject)]


def rotate(uow: UnitOfWork, command: RotateTokens,
           metadata: dict[str, Any]) -> dict[str, Any]:
    """Revoke the subject's tokens and issue one in their place; the token issued (shown once).
    NotFound when there is no such subject; Conflict `player_erased` for an erased player, who is
    issued none."""
    role, subject = command.role, command.subject
    if uow.credentials.lock_subject(role, subject):
        raise Conflict("player_erased", f"{subject} was erased: no token is issued to him")
    revoked = revoke_all(uow, role, subject, metadata)
    issued, issued_event = issue(uow, role, subject, metadata)
    _append(uow, role, subject, [*revoked, issued_event])
    _retiring(uow, role, subject, revoked, metadata)
    return issued


def revoke(uow: UnitOfWork, command: RevokeTokens, metadata: dict[str, Any]) -> None:
    """Revoke every token of the subject (NotFound when there is no such subject); a subject with
    none is left as he is, and nothing is appended."""
    uow.credentials.lock_subject(command.role, command.subject)
    revoked = revoke_all(uow, command.role, command.subject, metadata)
    _append(uow, command.role, command.subject, revoked)
    _retiring(uow, command.role, command.subject, revoked, metadata)


def reissue(uow: UnitOfWork, command: ReissueToken,
            metadata: dict[str, Any]) -> dict[str, Any] | None:
    """Revoke the token `command.token_id` and issue its subject a new one; the token issued, or
    None, with nothing changed, when it was revoked or replaced already."""
    holder = _dropped(uow, command.token_id)
    if holder is None:
        return None
    role, subject = holder
    revoked = event("TokenRevoked", role, subject, command.token_id, metadata)
    issued, issued_event = issue(uow, role, subject, metadata)
    _append(uow, role, subject, [revoked, issued_event])
    _retiring(uow, role, subject, [revoked], metadata)
    return issued


def retire(uow: UnitOfWork, command: RetireToken,
           metadata: dict[str, Any]) -> tuple[Holder, str] | None:
    """Revoke the token `command.token_id`, with a `TokenRevoked` event, and issue none; whose
    it was (role, subject), or None, with nothing changed, when it is not valid (revoked,
    replaced, or never issued here). Not published: it retires again what a journal holds."""
    holder = _dropped(uow, command.token_id)
    if holder is None:
        return None
    role, subject = holder
    _append(uow, role, subject, [event("TokenRevoked", role, subject, command.token_id, metadata)])
    return holder


def _dropped(uow: UnitOfWork, token_id: str) -> tuple[Holder, str] | None:
    """Drop the token `token_id` under its subject's lock; whose it was, or None when it is not
    valid (revoked, replaced, or never issued here)."""
    holder = uow.credentials.holder_of(token_id)
    if holder is None:
        return None
    uow.credentials.lock_subject(*holder)
    if not uow.credentials.drop_token(token_id):
        return None  # revoked or rotated while we waited for the subject's lock
    return holder


def _retiring(uow: UnitOfWork, role: Holder, subject: str, revoked: list[NewEvent],
              metadata: dict[str, Any]) -> None:
    if revoked:
        uow.publish(TokensRetiring(role, subject,
                                   tuple(e.data["token_id"] for e in revoked),
                                   metadata["actor"]))


def _append(uow: UnitOfWork, role: Holder, subject: str, events: list[NewEvent]) -> None:
    if events:
        uow.append(stream(role, subject), events, None)
        uow.flush()
