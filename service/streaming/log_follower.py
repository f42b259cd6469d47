"""The event log as one stream follows it (`GET /v1/feed/stream`): served by the request's
thread or, handed over, by the worker's streamer (`service.streaming.streamer`)."""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterator, Sequence
from typing import Any

import orjson
from psycopg_pool import ConnectionPool

from events.model import Checkpoint
from events.postgres import PostgresEventStore
from service.application import feed, notify
from service.application.principal import Principal

BATCH = 500  # events read, and sent, at a time


def chunk(item: dict[str, Any]) -> bytes:
    return (f"id: {item['position']}\nevent: {item['type']}\n".encode() + b"data: "
            + orjson.dumps(item) + b"\n\n")


class LogFollower:
    """The log as one stream follows it, from `last` on: its own reads, shared with no one."""

    # What changes no table (a deposit) sends no notice, and an event may commit below the
    # watermark only after its notice: it looks every second anyway.
    polls = True

    def __init__(self, pool: ConnectionPool, event_store: PostgresEventStore, who: Principal,
                 last: Checkpoint, types: Collection[str] | None) -> None:
        self.pool = pool
        self.event_store = event_store
        self.who = who
        self.last = last
        self.types = types

    def wants(self, change: notify.Change) -> bool:
        return True

    def heard(self, changes: Sequence[notify.Change] | None) -> None:
        pass  # it reads whatever committed, notice or not

    def news(self) -> Iterator[bytes]:
        """The events since the last sent, as writes of at most `BATCH`. Each read takes a
        connection for its own length only."""
        while True:
            with self.pool.connection() as conn:
                page = feed.read(conn, self.event_store, self.who, self.last, BATCH, self.types)
            self.last = page.last
            if page.items:
                yield b"".join(chunk(item) for item in page.items)
            if len(page.items) < BATCH:
                return

    def state(self) -> tuple[Any, ...]:
        return (self.last,)

    def set_state(self, state: tuple[Any, ...]) -> None:
        (self.last,) = state

    def spec(self) -> dict[str, Any]:
        """Where the follower stands, for another process to go on with it
        (`service.streaming.streamer`)."""
        return {"kind": "log", "who": [self.who.role, self.who.subject],
                "last": [self.last.txid, self.last.position],
                "types": None if self.types is None else sorted(self.types)}

    def view(self) -> Hashable:
        return self  # its news is its own: made for no other follower
