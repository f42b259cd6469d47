"""A webhook receiver on loopback: a real HTTP server in a thread, told how to answer each request."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson


@dataclass
class Received:
    """One request as it arrived, whatever was answered."""

    headers: dict[str, str]
    body: bytes
    status: int | None = None  # what the receiver answered, once it did

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def event(self) -> dict[str, Any]:
        return dict(orjson.loads(self.body))


# Given the request's number (from 0) and the request, the status to answer, after any sleep.
Answer = Callable[[int, Received], int]


@dataclass
class Receiver:
    """Records every request; `answer` decides each response; `down()` and `up()` close and
    open the port again (the same one), as a receiver that is away for a while."""

    answer: Answer = lambda n, r: 200
    received: list[Received] = field(default_factory=list)
    port: int = 0
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def up(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                got = Received({k.lower(): v for k, v in self.headers.items()}, body)
                with receiver._lock:
                    n = len(receiver.received)
                    receiver.received.append(got)
                status = receiver.answer(n, got)
                got.status = status
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the sender gave up waiting (its timeout) and closed the connection

            def log_message(self, *args: Any) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def down(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def delivered(self, ok: Callable[[Received], bool] = lambda r: True) -> list[Received]:
        with self._lock:
            return [r for r in self.received if ok(r)]


def slow_once(seconds: float) -> Answer:
    """Sleep before answering the first request, then answer every one at once."""
    def answer(n: int, got: Received) -> int:
        if n == 0:
            time.sleep(seconds)
        return 200
    return answer


def failing(first: int, status: int = 500) -> Answer:
    """Answer `status` to the first `first` requests, then 200."""
    return lambda n, got: status if n < first else 200
