"""Streams (tables' and the log's) written from one thread: a streamer's (`service.streaming.streamer`).

Behind gunicorn a stream is handed over once its client has the response's head and what was
due (`HAND_OFF`, which `service.http.gunicorn_worker` offers), and its worker passes it on to
its streamer (`service.streaming.relay`): the socket joins the streamer's fan-out, one thread that
waits on all the handed-over sockets and on their tables' notices.

A change costs the process work per kind of follower, not per follower. The fan-out hears of a
table's changes through one subscription, however many follow it (`_Tap`), and keeps the
table's followers in groups (`Group`): followers with the same view who were sent the same
things so far (`Following.view`, `Following.state`) are sent the same bytes from then on, so
one of them, the group's leader, takes the news and the others only get its bytes, one `send`
each. Groups that come to the same state merge. A table followed by 500 of its four players, an
auditor and the operator is six groups: six makings and 500 sends a change, where moving each
follower would do 500 times the Python work.

Sockets are written without blocking. A client that stops reading while `BEHIND` bytes wait for
it is dropped, and resumes with Last-Event-ID when it reconnects: a slow reader never holds up
the others. A stream ends, as a threaded one does, at its `timeout`, when its client leaves, or
when the token that opened it is revoked.
"""

from __future__ import annotations

import contextlib
import heapq
import logging
import selectors
import socket
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Protocol

from service.application import notify
from service.application.notify import Change
from service.application.principal import Principal
from service.runtime import metrics
from service.runtime.slots import once
from service.streaming.inbox import Inbox

log = logging.getLogger("banco.fanout")

BEHIND = 1 << 20  # bytes unsent to a follower before he is dropped as too slow a reader
BEAT_S = 10.0  # a keep-alive comment after this much silence, as threaded streams send
REMEMBER_S = 600.0  # how long a revocation is kept for the streams opened before it, yet to come
TICK_S = 1.0  # how often keep-alives are looked at, and lost notices made up for
KEEP_ALIVE = b": keep-alive\n\n"
END = b"0\r\n\r\n"  # the last chunk of a chunked response

# The WSGI environ key of a function that takes the request's connection over from the server,
# once the response's head and first chunks are written: the socket, and whether the body is
# chunked. gunicorn offers it (`service.http.gunicorn_worker`) on plain HTTP/1 connections.
HAND_OFF = "banco.hand_off"
TakeOver = Callable[[], tuple[socket.socket, bool]]


class Following(Protocol):
    """What the fan-out moves on: a table's follower (`service.streaming.follower`) or the log's
    (`service.http.feed`). Two followers with the same `view` and `state`, told of the same
    changes, are sent the same bytes and come to the same state again."""

    who: Principal
    polls: bool  # looks for news every `TICK_S` even while notices flow

    def wants(self, change: Change) -> bool: ...
    def heard(self, changes: Sequence[Change] | None) -> None: ...
    def news(self) -> Iterator[bytes]: ...
    def state(self) -> tuple[Any, ...]: ...
    def set_state(self, state: tuple[Any, ...]) -> None: ...
    def view(self) -> Hashable: ...
    def spec(self) -> dict[str, Any]: ...


def chunk(data: bytes) -> bytes:
    """`data` as one chunk of an HTTP/1.1 chunked body."""
    return b"%x\r\n%b\r\n" % (len(data), data)


class Handed:
    """One stream the fan-out writes, from its hand-over to its end."""

    def __init__(self, follower: Following, table_id: str, sock: socket.socket, chunked: bool,
                 deadline: float, since: float, close: Callable[[], None]) -> None:
        self.follower = follower
        self.table_id = table_id
        self.sock = sock
        self.chunked = chunked
        self.deadline = deadline
        self.since = since  # when its token was last known good
        self.out = bytearray()  # written but not yet taken by the socket
        self.group: Group | None = None
        self.closed = False
        self.close = close  # gives back what the stream held; once


