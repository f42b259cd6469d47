"""What the followers of a table in one process share: its news read once, each view of it made once.

Streams and long polls that follow a table would each read its new events from PostgreSQL and
redact them for themselves, so a move would cost the process work in proportion to its
followers. Instead the first follower that needs a table's news reads it for all (the others wait
for that read, holding no connection), and each redaction is made once per distinct view
(`Redactor.view`: a seat's player, auditors, everyone else) and kept, with its Server-Sent Events
chunk, for the followers who share that view. For `turns`, the table is read once per version and
rendered once per viewer; a table this process wrote is not read again at all, but taken as
written once its notice says it committed. Every follower's events still go through
`service.application.redaction`.
"""

from __future__ import annotations

import bisect
import logging
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import orjson
from psycopg_pool import ConnectionPool

from events.catalog import GAME_EVENT_PREFIX
from events.model import StoredEvent
from events.postgres import PostgresEventStore
from games.contract import Viewer
from projections import tables
from projections.tables import TableRow
from service.application import handlers
from service.application.notify import Change
from service.application.principal import Principal
from service.application.redaction import Redactor, viewer_in
from service.application.table_view import legal_actions, render
from service.runtime import tracing
from service.runtime.slots import Gate

log = logging.getLogger("banco.feeds")

OFFERS = 8  # tables offered and not yet heard of that a feed keeps
KEEP = 1000  # events a feed keeps; a follower further behind reads on its own until it catches up
BATCH = 500  # events read, or sent to one follower, at a time
# How many of the process's followers take their news and write it at once. A change wakes
# every follower of its table together; were they all let loose, each request the process
# serves meanwhile (a move) would queue behind all of them for the GIL, at every one of its
# round trips to PostgreSQL or Redis. Through the gate, it queues behind a few. A follower
# whose client stops reading may hold a place; the others wait for one `PATIENCE_S` at most.
TOGETHER = 4
PATIENCE_S = 0.2


@dataclass(frozen=True)
class Shown:
    """An event or the table as one view shows it, and the same as a Server-Sent Event."""

    body: dict[str, Any]
    chunk: bytes


def sse(version: int, kind: str, body: dict[str, Any]) -> Shown:
    return Shown(body, f"id: {version}\nevent: {kind}\n".encode() + b"data: " + orjson.dumps(body)
                 + b"\n\n")


