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
    """An event as recorded."""

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

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self.txid, self.position)


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