class Group:
    """A table's followers that are sent the same bytes: the `leader`'s follower is the one
    moved on, the others' stand where they joined until one of them leads."""

    def __init__(self, leader: Handed) -> None:
        self.leader = leader
        self.members: dict[Handed, None] = {leader: None}  # in the order they came
        self.beat = time.monotonic()  # when it was last written to
        leader.group = self

    def key(self) -> tuple[Hashable, tuple[Any, ...]]:
        follower = self.leader.follower
        return follower.view(), follower.state()

    def absorb(self, other: Group) -> None:
        for handed in other.members:
            handed.group = self
        self.members.update(other.members)
        other.members = {}
        self.beat = min(self.beat, other.beat)

    def leave(self, handed: Handed) -> bool:
        """Take `handed` out; whether any member is left."""
        del self.members[handed]
        handed.group = None
        if handed is self.leader and self.members:
            self.leader = next(iter(self.members))
            self.leader.follower.set_state(handed.follower.state())
        return bool(self.members)


class _Table:
    """The fan-out thread's followers of one table (or of every table, for the log's streams)."""

    def __init__(self, groups: list[Group] | None = None) -> None:
        self.groups: list[Group] = groups or []


class _Tap:
    """The fan-out's one subscription to a table's notices, for all the streams that follow it."""

    def __init__(self, waiter: notify.Waiter) -> None:
        self.waiter = waiter
        self.streams = 0