class Feed:
    """One table's news for this process's followers."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.followers = 0
        self._lock = threading.Lock()
        # The offered tables' own: a request offering the table it wrote never waits for a
        # follower's read or rendering, which hold `_lock` through a round trip to PostgreSQL.
        self._offer_lock = threading.Lock()
        self._events: list[StoredEvent] = []  # in order, each following the one before
        self._base: int | None = None  # the version the kept events follow
        self._read_for = -1  # the highest version a read was made to bring
        self._lineups: dict[str, list[dict[str, Any]]] = {}  # hand id -> its seats
        self._shown: dict[tuple[int, Hashable], Shown] = {}
        self._table: TableRow | None = None
        # The kept table as each viewer sees it, by the table's version.
        self._turns: dict[Viewer, tuple[int, Shown | None]] = {}
        # Tables this process (or the node) wrote, by writing transaction, until a notice says
        # it committed: as written, or still to be read from what another process sent.
        self._offered: dict[int, TableRow | Callable[[], TableRow]] = {}
        self._traces: dict[int, bytes] = {}  # the offered tables' writers' `traceparent`
        self.reads = 0  # reads of the table's events from PostgreSQL
        self.table_reads = 0  # reads of the table's row
        self.renders = 0  # redactions made of an event, and renderings of the table
        self.offers = 0  # tables offered as written, before their commit

    @property
    def _top(self) -> int:
        return self._events[-1].version if self._events else (self._base or 0)

    def events(self, pool: ConnectionPool, store: PostgresEventStore, who: Principal, after: int,
               upto: int | None, limit: int = BATCH) -> list[Shown] | None:
        """The events after version `after` (at most `limit`) as `who` may see them, read from
        PostgreSQL if the table is known at `upto` (None: may have changed) and no follower read
        them yet; None if `after` is older than the kept events."""
        kept = self._kept(who, after, upto, limit)
        if kept is not None:
            return kept
        with self._lock:
            if self._base is None or (after < self._base and not self._events):
                self._base = self._read_for = after
            if after < self._base:
                return None
            stale = upto is None or (upto > self._read_for and upto > self._top)
            # A read that brought all there was: no other follower reads again for `upto`.
            if stale and self._read(pool, store) < BATCH:
                self._read_for = max(self._read_for, upto or 0)
            redactor = Redactor(None, who, self._lineups)
            out = []
            start = bisect.bisect_right(self._events, after, key=lambda e: e.version)
            for stored in self._events[start:start + limit]:
                key = (stored.version, redactor.view(stored))
                shown = self._shown.get(key)
                if shown is None:
                    event = redactor.event(stored)
                    shown = self._shown[key] = sse(stored.version, event["type"], event)
                    self.renders += 1
                out.append(shown)
            return out

    def _kept(self, who: Principal, after: int, upto: int | None, limit: int) -> list[Shown] | None:
        """The events after `after` if they are kept and already rendered for `who`'s view, read
        without the lock; None when the locked path must read or render. A change wakes all
        of a table's followers at once, and all but the first find their news here, rather than
        queueing one by one for the lock. What is read is only ever appended to or replaced
        whole, so a follower sees a consistent list; one trimmed meanwhile shows as a gap,
        which sends him to the locked path."""
        lineups = self._lineups  # before the events: see `_read`
        events = self._events
        base = self._base
        if base is None or after < base or upto is None or (
                upto > self._read_for and upto > self._top):
            return None
        redactor = Redactor(None, who, lineups)
        start = bisect.bisect_right(events, after, key=lambda e: e.version)
        out: list[Shown] = []
        for stored in events[start:start + limit]:
            if not out and stored.version != after + 1:
                return None
            shown = self._shown.get((stored.version, redactor.view(stored)))
            if shown is None:
                return None
            out.append(shown)
        return out

    def _read(self, pool: ConnectionPool, store: PostgresEventStore) -> int:
        with pool.connection() as conn:
            found = store.read_stream(handlers.stream(self.table_id), self._top, conn=conn,
                                      limit=BATCH)
            for stored in found:
                hand = stored.data.get("hand") if stored.type.startswith(GAME_EVENT_PREFIX) else None
                if hand is not None and hand not in self._lineups:
                    row = tables.hand(conn, hand)
                    self._lineups[hand] = row["seats"] if row else []
        self.reads += 1
        self._events += found
        if len(self._events) > KEEP:
            dropped = self._events[:-KEEP // 2]
            self._events = self._events[-KEEP // 2:]
            self._base = dropped[-1].version
            self._shown = {k: v for k, v in self._shown.items() if k[0] > self._base}
            # Only the line-ups of the kept events' hands: a table followed for days played
            # thousands of hands, whose line-ups the process's garbage collections walked, each
            # collection a pause for all its followers. Replaced, not emptied in place: `_kept`
            # takes the line-ups before the events, so it never holds events whose hands these lack.
            hands = {e.data.get("hand") for e in self._events if e.type.startswith(GAME_EVENT_PREFIX)}
            self._lineups = {h: seats for h, seats in self._lineups.items() if h in hands}
        return len(found)

    def offer(self, table: TableRow) -> None:
        """Keep `table` as a request of this process wrote it, not yet committed: once a notice
        names its transaction (`heard`), followers render it rather than read the table again.
        A transaction that rolls back sends no notice, and its table is never shown."""
        if table.txid is not None:
            self.offer_later(table.txid, table)

    def offer_later(self, txid: int, table: TableRow | Callable[[], TableRow],
                    trace: bytes = b"-") -> None:
        """`offer` the table transaction `txid` wrote, or what reads it (a table another process
        sent, with the `traceparent` of the request that wrote it): read only if a notice of
        `txid` wakes a follower here, who would read it else."""
        with self._offer_lock:
            self._offered[txid] = table
            if trace != b"-":
                self._traces[txid] = trace
            self.offers += 1
            while len(self._offered) > OFFERS:  # the oldest, whose notice never came
                oldest = next(iter(self._offered))
                del self._offered[oldest]
                self._traces.pop(oldest, None)

    def heard(self, changes: Sequence[Change]) -> None:
        """Take the tables offered whose commit these notices announce."""
        offered = self._offered
        if not any(change.txid in offered for change in changes):
            return  # as for most of the followers woken: no lock taken
        with self._offer_lock:
            taken = [(change, self._offered.pop(change.txid, None),
                      self._traces.pop(change.txid, b"-"))
                     for change in changes if change.txid is not None]
        with self._lock:
            for change, kept, trace in taken:
                table = kept if kept is None or isinstance(kept, TableRow) else _read(kept)
                if (table is not None and table.version == change.version
                        and (self._table is None or self._table.version < table.version)):
                    self._table, self._turns = table, {}
                    # In the trace of the request that wrote it: its followers are told now.
                    tracing.mark("streams told", trace, {"banco.table_id": self.table_id,
                                                         "banco.version": table.version})

    def turn(self, pool: ConnectionPool, who: Principal, at_least: int | None,
             shown: int) -> tuple[int | None, Shown | None]:
        """`who`'s seat, and the table as he sees it if it changed since version `shown` and he
        has something to do in it: legal actions in the hand in play, or a seat at a table open
        for its next hand. That a table has ended (its seats cashed out) is news for every
        follower. The table is read again unless the one kept is at version `at_least` (None:
        may have changed)."""
        table = self._table
        if table is not None and at_least is not None and table.version >= at_least:
            # Rendered already for his view, as for all but the first of a view's followers:
            # read without the lock.
            seat = table.seat_of(who.subject)
            if table.version == shown or (seat is None and table.status != "over"):
                return seat, None
            kept = self._turns.get(viewer_in(who, table.seats))
            if kept is not None and kept[0] == table.version:
                return seat, kept[1]
        with self._lock:
            if self._table is None or at_least is None or self._table.version < at_least:
                with pool.connection() as conn:
                    self._table = tables.load(conn, self.table_id, balances=True)
                self.table_reads += 1
                self._turns = {}
            table = self._table
            if table is None:
                return None, None
            seat = table.seat_of(who.subject)
            if table.version == shown or (seat is None and table.status != "over"):
                return seat, None
            viewer = viewer_in(who, table.seats)
            if self._turns.get(viewer, (None, None))[0] != table.version:
                self._turns[viewer] = (table.version, self._render_turn(pool, table, who))
            return seat, self._turns[viewer][1]

    def _render_turn(self, pool: ConnectionPool, table: TableRow, who: Principal) -> Shown | None:
        """The table as `who` sees it, if he has something to do in it. Whether he has is asked
        first: at most moves only the next mover has, and the others' views are not made."""
        legal = legal_actions(table, who)
        if not legal and table.status not in ("open", "over"):
            return None
        if table.balances is not None:  # as the writer's save read them
            body = render(table, who, legal=legal)
        else:
            with pool.connection() as conn:
                body = render(table, who, conn, legal=legal)
        self.renders += 1
        return sse(table.version, "table", body)


