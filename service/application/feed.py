"""The whole event log in the store's global order, as one caller may see it.

A reader names where it stands by the position of the last event it was given. The order is
the store's (`PostgresEventStore.read_all`: by writing transaction, then position, below the
oldest transaction still open), not the positions' own: a position is drawn when its event is
inserted but shows when its transaction commits, so ordering by position alone would let an
event that commits late appear behind one already served. A position is turned back into its
place in that order (`checkpoint_at`) once per call.

Hidden cards go through the engines' redaction for whoever reads, but every stream is read: the
feed is for auditors and the operator (who reads as a spectator). A player's own feed would
have to keep to his streams too.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Final, Literal

import psycopg

from events.model import Checkpoint
from events.postgres import PostgresEventStore
from service.application import event_names
from service.application.errors import Invalid
from service.application.principal import Principal
from service.application.redaction import Redactor


@dataclass(frozen=True)
class Page:
    """Events as one caller sees them, and the place in the log after the last one read."""

    items: list[dict[str, Any]]
    last: Checkpoint

    @property
    def next_after(self) -> int:
        """The position to ask the next page after."""
        return self.last.position


LATEST: Final = "latest"
Position = int | Literal["latest"]


def place(conn: psycopg.Connection, store: PostgresEventStore, position: Position) -> Checkpoint:
    """Where the event at `position` sorts in the log (0: before everything; `latest`: the last
    event now, for a reader that wants only what comes next); a position that names no event is
    refused, since nothing tells where it would sort."""
    if isinstance(position, str):  # LATEST
        return store.head(conn=conn)
    if position == 0:
        return Checkpoint()
    found = store.checkpoint_at(position, conn=conn)
    if found is None:
        raise Invalid("unknown_position", f"no event is at position {position}: give 0 or a"
                      " position the feed gave", errors={"query": {"after": ["No event is there."]}})
    return found


def known_types(types: Collection[str]) -> frozenset[str]:
    """The event types `types` names, a trailing `*` standing for any rest as in a webhook's
    `event_types` (`game.*`), refused if one names none: a misspelt filter would match nothing
    and read as a quiet log."""
    if not types:
        raise Invalid("unknown_event_type", "name at least one event type, or leave types out",
                      errors={"query": {"types": ["Empty."]}})
    found = {t: event_names.matching(t) for t in types}
    unknown = sorted(t for t, matched in found.items() if not matched)
    if unknown:
        raise Invalid("unknown_event_type", f"no event type is called {', '.join(unknown)}",
                      errors={"query": {"types": [f"Unknown: {', '.join(unknown)}."]}})
    return frozenset().union(*found.values())


def read(conn: psycopg.Connection, store: PostgresEventStore, who: Principal, after: Checkpoint,
         limit: int, types: Collection[str] | None = None) -> Page:
    """Up to `limit` events after `after` (of `types` only, when given), as `who` may see them
    (through the engines' redaction), and where the page ends."""
    found = store.read_all(after, limit, conn=conn, types=types)
    redactor = Redactor(conn, who)
    return Page([redactor.logged(e) for e in found], found[-1].checkpoint if found else after)


def after(conn: psycopg.Connection, store: PostgresEventStore, who: Principal, position: Position,
          limit: int, types: Collection[str] | None = None) -> Page:
    """The events that follow the one at `position` in the log, as `who` may see them."""
    start = place(conn, store, position)
    return read(conn, store, who, start, limit, None if types is None else known_types(types))
