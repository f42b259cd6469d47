"""Erasures kept where a restore of the database does not take them back.

An erasure destroys the key that seals a player's name (`events.personal_data`). A restore of the
database to a point before it (a point-in-time recovery, docs/operations.md) would bring that key
back, and with it the name. So each erasure is also written to a journal kept outside the
database, before the erasure commits, and `banco erasures reapply` erases again, after a restore,
every player the journal names whom the restored database does not hold erased.

The journal is written before the commit, not after: a crash between the two then leaves an
erasure the journal holds and the database does not, which the next reapply completes (the
operator asked for it), never one the database holds and the journal lost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from service.application.errors import NotFound
from service.application.players import ErasePlayer, Erasing
from service.application.unit_of_work import UnitOfWork


@dataclass(frozen=True)
class Erasure:
    """One line of the journal: who was erased, by whom (an actor's id, never a name), when."""

    player_id: str
    actor: str
    recorded_at: datetime


class ErasureJournal(Protocol):
    """Where erasures are kept apart from the database (`service.runtime.erasure_journal`)."""

    def record(self, erasure: Erasure) -> None:
        """Keep `erasure` durably before returning."""

    def entries(self) -> list[Erasure]:
        """Every erasure kept, oldest first."""


def keeper(journal: ErasureJournal) -> Callable[[Any, UnitOfWork], None]:
    """The bus's subscriber that keeps each erasure in `journal` as it is about to commit."""

    def keep(notice: Any, uow: UnitOfWork) -> None:
        if isinstance(notice, Erasing):
            journal.record(Erasure(notice.player_id, notice.actor, datetime.now(UTC)))

    return keep


@dataclass
class Reapplied:
    """What `reapply` did with each player the journal names."""

    erased: list[str] = field(default_factory=list)  # erased again now
    already: list[str] = field(default_factory=list)  # the database held his erasure
    absent: list[str] = field(default_factory=list)  # registered after the restore point


def reapply(entries: Iterable[Erasure],
            work: Callable[[], AbstractContextManager[UnitOfWork]],
            handle: Callable[[Any, UnitOfWork, dict[str, Any]], Any],
            after: Callable[[UnitOfWork, str], None] | None = None) -> Reapplied:
    """Erase again, each in a unit of work of its own, every player of `entries` whom the
    database does not hold erased; `after(uow, player_id)` runs in the same unit of work after
    each erasure made again. A player named twice is looked at once."""
    done = Reapplied()
    seen: set[str] = set()
    for entry in entries:
        if entry.player_id in seen:
            continue
        seen.add(entry.player_id)
        try:
            with work() as uow:
                metadata = {"actor": "restore", "command": "ErasePlayer",
                            "reapplied": {"actor": entry.actor,
                                          "recorded_at": entry.recorded_at.isoformat()}}
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
