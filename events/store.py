"""The event store interface shared by the PostgreSQL store and its in-memory twin."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from events.model import Append, Checkpoint, NewEvent, StoredEvent


class EventStore(Protocol):
    """Append-only streams with optimistic concurrency, and a global log in a stable order."""

    def append(
        self, stream_id: str, events: Sequence[NewEvent], expected_version: int | None
    ) -> list[StoredEvent]:
        """Append to one stream if it is at `expected_version` (None: any, 0: new stream)."""
        ...

    def append_many(self, appends: Sequence[Append]) -> list[StoredEvent]:
        """Append to several streams atomically: all or nothing."""
        ...

    def read_stream(self, stream_id: str, after_version: int = 0,
                    limit: int | None = None) -> list[StoredEvent]:
        """A stream's events with version > `after_version`, in order, at most `limit` of them."""
        ...

    def read_all(self, after: Checkpoint = Checkpoint(), limit: int = 1000,
                 types: Collection[str] | None = None) -> list[StoredEvent]:
        """The next committed events of the global log after `after`, in a stable order; with
        `types`, only events of those types."""
        ...

    def checkpoint_at(self, position: int) -> Checkpoint | None:
        """The place in the global log of the event at `position` (None: no such event)."""
        ...

    def stream_version(self, stream_id: str) -> int:
        """The stream's current version (0 when it does not exist)."""
        ...
