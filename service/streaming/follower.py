"""One stream's place at a table: what it was sent, and what a change brings it next.

A stream is served either by a thread of its own (`service.http.streams`) or, behind gunicorn, by
its worker's streamer (`service.streaming.streamer`), whose fan-out (`service.streaming.fanout`) writes
every stream's news from one thread. Both move a `Follower` on in the same way: told of changes
(`heard`), it takes what they brought from the table's feed (`news`), already redacted for its
view. Where it stands (`state`, `spec`) passes from the worker to its streamer.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from typing import Any

from psycopg_pool import ConnectionPool

from events.postgres import PostgresEventStore
from service.application import handlers
from service.application.notify import Change
from service.application.principal import Principal
from service.application.redaction import Redactor
from service.streaming.feeds import BATCH, Feed, Shown, sse

# A follower's seat before its first look at the table has told it (then an int, or None for a
# subscriber with no seat). Until then every turn may be his: a change committed after that look
# read the table, and heard before the look is done, must not be judged by a seat not yet known.
UNSEEN = -1


def concerns(change: Change, seat: int | None, who: Principal) -> bool:
    """Whether `change` may have given the subscriber something to do, by someone else's
    command (his own requests' responses showed him the table): a turn in play that is his or
    anyone's, or a table open for its next hand, or ended. A hand being settled is nobody's to
    act in."""
    return change.actor != who.key and (change.status in ("open", "over") or (
        seat is not None and change.status == "playing"
        and (change.seat in (None, seat) or seat == UNSEEN)))


class Follower:
    """A stream of a table's events (`events`) and of the table when it is the subscriber's turn
    (`turns`), sent up to `after` and the table's `version` as last heard of."""

    polls = False  # the table's notices say when to look

    def __init__(self, feed: Feed, event_store: PostgresEventStore, pool: ConnectionPool,
                 who: Principal, after: int, version: int, query: dict[str, Any]) -> None:
        self.feed = feed
        self.event_store = event_store
        self.pool = pool
        self.who = who
        self.events: bool = query["events"]
        self.turns: bool = query["turns"]
        self.after = after  # the last event version sent
        self.upto: int | None = version  # the table's version as last heard of; None: unknown
        self.shown = -1  # the table version of the last `table` event sent
        self.seat: int | None = UNSEEN  # the subscriber's, as last seen
        self.look = self.turns  # whether the table itself may be news

    def wants(self, change: Change) -> bool:
        """Every change wakes a stream of events; one without them, only the changes that
        concern it. At a busy table, most notices are for someone else's turn."""
        return self.events or (self.turns and concerns(change, self.seat, self.who))

    def heard(self, changes: Sequence[Change] | None) -> None:
        """Take note of `changes` (None: notices may have been lost; look anyway)."""
        if changes is None:
            self.upto, self.look = None, self.turns
            return
        self.feed.heard(changes)
        self.upto = max([self.after if self.upto is None else self.upto,
                         *(c.version for c in changes)])
        self.look = self.turns and any(concerns(c, self.seat, self.who) for c in changes)

    def news(self) -> Iterator[bytes]:
        """What is due to the subscriber now, as writes of at most `BATCH` events each; the
        events and the table one change brings go out as one write, not one per chunk."""
        held_back = False
        while True:
            chunks: list[Shown] = []
            turn = None
            if self.events and (self.upto is None or self.upto > self.after):
                chunks = self._events()
                if chunks:
                    self.after = chunks[-1].body["version"]
            more = len(chunks) >= BATCH  # more to send before waiting
            if self.look:
                # The feed may have sent events past the notices (read for another follower):
                # the table is then wanted at their version at least, never one before them.
                at_least = None if self.upto is None else max(self.upto, self.after)
                self.seat, turn = self.feed.turn(self.pool, self.who, at_least, self.shown)
            if (turn is not None and self.events and not held_back
                    and turn.body["version"] > self.after):
                # The feed holds a later table than this stream's notices named (another
                # follower's notice, or a read, brought it): its events go first, so that no
                # id is sent before the events it follows (a client resumes after its last id).
                self.upto = max(self.upto or 0, turn.body["version"])
                turn, more, held_back = None, True, True
            if turn is not None:
                self.shown = turn.body["version"]
                chunks.append(turn)
            if chunks:
                yield b"".join(chunk.chunk for chunk in chunks)
            if not more:
                return
            # Once more only for a table held back above and not sent yet.
            self.look = held_back and self.shown < (self.upto or 0)

    def _events(self) -> list[Shown]:
        """The events after `after` as the subscriber sees them: from the table's feed, or, for
        one further behind than the feed keeps, read and redacted for him alone."""
        shown = self.feed.events(self.pool, self.event_store, self.who, self.after, self.upto)
        if shown is not None:
            return shown
        with self.pool.connection() as conn:
            found = self.event_store.read_stream(handlers.stream(self.feed.table_id), self.after,
                                                 conn=conn, limit=BATCH)
            return [sse(e["version"], e["type"], e) for e in Redactor(conn, self.who).events(found)]

    def state(self) -> tuple[Any, ...]:
        """All that `heard` and `news` depend on besides the feed: two followers with the same
        state and the same view (`view`) are sent the same bytes."""
        return (self.events, self.turns, self.after, self.upto, self.shown, self.seat, self.look)

    def spec(self) -> dict[str, Any]:
        """Where the follower stands, for another process to go on with it
        (`service.streaming.streamer`)."""
        return {"kind": "table", "table_id": self.feed.table_id,
                "who": [self.who.role, self.who.subject], "state": list(self.state())}

    def set_state(self, state: tuple[Any, ...]) -> None:
        self.events, self.turns, self.after, self.upto, self.shown, self.seat, self.look = state

    def view(self) -> Hashable:
        """Whose redaction the follower receives, and which changes wake him. Auditors see every
        event and table alike, and so does the operator (a spectator who never sits); a
        player's view depends on his seats, and is his own. A stream of turns alone is woken
        by changes made by others than its subscriber (`concerns`), so it is his own too."""
        return self.who.key if self.who.role == "player" or not self.events else self.who.role