class Fanout:
    """The fan-out thread of one process, started with its first stream.

    `serve` is called from any thread; the rest is the fan-out thread's own."""

    def __init__(self, notices: notify.Listener) -> None:
        self._notices = notices
        # What the thread is to do, posted from any thread: calls of its own methods. A notice
        # wakes the thread through it at once; the tick only makes up for lost ones.
        self._inbox = Inbox()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._taps: dict[str, _Tap] = {}  # under `_lock`
        # The thread's own, touched by it alone.
        self._tables: dict[str, _Table] = {}
        self._streams: set[Handed] = set()  # handed over and not yet ended
        # The streams' deadlines, soonest first, so that the thread wakes for the next one: a
        # stream ends at its `timeout`, not at the tick after it. Ended streams stay until due.
        self._deadlines: list[tuple[float, int, Handed]] = []
        self._due: dict[str, list[Change] | None] = {}  # changes heard this turn, by table
        self._joining: dict[str, list[Group]] = {}  # streams to look for news, by table
        self._revocations: dict[str, float] = {}  # when each principal's was last heard of
        self._sel: selectors.BaseSelector  # made with the thread
        self.makings = 0  # news taken for a group (and sent to all of it)
        notices.on_revoked(lambda who: self._post(lambda: self._revoked(who)))

    def serve(self, follower: Following, table_id: str, sock: socket.socket, chunked: bool,
              deadline: float, since: float, give_back: Callable[[], None]) -> None:
        """Write `follower`'s news to `sock` (in chunks if `chunked`), on `table_id`'s changes
        (those it `wants`), until `deadline` (monotonic clock) or the stream's end; then call
        `give_back`. It looks for news once as it joins, with the others alike who join with
        it: what changed since its follower last looked is sent then. A stream whose token was
        last known good `since` ends at once if a revocation of it was heard after that."""

        def close() -> None:  # holds no reference to the stream, which is freed once dropped
            self._untap(table_id)
            metrics.OPEN_STREAMS.dec()
            give_back()

        sock.setblocking(False)
        handed = Handed(follower, table_id, sock, chunked, deadline, since, once(close))
        metrics.OPEN_STREAMS.inc()
        with self._lock:
            if self._thread is None:
                self._sel = selectors.DefaultSelector()
                self._thread = threading.Thread(target=self._run, name="banco-fanout",
                                                daemon=True)
                self._thread.start()
        self._tap(table_id)
        self._post(lambda: self._adopted(handed))

    @property
    def streams(self) -> int:
        return len(self._streams)

    # Any thread's

    def _tap(self, table_id: str) -> None:
        with self._lock:
            tap = self._taps.get(table_id)
            if tap is None:
                tap = self._taps[table_id] = _Tap(self._notices.subscribe(
                    table_id, inbox=lambda change: self._post(lambda: self._heard(table_id, change))))
            tap.streams += 1

    def _untap(self, table_id: str) -> None:
        with self._lock:
            tap = self._taps[table_id]
            tap.streams -= 1
            if not tap.streams:
                del self._taps[table_id]
                self._notices.unsubscribe(tap.waiter)

    def _post(self, task: Callable[[], None]) -> None:
        self._inbox.post(task)

    @property
    def wakes(self) -> int:
        """How many times the thread was woken with something posted: by notices, new
        streams and revocations, not by its tick."""
        return self._inbox.wakes

    # The thread's

    def _run(self) -> None:
        self._sel.register(self._inbox.reader, selectors.EVENT_READ, None)
        tick = time.monotonic() + TICK_S
        while True:
            try:
                tick = self._turn(tick)
            except Exception:  # a fault of one turn must not leave every stream unserved
                log.exception("the streams' fan-out failed a turn; it goes on")

    def _turn(self, tick: float) -> float:
        """Wait for sockets, notices, the next stream's deadline or the next tick; serve what
        came. The next tick."""
        wake = tick if not self._deadlines else min(tick, self._deadlines[0][0])
        posted = False
        for key, mask in self._sel.select(max(0.0, wake - time.monotonic())):
            handed: Handed | None = key.data
            if handed is None:  # the inbox has something
                posted = True
                continue
            if mask & selectors.EVENT_READ:
                self._readable(handed)
            if mask & selectors.EVENT_WRITE and not handed.closed:
                self._flush(handed)
        if posted:
            for task in self._inbox.take():
                task()
        now = time.monotonic()
        while self._deadlines and self._deadlines[0][0] <= now:
            self._end(heapq.heappop(self._deadlines)[2])
        if now >= tick:
            tick = now + TICK_S
            self._tick(now)
        due, self._due = self._due, {}
        for table_id, changes in due.items():
            table = self._tables.get(table_id)
            if table is not None:
                self._changed(table, changes)
        joining, self._joining = self._joining, {}
        for table_id, groups in joining.items():
            self._look(table_id, groups)
        return tick

    def _heard(self, table_id: str, change: Change | None) -> None:
        """A notice of `table_id`'s (None: any change may have been missed), served with the
        others of this turn."""
        if change is None:
            self._due[table_id] = None
        else:
            changes = self._due.setdefault(table_id, [])
            if changes is not None:
                changes.append(change)

    def _adopted(self, handed: Handed) -> None:
        if handed.closed:
            return
        self._sel.register(handed.sock, selectors.EVENT_READ, handed)
        self._streams.add(handed)
        heapq.heappush(self._deadlines, (handed.deadline, id(handed), handed))
        heard = self._revocations.get(handed.follower.who.key)
        if heard is not None and heard >= handed.since:
            self._end(handed)  # revoked as it came
            return
        # It looks for news at the end of the turn, with those alike who join with it.
        self._joining.setdefault(handed.table_id, []).append(Group(handed))

    def _look(self, table_id: str, joining: list[Group]) -> None:
        """Have the streams that join a table look for news once, those alike together (a burst
        of reconnections costs a read per kind of follower, not one each), then join its
        groups."""
        alike = _Table(joining)
        self._regroup(alike)
        for group in alike.groups:
            self._step(group, None)
        # Taken after the steps: a drop among them may have let the table go.
        table = self._tables.setdefault(table_id, _Table())
        table.groups += alike.groups
        self._regroup(table)
        if not table.groups:  # every one of them was dropped
            del self._tables[table_id]

    def _revoked(self, who: str) -> None:
        """End the streams that `who`'s token opened, as every node does when it is revoked;
        and those that come later but were opened before (`since`)."""
        now = time.monotonic()
        self._revocations = {k: t for k, t in self._revocations.items() if now - t < REMEMBER_S}
        self._revocations[who] = now
        for handed in list(self._streams):
            if handed.follower.who.key == who:
                self._end(handed)

    def _changed(self, table: _Table, changes: list[Change] | None) -> None:
        """Tell the table's groups of `changes`."""
        for group in table.groups:
            self._step(group, changes)
        self._regroup(table)

    def _step(self, group: Group, changes: list[Change] | None) -> None:
        """Move the group's leader on by the `changes` it wants, and send what they brought
        to every member."""
        if not group.members:  # its last member was dropped this turn
            return
        follower = group.leader.follower
        if changes is not None:
            changes = [change for change in changes if follower.wants(change)]
            if not changes:
                return
        try:
            follower.heard(changes)
            data = b"".join(follower.news())
        except Exception:
            log.exception("a stream failed; its clients reconnect")
            for handed in list(group.members):
                self._drop(handed)
            return
        self.makings += 1
        if data:
            self._send(group, data)

    def _regroup(self, table: _Table) -> None:
        """Merge the table's groups that came to the same state, and forget the empty ones."""
        groups: dict[Hashable, Group] = {}
        for group in table.groups:
            if not group.members:
                continue
            key = group.key()
            into = groups.get(key)
            if into is None:
                groups[key] = group
            else:
                into.absorb(group)
        table.groups = list(groups.values())

    def _tick(self, now: float) -> None:
        """Keep the silent streams alive, and, while notices are not heard, have every stream
        look for news as a threaded one would (and those that look anyway)."""
        listening = self._notices.listening.is_set()
        for table_id, table in list(self._tables.items()):
            if not listening:
                self._heard(table_id, None)
                continue
            for group in list(table.groups):
                if group.leader.follower.polls:
                    self._step(group, None)
                elif now - group.beat > BEAT_S:
                    self._send(group, KEEP_ALIVE)

    def _send(self, group: Group, data: bytes) -> None:
        """`data` to each member: most take it at once; what one cannot take waits for him."""
        group.beat = time.monotonic()
        chunked = chunk(data)
        slow = []
        for handed in group.members:
            payload = chunked if handed.chunked else data
            if handed.out:
                handed.out += payload
                if len(handed.out) > BEHIND:
                    slow.append(handed)
                continue
            try:
                sent = handed.sock.send(payload)
            except BlockingIOError:
                sent = 0
            except OSError:
                slow.append(handed)
                continue
            if sent < len(payload):
                handed.out += payload[sent:]
                self._sel.modify(handed.sock, selectors.EVENT_READ | selectors.EVENT_WRITE,
                                 handed)
        for handed in slow:
            self._drop(handed)

    def _flush(self, handed: Handed) -> None:
        try:
            sent = handed.sock.send(handed.out)
        except BlockingIOError:
            return
        except OSError:
            self._drop(handed)
            return
        del handed.out[:sent]
        if not handed.out:
            self._sel.modify(handed.sock, selectors.EVENT_READ, handed)

    def _readable(self, handed: Handed) -> None:
        """The client left (or sent something, which a stream's client has no reason to)."""
        try:
            if handed.sock.recv(4096):
                return
        except BlockingIOError:
            return
        except OSError:
            pass
        self._drop(handed)

    def _end(self, handed: Handed) -> None:
        """End the response properly, if what was written before has gone, and close."""
        if handed.closed:
            return
        if handed.chunked and not handed.out:
            with contextlib.suppress(OSError):
                handed.sock.send(END)
        self._drop(handed)

    def _drop(self, handed: Handed) -> None:
        if handed.closed:
            return
        handed.closed = True  # what the inbox still holds for it is dropped
        self._streams.discard(handed)
        group = handed.group
        if group is not None and not group.leave(handed):
            # Taken out of the table's groups now, and not merged: that waits for the end of
            # the change being told, whose other groups may not have heard it yet.
            table = self._tables.get(handed.table_id)
            if table is not None:
                table.groups = [g for g in table.groups if g is not group]
                if not table.groups:
                    del self._tables[handed.table_id]
        self._sel.unregister(handed.sock)
        handed.sock.close()
        handed.close()
        # An ended stream's place among the deadlines holds its follower, and through it the
        # table's feed with the events it keeps, until its `timeout`: the streamer's garbage
        # collections walked them all, a pause felt by every live follower. Once the ended are
        # as many as the live, they are forgotten (each stream's end pays for one look, at most).
        if len(self._deadlines) > 2 * len(self._streams):
            self._deadlines = [d for d in self._deadlines if not d[2].closed]
            heapq.heapify(self._deadlines)