def _read(offered: Callable[[], TableRow]) -> TableRow | None:
    try:
        return offered()
    except Exception:  # what a worker sent cannot be read: its followers read the table
        log.exception("an offered table could not be read")
        return None


class Feeds:
    """The process's feeds, one per table while it has followers, and the gate they pass when a
    change wakes them (`TOGETHER`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._feeds: dict[str, Feed] = {}
        self.gate = Gate(TOGETHER, PATIENCE_S)

    def join(self, table_id: str) -> Feed:
        """The table's feed, counting one more follower until he `leave`s it."""
        with self._lock:
            feed = self._feeds.setdefault(table_id, Feed(table_id))
            feed.followers += 1
            return feed

    def leave(self, feed: Feed) -> None:
        with self._lock:
            feed.followers -= 1
            if feed.followers == 0:
                del self._feeds[feed.table_id]

    @contextmanager
    def following(self, table_id: str) -> Iterator[Feed]:
        feed = self.join(table_id)
        try:
            yield feed
        finally:
            self.leave(feed)

    def get(self, table_id: str) -> Feed | None:
        return self._feeds.get(table_id)

    def offer(self, table: TableRow) -> None:
        """Offer the table a request wrote to its feed, if it has followers here."""
        feed = self._feeds.get(table.table_id)
        if feed is not None:
            feed.offer(replace(table))

    def tables(self) -> Sequence[Feed]:
        with self._lock:
            return list(self._feeds.values())
