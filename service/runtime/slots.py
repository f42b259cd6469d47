"""Bounds on what a process holds for as long as a client reads or waits.

An open stream or a waiting long poll holds one of the process's gunicorn threads; a streamed
export holds a database connection. Each kind takes a slot first, without waiting: with every
slot held, the request is refused at once (a 503 with Retry-After) instead of queueing in front
of the short requests (moves, reads) that every client needs.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable


def once(*steps: Callable[[], None]) -> Callable[[], None]:
    """`steps` run in order the first time the result is called, and never again."""
    done = threading.Event()

    def run() -> None:
        if not done.is_set():
            done.set()
            for step in steps:
                step()

    return run


class Slots:
    """At most `capacity` holders at once; unbounded when `capacity` is None."""

    def __init__(self, capacity: int | None) -> None:
        self._free = None if capacity is None else threading.BoundedSemaphore(capacity)

    def take(self) -> Callable[[], None] | None:
        """A slot taken now, as the function that gives it back (once, however often it is
        called); None when every slot is held."""
        free = self._free
        if free is None:
            return once()
        if not free.acquire(blocking=False):
            return None
        return once(free.release)


def for_waiting(threads: int | None) -> Slots:
    """Streams and long polls may hold all but a quarter of a process's threads
    (`BANCO_THREADS`, which `banco run` and `banco serve` set to gunicorn's `--threads`);
    unbounded when that number is not known (an app run by other means)."""
    return Slots(None if threads is None else max(1, threads - max(1, threads // 4)))


class Gate:
    """At most `width` holders at once, a holder waiting for a place at most `patience` seconds
    and then going on without one: the gate spaces out work, it never stops it.

    The places are tokens in a `queue.SimpleQueue`: a thread waiting for one sleeps in C,
    outside the GIL's queue, and is woken first come, first served."""

    def __init__(self, width: int, patience: float) -> None:
        self.patience = patience
        self._places: queue.SimpleQueue[None] = queue.SimpleQueue()
        for _ in range(width):
            self._places.put(None)

    def enter(self) -> Callable[[], None]:
        """Wait for a place (for `patience` at most); the function that leaves it."""
        try:
            self._places.get(timeout=self.patience)
        except queue.Empty:
            return once()  # went on without a place: none to give back
        return once(lambda: self._places.put(None))
