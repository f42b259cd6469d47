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
    dripped: int = 0  # bytes of a dripped answer written before the sender hung up, or all
    hung_up: bool = False  # the sender closed the connection before the answer was written

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def event(self) -> dict[str, Any]:
        return dict(orjson.loads(self.body))


@dataclass(frozen=True)
class Drip:
    """An answer written a byte at a time: the status line, then `count` bytes of a header,
    one every `every` seconds, then the rest of a 200."""

    count: int
    every: float


# Given the request's number (from 0) and the request, the status to answer, after any sleep.
Answer = Callable[[int, Received], int | Drip]


@dataclass
class Receiver:
    """Records every request; `answer` decides each response; `down()` and `up()` close and
    open the port again (the same one), as a receiver that is away for a while."""

    answer: Answer = lambda n, r: 200
    received: list[Received] = field(default_factory=list)
    connections: int = 0  # accepted, whether a request came on them or not
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
                try:
                    if isinstance(status, Drip):
                        self.drip(status, got)
                    else:
                        got.status = status
                        self.send_response(status)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                except OSError:  # the sender gave up waiting (its deadline) and closed the connection
                    got.hung_up = True

            def drip(self, drip: Drip, got: Received) -> None:
                self.wfile.write(b"HTTP/1.0 200 OK\r\nX-Drip: ")
                for _ in range(drip.count):
                    time.sleep(drip.every)
                    self.wfile.write(b".")  # fails once the sender has closed the connection
                    got.dripped += 1
                self.wfile.write(b"\r\nContent-Length: 0\r\n\r\n")
                got.status = 200

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            allow_reuse_address = True

            def get_request(self) -> Any:
                accepted = super().get_request()
                with receiver._lock:
                    receiver.connections += 1
                return accepted

        self._server = Server(("127.0.0.1", self.port), Handler)
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
