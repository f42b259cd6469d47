"""What the event store holds: events to append, stored events, checkpoints and errors."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

ANY_VERSION = None  # an `expected_version` that accepts whatever the stream's version is


class ConcurrencyConflict(Exception):
    """The stream was not at the expected version: someone else wrote first (HTTP 409)."""

    def __init__(self, stream_id: str, expected_version: int | None) -> None:
        super().__init__(f"stream {stream_id!r} is not at version {expected_version}")
        self.stream_id = stream_id
        self.expected_version = expected_version


class UnreadableEvent(Exception):
    """A stored event that this code cannot bring to its type's current schema version: an
    upcaster is missing, or it was written by a newer release."""

    def __init__(self, event_type: str, schema_version: int, reason: str) -> None:
        super().__init__(f"{event_type!r} at schema version {schema_version}: {reason}")
        self.event_type = event_type
        self.schema_version = schema_version


class InvalidEvent(Exception):
    """An event of an unknown type or with a payload its schema refuses; nothing was written."""

    def __init__(self, event_type: str, errors: Any) -> None:
        super().__init__(f"invalid {event_type!r} event: {errors}")
        self.event_type = event_type
        self.errors = errors


@dataclass(frozen=True)
class NewEvent:
    """An event about to be appended."""

    type: str
    data: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    schema_version: int = 1


@dataclass(frozen=True)
class Append:
    """One stream's part of an atomic append."""

    stream_id: str
    events: tuple[NewEvent, ...]
    expected_version: int | None


@dataclass(frozen=True, order=True)
class Checkpoint:
    """A place in the global log: (writing transaction id, position), ordered as a pair."""

    txid: int = 0
    position: int = 0


@dataclass(frozen=True)
class StoredEvent:
    """An event as read: `data` in its type's current schema version (`schema_version`).

    An event stored under an older schema version is upcast on read; `stored` then keeps its
    version and payload as written, which are what its chain hash and checkpoint leaf cover.
    """

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    data: dict[str, Any]
    metadata: dict[str, Any]
    recorded_at: datetime
    hash: bytes
    txid: int = 0
    stored: tuple[int, dict[str, Any]] | None = field(default=None, repr=False)

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self.txid, self.position)

    def as_appended(self) -> NewEvent:
        """The event exactly as it was appended, before any upcasting."""
        version, data = self.stored or (self.schema_version, self.data)
        return NewEvent(self.type, data, self.metadata, version)

    def canonical(self) -> str:
        """The text its chain hash covers: that of the stored payload, never the upcast one."""
        return canonical_json(self.stream_id, self.as_appended())


def canonical_json(stream_id: str, event: NewEvent) -> str:
    """The text a stream's hash chain covers: sorted keys, no spaces, UTF-8."""
    return orjson.dumps(
        {
            "stream_id": stream_id,
            "type": event.type,
            "schema_version": event.schema_version,
            "data": event.data,
            "metadata": event.metadata,
        },
        option=orjson.OPT_SORT_KEYS,
    ).decode()


def chain_hash(previous: bytes, canonical: str) -> bytes:
    """The next link of a stream's hash chain."""
    return hashlib.sha256(previous + canonical.encode()).digest()
