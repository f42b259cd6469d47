"""Request heads read without a thread, and bodies read against a deadline.

gunicorn's gthread worker hands a connection to one of its threads as soon as the connection is
readable, and the thread then blocks in gunicorn's parser until the request's head has come: a
client that sends a header line every few seconds holds a thread for as long as it goes on, and
a few dozen such clients, which need no token and are never rate-limited, hold them all. Banco's
worker (`service.http.gunicorn_worker`) reads each head itself instead, without blocking, from
its poller (`Head`), and gives a connection to a thread only once gunicorn's parser can rule on
the head at once: the whole head has come, or what came is already refused (a line too long, a
bare LF). A head not complete within `BANCO_HEAD_TIMEOUT_S` is answered 408 and its connection
closed. The body is read by the thread, as the app asks for it, within `BANCO_BODY_TIMEOUT_S`
(`DeadlineUnreader`), past which the app answers 408.
"""

from __future__ import annotations

import time
from typing import Any

from gunicorn.http.errors import NoMoreData
from gunicorn.http.message import Request
from gunicorn.http.unreader import IterUnreader, SocketUnreader

from service.http.problems import Problem

# How much a head may grow, beside a line ending, before gunicorn's parser is asked again whether
# it refuses it: often enough that a head over its limits is refused soon, seldom enough that a
# client sending a byte at a time cannot make the worker parse its head again for every byte.
RULE_EVERY = 16 * 1024


class Head:
    """What a connection has sent of its next request's head, and until when it may send it."""

    __slots__ = ("_ruled_at", "data", "deadline")

    def __init__(self, data: bytes, deadline: float) -> None:
        self.data = bytearray(data)
        self.deadline = deadline
        self._ruled_at = -1  # the head's length when gunicorn's parser last looked at it

    def size(self) -> int:
        """The head's bytes: up to its end if it has come, without what follows of a body."""
        end = self.data.find(b"\r\n\r\n")
        return len(self.data) if end < 0 else end + 4

    def ready(self, cfg: Any, client: Any, number: int) -> bool:
        """Whether gunicorn's parser (its configuration `cfg`, request `number` of the
        connection from `client`) can rule on the head without waiting for more of it."""
        data = bytes(self.data)
        if b"\r\n\r\n" in data:
            return True
        last = self._ruled_at
        if b"\n" not in data[max(last, 0):] and len(data) < last + RULE_EVERY:
            return False
        self._ruled_at = len(data)
        try:
            Request(cfg, IterUnreader([data]), client, number)
        except (NoMoreData, StopIteration):
            return False  # it wants more
        except Exception:
            # Refused: the thread's parse raises the same, and gunicorn answers it there (a
            # 400, 414 or 431), as it would have. Whatever it is, the poller goes on.
            return True
        return True


class DeadlineUnreader(SocketUnreader):
    """gunicorn's reader of a connection, that waits for a request's body until `deadline` (a
    `time.monotonic()`) at most, then raises a 408 `Problem` for the app to answer."""

    def __init__(self, sock: Any) -> None:
        super().__init__(sock)
        self.deadline: float | None = None

    def chunk(self, size_hint: int | None = None) -> bytes:
        if self.deadline is None:
            return super().chunk(size_hint)
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise _late()
        # A timeout of the socket's own bounds this one read; it is put back for the writes
        # that follow, which are not the client's to hold up within this deadline.
        before = self.sock.gettimeout()
        self.sock.settimeout(remaining if before is None else min(before, remaining))
        try:
            return super().chunk(size_hint)
        except TimeoutError:
            # Not left as an OSError: werkzeug reads one from the body as the client gone, a 400.
            raise _late() from None
        finally:
            self.sock.settimeout(before)


def _late() -> Problem:
    return Problem(408, "request_timeout", "the request's body did not come in time; send it again")
