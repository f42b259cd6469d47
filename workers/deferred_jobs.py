"""The jobs a committed table change needs, sent to Redis by one thread per process, in batches.

An action ends one turn and begins the next: its turn's timeout job is cancelled and the next
turn's is scheduled (`workers.timeouts.after`). Done in the request, that is a Redis round trip
and some RQ bookkeeping on every move, paid before the client has his answer. Here the request
only records what it needs; a thread sends what accumulated every `DELAY_S` seconds, in one
pipeline. A turn that begins and ends within that delay (the usual case at a busy table) never
reaches Redis at all: its schedule and its cancellation annul each other.

The move that ends a turn may be served by another process, which cannot annul what this one
holds: before a batch is sent, the tables' current versions are read (one query for the batch),
and a turn its table has moved past is dropped rather than left in Redis to fire for nothing.

Nothing is lost by waiting: deadlines are absolute times, so a job written `DELAY_S` late still
fires at its deadline, and settlement jobs are never dropped. If the process dies with changes
not yet sent, or Redis is down, the deadline and the `settling` status are in PostgreSQL, where
the workers' sweeper finds them (`workers.sweeper`), as it does for any job that was lost.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from weakref import WeakSet

from redis import Redis

from projections.tables import TableRow
from service.runtime import tracing
from workers import timeouts

log = logging.getLogger("banco.jobs")

# How long a change waits for the next one of its table before it is sent. A turn shorter than
# this never reaches Redis: at a busy table most are (a Sette e mezzo turn lasts tens of ms),
# and at 0.05 s most turns still outlived it, each costing an RQ job written and then
# cancelled (about a tenth of the API's CPU per action, bench/README.md). The delay is small
# beside the shortest turn timeout (1 s) and RQ's scheduler, which looks once a second.
DELAY_S = 0.25
IDLE_S = 5.0  # an idle sender thread ends; the next change starts another

_live: WeakSet[DeferredJobs] = WeakSet()

# The current version of each of some tables (those that exist), from the table projection.
Versions = Callable[[Sequence[str]], Mapping[str, int]]


@dataclass
class _Table:
    """What one table needs sent: the deadline of its newest turn, and stale ones to cancel."""

    turn: TableRow | None = None  # the newest change with a deadline, not yet scheduled
    cancel: set[int] = field(default_factory=set)  # versions whose jobs may be in Redis
    settle: list[str] = field(default_factory=list)  # hands to settle, in order
    # The trace context of the newest change's queueing, which its jobs carry (when tracing).
    trace: dict[str, str] | None = None


class DeferredJobs:
    def __init__(self, connection: Redis, queue_name: str, delay_s: float = DELAY_S,
                 versions: Versions | None = None) -> None:
        self.connection = connection
        self.queue_name = queue_name
        self.delay_s = delay_s
        self.versions = versions
        self._lock = threading.Lock()
        self._pending: dict[str, _Table] = {}
        self._wake = threading.Event()
        self._hurry = threading.Event()
        self._thread: threading.Thread | None = None
        _live.add(self)

    def after(self, table: TableRow, ended: int | None = None) -> None:
        """Record what the committed `table` needs, as `timeouts.after` would send it: its
        settlement queued, or its turn's deadline scheduled; and the timeout of the turn it
        `ended` (the version that turn began at) cancelled."""
        trace = tracing.queued("jobs")  # in the request's trace: before the lock
        with self._lock:
            pending = self._pending.setdefault(table.table_id, _Table())
            if trace is not None:
                pending.trace = trace
            unsent = pending.turn
            if unsent is not None and unsent.version < table.version:
                # The table has moved past that turn: it ended before its job was written.
                pending.turn = None
                if ended == unsent.version:
                    ended = None
            if ended is not None:
                pending.cancel.add(ended)
            settle = timeouts.settlement(table)
            if settle is not None:
                pending.settle.append(settle[1])
                self._hurry.set()  # the players wait for it: no delay
            elif timeouts.deadline(table) is not None and (
                    pending.turn is None or pending.turn.version < table.version):
                # (A change committed earlier may be recorded later: its turn is over already.)
                pending.turn = table
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="banco-jobs", daemon=True)
                self._thread.start()
        self._wake.set()

    def flush(self) -> None:
        """Send everything recorded so far, now (tests, and a process on its way out)."""
        with self._lock:
            pending, self._pending = self._pending, {}
            self._hurry.clear()
        if not pending:
            return
        try:
            self._send(pending)
        except Exception:  # Redis unreachable: the sweeper will do it from PostgreSQL
            log.warning("could not schedule work for %d table(s); the sweeper will", len(pending))

    def _send(self, pending: dict[str, _Table]) -> None:
        turns = {t: p.turn for t, p in pending.items() if p.turn is not None}
        if turns and self.versions is not None:
            try:
                current = self.versions(list(turns))
            except Exception:  # cannot tell: send them all; a job for a turn over does nothing
                log.warning("could not read the tables' versions; scheduling every turn")
                current = {}
            turns = {t: turn for t, turn in turns.items()
                     if current.get(t, turn.version) == turn.version}
        timeouts.send(
            self.connection, self.queue_name,
            settle=[(t, hand_id) for t, p in pending.items() for hand_id in p.settle],
            turns=[due for turn in turns.values() if (due := timeouts.deadline(turn)) is not None],
            ended=[(t, version) for t, p in pending.items() for version in p.cancel],
            traces={t: p.trace for t, p in pending.items() if p.trace is not None})

    def _run(self) -> None:
        while True:
            if not self._wake.wait(IDLE_S):
                with self._lock:
                    if not self._pending:
                        self._thread = None
                        return
            self._wake.clear()
            self._hurry.wait(self.delay_s)  # let the changes that follow soon join in
            self.flush()


@atexit.register
def _flush_all() -> None:
    for jobs in list(_live):
        jobs.flush()
