"""The process's streams behind gunicorn (tables' and the log's), written from one thread.

A stream served by a thread of its own costs, at every change of its table, a thread woken, the
GIL taken and passed on, its news picked and written, and the thread put back to sleep: at 500
followers of one table, that is most of what a move there costs the process. Behind gunicorn a
stream is instead handed over once its client has the response's head and what was due
(`HAND_OFF`, which `service.http.gunicorn_worker` offers): its socket joins this fan-out, one
thread that waits on all the handed-over sockets and on the notices of their tables. A change
makes each distinct follower's news once (followers with the same view, sent the same things so
far, are sent the same bytes) and costs every other follower one `send` of bytes already made.

Sockets are written without blocking. A client that stops reading while `BEHIND` bytes wait for
it is dropped, and resumes with Last-Event-ID when it reconnects: a slow reader never holds up
the others. A stream ends, as a threaded one does, at its `timeout`, when its client leaves, or
when the token that opened it is revoked.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import selectors
import socket
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Protocol, cast

from service.commands import notify
from service.commands.notify import Change
from service.commands.principal import Principal
from service.http.slots import once
from service.runtime import metrics

log = logging.getLogger("banco.fanout")

BEHIND = 1 << 20  # bytes unsent to a follower before he is dropped as too slow a reader
BEAT_S = 10.0  # a keep-alive comment after this much silence, as threaded streams send
TICK_S = 1.0  # how often deadlines and keep-alives are looked at, and lost notices made up for
KEEP_ALIVE = b": keep-alive\n\n"
END = b"0\r\n\r\n"  # the last chunk of a chunked response

# The WSGI environ key of a function that takes the request's connection over from the server,
# once the response's head and first chunks are written: the socket, and whether the body is
# chunked. gunicorn offers it (`service.http.gunicorn_worker`) on plain HTTP/1 connections.
HAND_OFF = "banco.hand_off"
TakeOver = Callable[[], tuple[socket.socket, bool]]

_ADOPT = object()  # an inbox entry: the stream's socket is ours now


class Following(Protocol):
    """What the fan-out moves on: a table's follower (`service.http.follower`) or the log's
    (`service.http.feed`)."""

    who: Principal
    polls: bool  # looks for news every `TICK_S` even while notices flow

    def wants(self, change: Change) -> bool: ...
    def heard(self, changes: Sequence[Change] | None) -> None: ...
    def news(self) -> Iterator[bytes]: ...
    def state(self) -> tuple[Any, ...]: ...
    def set_state(self, state: tuple[Any, ...]) -> None: ...
    def view(self) -> Hashable: ...


def chunk(data: bytes) -> bytes:
    """`data` as one chunk of an HTTP/1.1 chunked body."""
    return b"%x\r\n%b\r\n" % (len(data), data)


class Handed:
    """One stream the fan-out writes, from its subscription (before the hand-over) to its end."""

    def __init__(self, follower: Following, deadline: float,
                 close: Callable[[], None]) -> None:
        self.follower = follower
        self.deadline = deadline
        self.waiter: notify.Waiter | None = None
        self.sock: socket.socket | None = None
        self.chunked = True
        self.beat = 0.0  # when it was last written to
        self.out = bytearray()  # written but not yet taken by the socket
        self.early: list[Change | None] = []  # notices that came before the hand-over
        self.closed = False
        self.close = close  # gives back what the stream held; once, from any thread


class Fanout:
    """The fan-out thread of one process, started with its first stream."""

    def __init__(self, notices: notify.Listener) -> None:
        self._notices = notices
        self._inbox: queue.SimpleQueue[tuple[Handed, object]] = queue.SimpleQueue()
        # Written to wake the thread's `select` when the inbox has something; made with the thread.
        self._wake_w: socket.socket | None = None
        self._signalled = False
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._streams: set[Handed] = set()

    def subscribe(self, follower: Following, table_id: str, deadline: float,
                  give_back: Callable[[], None]) -> Handed:
        """A stream for `follower`, hearing of `table_id`'s changes (those it `wants`) from now
        on: those that come before it is handed over (`adopt`) are kept for then. Its `close`
        (which calls `give_back`) must be called if it never is."""
        handed: Handed

        def close() -> None:
            handed.closed = True  # what the inbox still holds for it is dropped
            if handed.waiter is not None:
                self._notices.unsubscribe(handed.waiter)
            metrics.OPEN_STREAMS.dec()
            give_back()

        handed = Handed(follower, deadline, once(close))
        metrics.OPEN_STREAMS.inc()
        handed.waiter = self._notices.subscribe(table_id, follower.wants, follower.who.key,
                                                lambda change: self._post(handed, change))
        return handed

    def adopt(self, handed: Handed, sock: socket.socket, chunked: bool) -> None:
        """Write `handed` to `sock` from now on (in chunks if `chunked`)."""
        sock.setblocking(False)
        handed.sock, handed.chunked, handed.beat = sock, chunked, time.monotonic()
        with self._lock:
            if self._thread is None:
                wake, self._wake_w = socket.socketpair()
                wake.setblocking(False)
                self._wake_w.setblocking(False)
                self._thread = threading.Thread(target=self._run, args=(wake,),
                                                name="banco-fanout", daemon=True)
                self._thread.start()
        self._post(handed, _ADOPT)

    @property
    def streams(self) -> int:
        return len(self._streams)

    def _post(self, handed: Handed, item: object) -> None:
        self._inbox.put((handed, item))
        # Before the first hand-over there is no thread to wake: it reads the inbox as it starts.
        if not self._signalled and self._wake_w is not None:
            self._signalled = True
            with contextlib.suppress(BlockingIOError):  # woken already
                self._wake_w.send(b"\0")

    def _run(self, wake: socket.socket) -> None:
        sel = selectors.DefaultSelector()
        sel.register(wake, selectors.EVENT_READ, None)
        tick = time.monotonic() + TICK_S
        while True:
            try:
                tick = self._turn(sel, tick)
            except Exception:  # a fault of one turn must not leave every stream unserved
                log.exception("the streams' fan-out failed a turn; it goes on")

    def _turn(self, sel: selectors.BaseSelector, tick: float) -> float:
        """Wait for sockets, notices or the next tick; serve what came. The next tick."""
        for key, mask in sel.select(max(0.0, tick - time.monotonic())):
            handed: Handed | None = key.data
            if handed is None:  # the inbox has something
                self._signalled = False  # before the inbox is read: a later post wakes us
                with contextlib.suppress(BlockingIOError):
                    while cast(socket.socket, key.fileobj).recv(4096):
                        pass
                continue
            if mask & selectors.EVENT_READ:
                self._readable(sel, handed)
            if mask & selectors.EVENT_WRITE and not handed.closed:
                self._flush(sel, handed)
        woken = self._woken(sel)
        now = time.monotonic()
        if now >= tick:
            tick = now + TICK_S
            self._tick(sel, now, woken)
        made: dict[Any, tuple[tuple[Any, ...], bytes, bytes]] = {}
        for handed, changes in woken.items():
            self._step(sel, handed, changes, made)
        return tick

    def _woken(self, sel: selectors.BaseSelector) -> dict[Handed, list[Change] | None]:
        """The streams the inbox wakes, each with the changes it heard (None: any may have
        been missed)."""
        woken: dict[Handed, list[Change] | None] = {}

        def add(handed: Handed, change: Change | None) -> None:
            if change is None:
                woken[handed] = None
            else:
                changes = woken.setdefault(handed, [])
                if changes is not None:
                    changes.append(change)

        while True:
            try:
                handed, item = self._inbox.get_nowait()
            except queue.Empty:
                return woken
            if handed.closed:
                continue
            if item is _ADOPT:
                assert handed.sock is not None
                sel.register(handed.sock, selectors.EVENT_READ, handed)
                self._streams.add(handed)
                for change in handed.early:
                    add(handed, change)
                handed.early = []
            elif handed.sock is None:
                handed.early.append(item)  # type: ignore[arg-type]
            else:
                add(handed, item)  # type: ignore[arg-type]

    def _step(self, sel: selectors.BaseSelector, handed: Handed, changes: list[Change] | None,
              made: dict[Any, tuple[tuple[Any, ...], bytes, bytes]]) -> None:
        """Tell `handed` of `changes` and send what they brought him, made once for all the
        followers woken with him that share his view and what they were sent so far."""
        if handed.closed:
            return
        if handed.waiter is not None and handed.waiter.revoked:
            self._end(sel, handed)  # the token that opened it was revoked, on any node
            return
        follower = handed.follower
        # The changes by identity: the listener wakes every follower with the same objects,
        # which the turn holds (in `woken`) until it ends; hashing their fields would cost
        # more than the rest of a follower's share of the turn.
        key = (follower.view(), follower.state(),
               None if changes is None else tuple(map(id, changes)))
        done = made.get(key)
        if done is None:
            try:
                follower.heard(changes)
                data = b"".join(follower.news())
            except Exception:
                log.exception("a stream failed; its client reconnects")
                self._drop(sel, handed)
                return
            done = made[key] = (follower.state(), data, chunk(data) if data else b"")
        else:
            follower.set_state(done[0])
        if done[1]:
            self._send(sel, handed, done[2] if handed.chunked else done[1])

    def _tick(self, sel: selectors.BaseSelector, now: float,
              woken: dict[Handed, list[Change] | None]) -> None:
        """End the streams whose time is up, keep the silent ones alive, and, while notices are
        not heard, have every stream look for news as a threaded one would (and those that look
        anyway)."""
        listening = self._notices.listening.is_set()
        for handed in list(self._streams):
            if now >= handed.deadline:
                self._end(sel, handed)
            elif not listening or handed.follower.polls:
                woken[handed] = None
            elif now - handed.beat > BEAT_S:
                self._send(sel, handed, chunk(KEEP_ALIVE) if handed.chunked else KEEP_ALIVE)

    def _send(self, sel: selectors.BaseSelector, handed: Handed, data: bytes) -> None:
        handed.beat = time.monotonic()
        if handed.out:
            handed.out += data
            if len(handed.out) > BEHIND:
                self._drop(sel, handed)
            return
        assert handed.sock is not None
        try:
            sent = handed.sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            self._drop(sel, handed)
            return
        if sent < len(data):
            handed.out += data[sent:]
            sel.modify(handed.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, handed)

    def _flush(self, sel: selectors.BaseSelector, handed: Handed) -> None:
        assert handed.sock is not None
        try:
            sent = handed.sock.send(handed.out)
        except BlockingIOError:
            return
        except OSError:
            self._drop(sel, handed)
            return
        del handed.out[:sent]
        if not handed.out:
            sel.modify(handed.sock, selectors.EVENT_READ, handed)

    def _readable(self, sel: selectors.BaseSelector, handed: Handed) -> None:
        """The client left (or sent something, which a stream's client has no reason to)."""
        assert handed.sock is not None
        try:
            if handed.sock.recv(4096):
                return
        except BlockingIOError:
            return
        except OSError:
            pass
        self._drop(sel, handed)

    def _end(self, sel: selectors.BaseSelector, handed: Handed) -> None:
        """End the response properly, if what was written before has gone, and close."""
        if handed.chunked and not handed.out and handed.sock is not None:
            with contextlib.suppress(OSError):
                handed.sock.send(END)
        self._drop(sel, handed)

    def _drop(self, sel: selectors.BaseSelector, handed: Handed) -> None:
        if handed.closed:
            return
        self._streams.discard(handed)
        if handed.sock is not None:
            with contextlib.suppress(KeyError, ValueError):  # not registered yet
                sel.unregister(handed.sock)
            handed.sock.close()
        handed.close()

