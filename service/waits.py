"""Requests that wait (streams, long polls) and the threads they hold.

Each open stream or waiting long poll holds one of its process's gunicorn threads for as long as
it waits. Left unbounded they could hold every thread, and the moves and reads behind them
would queue until some stream ended. So they may hold all but a quarter of the threads
(`BANCO_THREADS`, which `banco run` and `banco serve` set to gunicorn's `--threads`); past that
a new one is refused at once with a 503 and a Retry-After. Unbounded when the number is not
known (an app run by other means than those two commands).
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Waits:
    def __init__(self, threads: int | None) -> None:
        self.capacity = None if threads is None else max(1, threads - max(1, threads // 4))
        self._slots = None if self.capacity is None else threading.BoundedSemaphore(self.capacity)

    def take(self) -> Callable[[], None] | None:
        """A slot taken now, as the function that gives it back (once, however often it is
        called); None when every slot is held."""
        slots = self._slots
        if slots is None:
            return lambda: None
        if not slots.acquire(blocking=False):
            return None
        given_back = threading.Event()

        def give_back() -> None:
            if not given_back.is_set():
                given_back.set()
                slots.release()

        return give_back
