"""Table changes pushed to this process's streams: one thread LISTENs, the streams wait on it.

Every write of a table's row notifies PostgreSQL's `banco_tables` channel when its transaction
commits (`projections.tables.save`), from the API and from the workers alike. A stream that
follows a table waits for such a notice instead of asking PostgreSQL again and again. While the
listener stays connected, silence means that nothing changed; a listener that was not listening
for the whole of a wait makes it answer "anything may have changed", and the stream looks: a
notice lost while the listener reconnects only delays the news by up to `FALLBACK_S` seconds.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

import psycopg

from projections.tables import CHANNEL

log = logging.getLogger("banco.notify")

FALLBACK_S = 1.0  # how long a stream waits without a notice before it looks anyway
EVERY_TABLE = "*"  # subscribe with it to hear of every table's changes (the log's feed)
# A notice on the same channel that a principal's tokens were revoked: the streams that every
# API node holds for him end, as his next request would be refused (a table's notice starts
# with its id, `tb_...`).
REVOKED = "revoked "


def revoked(conn: psycopg.Connection, who: str) -> None:
    """Tell every node, when the revoking transaction commits, to end `who`'s open streams."""
    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, REVOKED + who))


@dataclass(frozen=True)
class Change:
    """A committed change of a table: its new version, whose turn it is, its status, who, and in
    which transaction."""

    table_id: str
    version: int
    seat: int | None
    status: str
    actor: str | None = None  # the principal whose command made the change (`role:subject`)
    txid: int | None = None  # the transaction that committed it

    @classmethod
    def parse(cls, payload: str) -> Change | None:
        parts = payload.split(" ")
        # Five parts from a process of the release before, which did not name the transaction.
        if len(parts) not in (5, 6) or not parts[1].isdigit():
            return None
        seat = int(parts[2]) if parts[2].isdigit() else None
        txid = int(parts[5]) if len(parts) == 6 and parts[5].isdigit() else None
        return cls(parts[0], int(parts[1]), seat, parts[3], None if parts[4] == "-" else parts[4],
                   txid)


class Waiter:
    """One stream's place in the listener: the changes of its table it `wants`, and a flag.

    Its notices pass through a `queue.SimpleQueue`, whose put and get are single C calls: a
    change wakes hundreds of a table's streams at once, and a `threading.Event` with a list
    beside it would cost each of them, and the listener once for each, several Python-level
    lock round trips under the GIL, in front of the requests the process serves meanwhile."""

    def __init__(self, table_id: str, wants: Callable[[Change], bool] | None = None,
                 listener: Listener | None = None, who: str | None = None,
                 inbox: Callable[[Change | None], None] | None = None) -> None:
        self.table_id = table_id
        self.wants = wants
        self.who = who  # the subscriber's principal key, whose revocation ends the stream
        self.revoked = False
        self._listener = listener
        self._queue: queue.SimpleQueue[Change | None] = queue.SimpleQueue()
        # Where the changes go instead when one thread serves many streams (`service.streaming.fanout`
        # subscribes once for all of a table's), rather than being waited for with `wait`.
        self._put = self._queue.put if inbox is None else inbox
        self._heard = False  # a notice came that the stream did not want

    def wake(self, change: Change | None) -> None:
        """Note `change` (None: anything may have changed); one the stream does not want does
        not wake it, but shows that notices still flow."""
        if change is not None and self.wants is not None and not self.wants(change):
            self._heard = True
            return
        self._put(change)

    def wait(self, timeout: float) -> list[Change] | None:
        """The changes since the last call; [] when `timeout` passed with only notices the
        stream did not want, or none while the listener listened throughout; None when the
        listener was not listening all along, or lost its connection: anything may have changed."""
        listener = self._listener
        epoch = listener.epoch if listener is not None and listener.listening.is_set() else None
        got: list[Change | None] = []
        try:
            got.append(self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait())
            while True:
                got.append(self._queue.get_nowait())
        except queue.Empty:
            pass
        heard, self._heard = self._heard, False
        changes = [c for c in got if c is not None]
        if changes:
            return changes
        if got:
            return None
        quiet = (listener is not None and epoch is not None and listener.listening.is_set()
                 and listener.epoch == epoch)
        return [] if heard or quiet else None


