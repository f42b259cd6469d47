"""gunicorn's gthread worker, answering what gunicorn refuses itself in problem+json.

gunicorn reads the request line and headers before the app sees anything, and refuses some
requests there: 400 for a control character in a header, 414 for a request line over
`--limit-request-line` (4094 bytes), 431 for more than `--limit-request-fields` headers (100)
or one over `--limit-request-field_size` (8190 bytes). Its `handle_error` picks the status,
logs, and writes the answer with `gunicorn.util.write_error`, an HTML page: this worker
replaces that writer in its own process, so those answers are problem+json like every other.

Its threads never wait on a slow client (`service.http.slow_clients`): a request's head is read
by the worker's poller, within `BANCO_HEAD_TIMEOUT_S`, its body within `BANCO_BODY_TIMEOUT_S`.

It also lets the app take a connection over from gunicorn (`HAND_OFF`): a Server-Sent Events
stream then goes on from the worker's streamer (`service.streaming.relay`), started with the worker,
instead of holding a gunicorn thread for as long as its client follows. Such a stream's
connection ends with it, and its response says `Connection: close`: gunicorn drops that header
(hop-by-hop, the server's own) and would say keep-alive, so this worker closes the connection
after any response that says it (`_closing`).
"""

from __future__ import annotations

import gc
import logging
import os
import resource
import socket
import sys
from functools import partial
from typing import Any, cast

import orjson
from gunicorn import util
from gunicorn.http.wsgi import Response

from service.http.problems import PROBLEM, document
from service.http.slow_clients import SlowClientWorker
from service.runtime.config import STREAMS, Config, ConfigError
from service.streaming.fanout import HAND_OFF
from service.streaming.relay import node_folder


def write_problem(sock: socket.socket, status: int, reason: str, message: str) -> None:
    body = orjson.dumps(document(status, reason, message or reason))
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: {PROBLEM}\r\n"
            f"Content-Length: {len(body)}\r\nX-Content-Type-Options: nosniff\r\n"
            "Cache-Control: no-store\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)


def take_over(resp: Response, sock: socket.socket) -> tuple[socket.socket, bool]:
    """The connection as a socket of the caller's, gunicorn left with one that goes nowhere.

    gunicorn goes on as if the response had ended: it would close the connection gracefully,
    shutting down its writing side, which would end the response for the new owner too (a
    shutdown acts on the connection, not on one descriptor). So the connection is duplicated,
    and gunicorn's descriptor made to point at one end of a fresh socket pair whose other end is
    closed: what gunicorn does next, it does to that."""
    chunked = resp.chunked
    resp.chunked = False  # writes no last chunk: the response goes on
    resp.force_close()  # and the connection is not kept for another request
    taken = sock.dup()
    mine, other = socket.socketpair()
    os.dup2(mine.fileno(), sock.fileno())
    mine.close()
    other.close()
    return taken, chunked


def _closing(resp: Response, start_response: Any) -> Any:
    """`start_response`, having gunicorn close the connection after a response that says
    `Connection: close`, and say so in the head it writes, rather than keep the connection for
    the client's next request: the server that closes it has said it would, and no request is
    sent on a connection about to close (it would be reset)."""
    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        if any(name.lower() == "connection" and value.strip().lower() == "close"
               for name, value in headers):
            resp.force_close()
        return start_response(status, headers, exc_info)

    return start


class ProblemWorker(SlowClientWorker):
    """`--worker-class service.http.gunicorn_worker.ProblemWorker`."""

    def init_process(self) -> None:
        util.write_error = write_problem  # read at each call by gunicorn's handle_error
        try:
            config: Config | None = Config.from_env()
        except ConfigError:
            config = None  # the app refuses to start, and says why
        # Every open stream is a socket of the worker's streamer, which inherits this limit:
        # the common soft limit of 1,024 files would refuse them long before `BANCO_STREAMS`.
        # The worker holds each one too for a moment, beside gunicorn's connections.
        streams = config.streams if config else STREAMS
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = self.cfg.worker_connections + streams + 256
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (
                wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard))
        if config:
            self.head_timeout_s, self.body_timeout_s = config.head_timeout_s, config.body_timeout_s
        super().init_process()

    def handle_quit(self, sig: Any, frame: Any) -> None:
        """A quick shutdown (SIGINT or SIGQUIT): the requests in hand are dropped, as gunicorn
        drops them, and the process ends at once rather than through its interpreter's teardown
        (its threads joined, its modules unwound), which on a busy machine took most of a second
        of a stop's few. Nothing is lost: a command's writes are one transaction, the streams'
        clients reconnect, and the master counts this worker's gauges out when it ends."""
        self.alive = False
        self.tpool.shutdown(wait=False, cancel_futures=True)
        self.cfg.worker_int(self)
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    def load_wsgi(self) -> None:
        super().load_wsgi()
        app = cast(Any, self).wsgi
        relay = getattr(app, "extensions", {}).get("banco.relay")
        if relay is not None:
            relay.start(node_folder(self.ppid))

        def offering(environ: dict[str, Any], start_response: Any) -> Any:
            resp, sock = getattr(start_response, "__self__", None), environ.get("gunicorn.socket")
            if type(resp) is Response:
                start_response = _closing(resp, start_response)
                # Plain HTTP/1 connections only: not TLS, whose state gunicorn's socket object
                # holds.
                if type(sock) is socket.socket:
                    environ[HAND_OFF] = partial(take_over, resp, sock)
            return app(environ, start_response)

        self.wsgi = offering
        # The app's modules and objects live as long as the worker: out of the collector's sight,
        # a full collection, which holds every request thread of the worker while it runs,
        # walks what the requests made only (60 ms with the app's 100,000 objects in it).
        gc.freeze()
