"""Erasures and retired credentials kept where a restore of the database does not take them back.

An erasure destroys the key that seals a player's name (`events.personal_data`). A restore of the
database to a point before it (a point-in-time recovery, docs/operations.md) would bring that key
back, and with it the name. So each erasure is also written to a journal kept outside the
database, before the erasure commits, and `banco erasures reapply` erases again, after a restore,
every player the journal names whom the restored database does not hold erased.

A restore brings back credentials as well: an operator key revoked after the restore point, a
player's or an auditor's token revoked or rotated, a key's secret replaced by a rotation, all
work again. So each token retired (`TokenRetired`), each key revoked (`KeyRevoked`) and each
key's secret rotated away (`KeyRotated`) is kept in the same journal, ids and times only, never
a secret nor its hash; and the same `reapply` retires again (`retire_again`) each the restored
database still holds valid, as a new revocation in the log by the actor `restore`.

The journal is written before the commit, not after: a crash between the two then leaves an
erasure the journal holds and the database does not, which the next reapply completes (the
operator asked for it), never one the database holds and the journal lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from service.application.credentials import Holder
from service.application.errors import NotFound
from service.application.operator_keys import KeyRevoking, KeyRotating, RetireKeySecret, RevokeKey
from service.application.players import ErasePlayer, Erasing
from service.application.tokens import RetireToken, TokensRetiring
from service.application.unit_of_work import UnitOfWork

log = logging.getLogger("banco.journal")


@dataclass(frozen=True)
class Erasure:
    """One line of the journal: who was erased, by whom (an actor's id, never a name), when."""

    player_id: str
    actor: str
    recorded_at: datetime


@dataclass(frozen=True)
class TokenRetired:
    """A player's or an auditor's token revoked, or replaced (a rotation, a reissue): its id and
    whose it was, by whom, when. Never the token."""

    token_id: str
    role: Holder
    subject: str
    actor: str
    recorded_at: datetime


@dataclass(frozen=True)
class KeyRevoked:
    """An operator key revoked: its id, by whom, when."""

    key_id: str
    actor: str
    recorded_at: datetime


@dataclass(frozen=True)
class KeyRotated:
    """An operator key's secret replaced by a rotation: the key's id and when the secret retired
    was issued (`issued_at`, its creation or last rotation as the database holds it), by whom,
    when. Never the secret nor its hash."""

    key_id: str
    issued_at: datetime
    actor: str
    recorded_at: datetime


Entry = Erasure | TokenRetired | KeyRevoked | KeyRotated


class ErasureJournal(Protocol):
    """Where erasures and retired credentials are kept apart from the database
    (`service.runtime.erasure_journal`)."""

    def record(self, entry: Entry) -> None:
        """Keep `entry` durably before returning."""

    def entries(self) -> list[Entry]:
        """Every entry kept, oldest first."""


def keeper(journal: ErasureJournal) -> Callable[[Any, UnitOfWork], None]:
    """The bus's subscriber that keeps each erasure and each retired credential in `journal` as
    it is about to commit."""

    def keep(notice: Any, uow: UnitOfWork) -> None:
        now = datetime.now(UTC)
        if isinstance(notice, Erasing):  # not made unless kept: a restore must not undo it
            journal.record(Erasure(notice.player_id, notice.actor, now))
            return
        if isinstance(notice, TokensRetiring):
            entries: list[Entry] = [TokenRetired(t, notice.role, notice.subject, notice.actor, now)
                                    for t in notice.token_ids]
        elif isinstance(notice, KeyRevoking):
            entries = [KeyRevoked(notice.key_id, notice.actor, now)]
        elif isinstance(notice, KeyRotating):
            entries = [KeyRotated(notice.key_id, notice.issued_at, notice.actor, now)]
        else:
            return
        for entry in entries:
            try:
                journal.record(entry)
            except Exception:
                # A credential is retired all the same: one that leaked must stop working now,
                # whatever the journal's disk. Only a restore to before now would bring it back.
                log.exception("the journal could not keep that %s: it is retired all the same;"
                              " after a restore of the database to before now, %s",
                              *_lost(entry))

    return keep


def _lost(entry: Entry) -> tuple[str, str]:
    """What a journal line lost names, and what to do about it after a restore."""
    if isinstance(entry, TokenRetired):
        return (f"the {entry.role} {entry.subject}'s token {entry.token_id} was retired",
                f"revoke it again (DELETE the {entry.role}'s token)")
    if isinstance(entry, KeyRevoked):
        return f"operator key {entry.key_id} was revoked", "revoke it again"
    assert isinstance(entry, KeyRotated)
    return f"operator key {entry.key_id} was rotated", "rotate it again"


def _reapplied(command: str, entry: Entry) -> dict[str, Any]:
    """The metadata of what `reapply` and `retire_again` do again: by `restore`, naming the
    original's actor and time."""
    return {"actor": "restore", "command": command,
            "reapplied": {"actor": entry.actor, "recorded_at": entry.recorded_at.isoformat()}}


@dataclass
class Reapplied:
    """What `reapply` did with each player the journal names."""

    erased: list[str] = field(default_factory=list)  # erased again now
    already: list[str] = field(default_factory=list)  # the database held his erasure
    absent: list[str] = field(default_factory=list)  # registered after the restore point


def reapply(entries: Iterable[Entry],
            work: Callable[[], AbstractContextManager[UnitOfWork]],
            handle: Callable[[Any, UnitOfWork, dict[str, Any]], Any],
            after: Callable[[UnitOfWork, str], None] | None = None) -> Reapplied:
    """Erase again, each in a unit of work of its own, every player of `entries` whom the
    database does not hold erased; `after(uow, player_id)` runs in the same unit of work after
    each erasure made again. A player named twice is looked at once; the entries that are not
    erasures are `retire_again`'s."""
    done = Reapplied()
    seen: set[str] = set()
    for entry in entries:
        if not isinstance(entry, Erasure) or entry.player_id in seen:
            continue
        seen.add(entry.player_id)
        try:
            with work() as uow:
                metadata = _reapplied("ErasePlayer", entry)
                if handle(ErasePlayer(entry.player_id), uow, metadata):
                    if after is not None:
                        after(uow, entry.player_id)
                    done.erased.append(entry.player_id)
                else:
                    done.already.append(entry.player_id)
        except NotFound:
            # Nothing of him was restored: no key, no name, no events to erase.
            done.absent.append(entry.player_id)
    return done


@dataclass
class Retired:
    """What `retire_again` did with each credential the journal names, by its id (`tk_...`,
    `ok_...`)."""

    revoked: list[str] = field(default_factory=list)  # tokens and keys revoked again now
    replaced: list[str] = field(default_factory=list)  # keys whose secret was replaced now
    # Not valid in the database: retired there already, or made after the restore point.
    already: list[str] = field(default_factory=list)


def retire_again(entries: Iterable[Entry],
                 work: Callable[[], AbstractContextManager[UnitOfWork]],
                 handle: Callable[[Any, UnitOfWork, dict[str, Any]], Any]) -> Retired:
    """Retire again, each in a unit of work of its own, every credential of `entries` that the
    database holds valid: a token (`TokenRevoked`), a key (`OperatorKeyRevoked`), a key's secret
    issued at or before one a rotation retired (`OperatorKeyRotated`, to a secret shown to
    nobody). A credential named twice is looked at once; a key the journal has revoked is
    revoked, not rotated first. The entries that are erasures are `reapply`'s."""
    done = Retired()
    entries = list(entries)
    revoked = {e.key_id for e in entries if isinstance(e, KeyRevoked)}
    # The latest secret each rotated key retired: those issued before it were retired too.
    rotated: dict[str, KeyRotated] = {}
    for entry in entries:
        if isinstance(entry, KeyRotated) and entry.key_id not in revoked:
            latest = rotated.get(entry.key_id)
            if latest is None or entry.issued_at > latest.issued_at:
                rotated[entry.key_id] = entry
    seen: set[str] = set()
    for entry in entries:
        command: Any
        if isinstance(entry, TokenRetired):
            name, command = entry.token_id, RetireToken(entry.token_id)
            why = f"Revoke{entry.role.capitalize()}Token"
        elif isinstance(entry, KeyRevoked):
            name, command, why = entry.key_id, RevokeKey(entry.key_id), "RevokeOperatorKey"
        elif isinstance(entry, KeyRotated) and rotated.get(entry.key_id) is entry:
            name, why = entry.key_id, "RotateOperatorKey"
            command = RetireKeySecret(entry.key_id, entry.issued_at)
        else:
            continue
        if name in seen:
            continue
        seen.add(name)
        try:
            with work() as uow:
                if not handle(command, uow, _reapplied(why, entry)):
                    done.already.append(name)
                elif isinstance(command, RetireKeySecret):
                    done.replaced.append(name)
                else:
                    done.revoked.append(name)
        except NotFound:
            done.already.append(name)  # a key made after the restore point
    return done
