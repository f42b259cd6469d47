"""The table commands, as data: what a caller asks of a table, in the application's terms.

Each goes to its handler through `service.application.bus.handle`, with the unit of work it runs
in and the metadata its events record; the player, token, auditor and webhook commands live
beside their handlers (`players`, `tokens`, `auditors`, `webhook_subscriptions`). A command
names the table and the caller by id and carries the version the caller decided on
(`IfMatch`): loading the table, checking that version and who may act are the handler's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from projections.tables import TableRow


@dataclass(frozen=True)
class IfMatch:
    """The versions of the table a caller says its command was decided on (HTTP's If-Match):
    `sent` False when it named none, `star` for any, else the versions it listed; `tags`, how
    many entity-tags the list held, the same one twice and empty ones counted (None: one a
    version)."""

    sent: bool = False
    star: bool = False
    versions: frozenset[str] = frozenset()
    tags: int | None = None

    def only(self) -> str | None:
        """The one entity-tag named, or None when it is not exactly one: a list of more than one
        tag is no one version, even when its tags are all the same. A tag that is no version of
        the table (`"9x"`, `"013"`) is one all the same, which matches no version."""
        listed = len(self.versions) if self.tags is None else self.tags
        if self.star or listed != 1 or len(self.versions) != 1:
            return None
        return next(iter(self.versions)) or None  # an empty tag names nothing

    def admits(self, version: int) -> bool:
        return not self.sent or self.star or str(version) in self.versions


NOT_SENT = IfMatch()


@dataclass(frozen=True)
class CreateTable:
    game: str
    options: dict[str, Any]  # complete: defaults filled in (`table_options`)
    created_by: str


@dataclass(frozen=True)
class JoinTable:
    """Seat a player, his `buy_in` (or the game's fixed one) moved from his wallet to the seat."""

    table_id: str
    player_id: str
    buy_in: int | None
    age: int | None = None
    seed: str | None = None
    if_match: IfMatch = NOT_SENT


@dataclass(frozen=True)
class LeaveTable:
    table_id: str
    player_id: str


@dataclass(frozen=True)
class OpenHand:
    """Deal the next hand, as the operator (`player_id` None) or as a seated player."""

    table_id: str
    player_id: str | None
    if_match: IfMatch = NOT_SENT


@dataclass(frozen=True)
class Act:
    """A seated player's move: `payload` as the engine parses it (its `type` and parameters);
    `seat`, when given, must be his own. Required to name the one version it was decided on."""

    table_id: str
    player_id: str
    payload: dict[str, Any]
    seat: int | None = None
    if_match: IfMatch = NOT_SENT


@dataclass(frozen=True)
class TimeOut:
    """Apply the game's timeout rule to the turn that began at `version`, if it is still in play."""

    table_id: str
    version: int


@dataclass(frozen=True)
class SettleHand:
    table_id: str
    hand_id: str


@dataclass(frozen=True)
class EndTable:
    """End an open table, every seat cashed out. Its handler answers False when the table is not
    open, unless `refuse`: then it refuses (a table that is not there, a hand in play, a table
    already over), as it does the operator's close."""

    table_id: str
    reason: str
    refuse: bool = False


@dataclass(frozen=True)
class Joined:
    seat: dict[str, Any]
    table: TableRow


@dataclass(frozen=True)
class TimedOut:
    """The table after a timeout, and the deadline that had passed."""

    table: TableRow
    due: datetime | None


@dataclass(frozen=True)
class TablePlayed:
    """Told to the process's subscribers (`bus.Bus`) when a command moved a table's play on (a
    deal, a move, a timeout): `table` as written, and `ended`, the version the turn it ended
    began at, whose timeout job is now moot. Subscribers hand the table to its followers and
    queue what it needs next once committed."""

    command: str
    table: TableRow
    ended: int | None = field(default=None)