class Listener:
    """The process's LISTEN connection, started with the first subscriber."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._lock = threading.Lock()
        self._waiters: dict[str, set[Waiter]] = {}
        self._thread: threading.Thread | None = None
        self._revoked: list[Callable[[str], None]] = []  # told of every revocation
        self._kept = False  # listens whether anyone waits or not (`keep`)
        self.listening = threading.Event()  # set while the LISTEN connection is up
        self.epoch = 0  # how many times it came up: a wait that spans a reconnection sees it change

    def subscribe(self, table_id: str, wants: Callable[[Change], bool] | None = None,
                  who: str | None = None,
                  inbox: Callable[[Change | None], None] | None = None) -> Waiter:
        waiter = Waiter(table_id, wants, self, who, inbox)
        with self._lock:
            self._waiters.setdefault(table_id, set()).add(waiter)
            self._start()
        return waiter

    def keep(self) -> None:
        """Listen from now on, whether anyone waits or not: for a process that must hear every
        revocation, even one made before its next subscriber comes (`service.streaming.streamer`)."""
        with self._lock:
            self._kept = True
            self._start()

    def release(self) -> None:
        """Undo `keep`: the thread ends at its next look (within `FALLBACK_S`) once nobody waits,
        and holds no connection after, for a process that goes on without a streamer."""
        with self._lock:
            self._kept = False

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="banco-notify", daemon=True)
            self._thread.start()

    def on_revoked(self, tell: Callable[[str], None]) -> None:
        """Have `tell` called with the principal's key whenever a revocation is heard: for one
        subscriber that serves many principals' streams (`service.streaming.fanout`)."""
        self._revoked.append(tell)

    def unsubscribe(self, waiter: Waiter) -> None:
        with self._lock:
            waiting = self._waiters.get(waiter.table_id)
            if waiting is not None:
                waiting.discard(waiter)
                if not waiting:
                    del self._waiters[waiter.table_id]

    def _wake(self, table_id: str | None, change: Change | None) -> None:
        with self._lock:
            if table_id is None:
                waiting = [w for ws in self._waiters.values() for w in ws]
            else:  # looked up, not searched for: a notice costs the same at 4 tables or 4,000
                waiting = [*self._waiters.get(table_id, ()), *self._waiters.get(EVERY_TABLE, ())]
        for w in waiting:
            w.wake(change)

    def _revoke(self, who: str) -> None:
        with self._lock:
            waiting = [w for ws in self._waiters.values() for w in ws if w.who == who]
        for w in waiting:
            w.revoked = True
            w.wake(None)
        for tell in self._revoked:
            tell(who)

    def _idle(self) -> bool:
        """Whether nobody is waiting any more; if so the thread ends (and the next subscriber
        starts another), so an idle process holds no connection for this."""
        with self._lock:
            if self._waiters or self._kept:
                return False
            self._thread = None
            # Under the lock: once it is let go, a new subscriber starts another thread, whose
            # `listening` this thread must not clear after it was set.
            self.listening.clear()
            return True

    def _run(self) -> None:
        while True:
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.epoch += 1
                    self.listening.set()
                    self._wake(None, None)  # whatever happened while we were not listening
                    while True:
                        for notice in conn.notifies(timeout=FALLBACK_S):
                            if notice.payload.startswith(REVOKED):
                                self._revoke(notice.payload.removeprefix(REVOKED))
                                continue
                            change = Change.parse(notice.payload)
                            if change is not None:
                                self._wake(change.table_id, change)
                        if self._idle():
                            return
            except psycopg.Error as e:
                self.listening.clear()
                log.warning("table notices interrupted (%s); streams poll until they resume", e)
                self._wake(None, None)
                if self._idle():
                    return
                threading.Event().wait(FALLBACK_S)
