"""An in-memory twin of the event store, for fast unit tests of logic (it passes the contract)."""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from datetime import UTC, datetime

from events.model import (
    Append,
    Checkpoint,
    ConcurrencyConflict,
    NewEvent,
    StoredEvent,
    canonical_json,
    chain_hash,
)
from events.types import EventTypes


class InMemoryEventStore:
    """The same behaviour as the PostgreSQL store, held in lists behind one lock."""

    def __init__(self, types: EventTypes) -> None:
        self.types = types
        self._lock = threading.Lock()
        self._log: list[StoredEvent] = []
        self._streams: dict[str, list[StoredEvent]] = {}
        self._txid = 0

    def append(
        self, stream_id: str, events: Sequence[NewEvent], expected_version: int | None
    ) -> list[StoredEvent]:
        return self.append_many([Append(stream_id, tuple(events), expected_version)])

    def append_many(self, appends: Sequence[Append]) -> list[StoredEvent]:
        for batch in appends:
            for event in batch.events:
                self.types.validate(event)
        with self._lock:
            # Checked in order, as PostgreSQL appends them: a batch may follow another of its
            # stream in the same call, at the version that one leaves.
            versions: dict[str, int] = {}
            for batch in appends:
                current = versions.get(batch.stream_id, len(self._streams.get(batch.stream_id, [])))
                if batch.expected_version is not None and batch.expected_version != current:
                    raise ConcurrencyConflict(batch.stream_id, batch.expected_version)
                versions[batch.stream_id] = current + len(batch.events)
            self._txid += 1
            now = datetime.now(UTC)
            stored: list[StoredEvent] = []
            for batch in appends:
                stream = self._streams.setdefault(batch.stream_id, [])
                for event in batch.events:
                    head = stream[-1].hash if stream else b""
                    record = StoredEvent(
                        position=len(self._log) + 1,
                        stream_id=batch.stream_id,
                        version=len(stream) + 1,
                        type=event.type,
                        schema_version=event.schema_version,
                        data=event.data,
                        metadata=event.metadata,
                        recorded_at=now,
                        hash=chain_hash(head, canonical_json(batch.stream_id, event)),
                        txid=self._txid,
                    )
                    stream.append(record)
                    self._log.append(record)
                    stored.append(record)
            return stored

    def read_stream(self, stream_id: str, after_version: int = 0,
                    limit: int | None = None) -> list[StoredEvent]:
        with self._lock:
            events = self._streams.get(stream_id, [])[after_version:]
            events = events if limit is None else events[:limit]
        return self._read(events)

    def read_all(self, after: Checkpoint = Checkpoint(), limit: int = 1000,
                 types: Collection[str] | None = None) -> list[StoredEvent]:
        with self._lock:
            found = [e for e in self._log if e.checkpoint > after
                     and (types is None or e.type in types)][:limit]
        return self._read(found)

    def checkpoint_at(self, position: int) -> Checkpoint | None:
        with self._lock:
            return next((e.checkpoint for e in self._log if e.position == position), None)

    def _read(self, events: list[StoredEvent]) -> list[StoredEvent]:
        # Every read goes through here, as every PostgreSQL read goes through `stored_event`.
        return [self.types.upcast(e) for e in events]

    def stream_version(self, stream_id: str) -> int:
        with self._lock:
            return len(self._streams.get(stream_id, []))
