"""Calls posted from any thread to one thread that waits on sockets: the fan-out's
(`service.streaming.fanout`), which hears of its tables' notices and of new streams this way."""

from __future__ import annotations

import contextlib
import queue
import socket
from collections.abc import Callable

Task = Callable[[], None]


class Inbox:
    """Tasks for one thread, which selects `reader` among its sockets: it reads readable while
    a posted task waits, and the thread then `take`s them all."""

    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue[Task] = queue.SimpleQueue()
        self.reader, self._writer = socket.socketpair()
        self.reader.setblocking(False)
        self._writer.setblocking(False)
        # Whether a byte was written that the thread has not read yet: while it is busy, a
        # burst of posts costs one `send`, not one each. It is cleared only once that byte is
        # read (`take`). Cleared before, a post between the clearing and the read would have
        # its byte swallowed by that read and leave the flag set over an empty socket: every
        # later post would skip its `send`, and the thread would only find its tasks when
        # its `select` timed out, a tick late each time.
        self._signalled = False
        self.wakes = 0  # times `take` was called with something to take

    def post(self, task: Task) -> None:
        self._tasks.put(task)  # before the flag is read: a `take` after the clearing finds it
        if not self._signalled:
            self._signalled = True
            with contextlib.suppress(BlockingIOError):  # full: the thread is woken already
                self._writer.send(b"\0")

    def take(self) -> list[Task]:
        """The tasks posted so far, in order."""
        with contextlib.suppress(BlockingIOError):
            while self.reader.recv(4096):
                pass
        self._signalled = False
        tasks: list[Task] = []
        while True:
            try:
                tasks.append(self._tasks.get_nowait())
            except queue.Empty:
                break
        if tasks:
            self.wakes += 1
        return tasks

    def close(self) -> None:
        self.reader.close()
        self._writer.close()
