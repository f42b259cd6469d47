"""Slow clients hold sockets, not threads (service/http/slow_clients.py): a real `banco serve` as
shipped (2 workers x 64 threads) answers ordinary requests while 500 connections send their
heads a line every two seconds, and ends those heads and slow bodies with a 408; clients that
keep their side open after an answer that closes the connection hold up nothing either."""

from __future__ import annotations

import contextlib
import http.client
import selectors
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import orjson
import pytest

from service.runtime.config import Config
from tests.service.conftest import OPERATOR_KEY, banco_serve

SLOW = 500
BODY_TIMEOUT_S = 2


@pytest.fixture(scope="module")
def served(config: Config) -> Iterator[int]:
    """`banco serve` with its default workers and threads, on the session's servers: its port."""
    with banco_serve(config, BANCO_RATE_LIMIT="1000000/minute",
                     BANCO_BODY_TIMEOUT_S=str(BODY_TIMEOUT_S)) as port:
        yield port


class Dripping:
    """Connections that each send `start`, then `drip` every `every_s` seconds, until the server
    answers them or `for_s` have passed."""

    def __init__(self, port: int, count: int, start: bytes, drip: bytes, every_s: float,
                 for_s: float = 40) -> None:
        self.socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
        for s in self.socks:
            s.sendall(start)
        self._drip, self._every_s, self._until = drip, every_s, time.monotonic() + for_s
        self._answered: set[socket.socket] = set()
        self._lock = threading.Lock()  # the answered set, read by the test while this drips
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._every_s) and time.monotonic() < self._until:
            for s in self.socks:
                with self._lock:
                    if s in self._answered:
                        continue
                with contextlib.suppress(OSError):
                    s.sendall(self._drip)

    def answered(self) -> int:
        """How many the server has answered or closed so far."""
        with selectors.DefaultSelector() as sel:
            for s in self.socks:
                sel.register(s, selectors.EVENT_READ)
            ready = {key.fileobj for key, _ in sel.select(0)}
        with self._lock:
            self._answered |= ready  # type: ignore[arg-type]
            return len(self._answered)

    def statuses(self, within_s: float) -> list[int]:
        """The status each was answered with (0: closed without one), waiting `within_s` at most."""
        deadline = time.monotonic() + within_s
        while self.answered() < len(self.socks) and time.monotonic() < deadline:
            time.sleep(0.2)
        self._stop.set()
        self._thread.join()
        statuses = []
        for s in self.socks:
            s.setblocking(False)
            try:
                answer = s.recv(65536)
            except OSError:
                answer = b""
            statuses.append(int(answer.split()[1]) if answer.startswith(b"HTTP/1.1 ") else 0)
            if answer:
                head, _, body = answer.partition(b"\r\n\r\n")
                assert b"application/problem+json" in head and orjson.loads(body)["code"] == \
                    "request_timeout", answer
            s.close()
        return statuses


def ordinary(port: int) -> int:
    """How many of 4 health checks and 4 authenticated reads are answered 200 within 10 s each."""
    def one(path: str, headers: dict[str, str]) -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", path, headers=headers)
            return conn.getresponse().status == 200
        except OSError:  # a starved server: the request times out
            return False
        finally:
            conn.close()

    operator = {"Authorization": f"Bearer {OPERATOR_KEY}"}
    with ThreadPoolExecutor(8) as pool:
        done = [pool.submit(one, "/healthz", {}) for _ in range(4)]
        done += [pool.submit(one, "/v1/games", operator) for _ in range(4)]
        return sum(f.result() for f in done)


def test_slow_heads_hold_no_thread_and_end_with_a_408(served):
    slow = Dripping(served, SLOW, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", b"X-Drip: 1\r\n",
                    every_s=2)
    time.sleep(2)  # a first line dripped: every thread would be waiting on one
    assert ordinary(served) == 8
    assert slow.answered() == 0  # all 500 still open while the others were served
    # Past BANCO_HEAD_TIMEOUT_S (10 s), each is answered 408 and closed.
    assert slow.statuses(within_s=30) == [408] * SLOW
    assert ordinary(served) == 8


def test_slow_bodies_end_with_a_408_and_free_their_threads(served):
    head = (f"POST /v1/players HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {OPERATOR_KEY}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{").encode()
    # More than the server's 2 x 64 threads.
    slow = Dripping(served, 200, head, b" ", every_s=1)
    assert slow.statuses(within_s=30) == [408] * 200
    assert ordinary(served) == 8


def test_clients_that_keep_their_side_open_after_the_last_answer_hold_up_nothing(served):
    """gunicorn closes a connection gracefully, waiting up to 2 s for the client to close his
    side too: in its poller's loop, which did nothing else meanwhile."""
    lingering = [socket.create_connection(("127.0.0.1", served)) for _ in range(200)]
    try:
        for s in lingering:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert ordinary(served) == 8
    finally:
        for s in lingering:
            s.close()
