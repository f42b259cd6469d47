"""Bounds on what a process holds for as long as a client reads or waits.

An open stream or a waiting long poll holds one of the process's gunicorn threads; a streamed
export holds a database connection. Each kind takes a slot first, without waiting: with every
slot held, the request is refused at once (a 503 with Retry-After) instead of queueing in front
of the short requests (moves, reads) that every client needs.
"""

from __future__ import annotations

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
