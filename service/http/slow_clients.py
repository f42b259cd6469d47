"""gunicorn's gthread worker, whose threads and poller never wait on a slow client.

gunicorn gives a connection to a thread as soon as it is readable, and the thread blocks in the
parser until the request's head has come: a client sending a header line every few seconds held
a thread as long as it went on, and a few dozen such clients (no token needed, no rate limit
counting them) held them all. Here the worker's poller reads each head without blocking
(`service.http.heads.Head`) and gives the connection to a thread only once gunicorn's parser can
rule on it at once; a head not come within `head_timeout_s` is answered 408. The thread reads
the body as the app asks for it, within `body_timeout_s` (`DeadlineUnreader`), past which the
app answers 408. And a connection that ends is closed gracefully (its write side shut, what the
client still sends drained) from the poller too, not, as gunicorn does, by its loop waiting up
to 2 s on each client that does not close its side.

Only plain HTTP/1 connections are read so: TLS is read by the thread, its handshake first, and
HTTP/2 by its own parser.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import time
from concurrent.futures import Future
from functools import partial
from typing import Any, cast

from gunicorn import http, util
from gunicorn.http2 import negotiation
from gunicorn.workers.gthread import STOP_KEEPALIVE_LINGER, TConn, ThreadWorker

from service.http.heads import DeadlineUnreader, Head
from service.runtime.config import BODY_TIMEOUT_S, HEAD_TIMEOUT_S

# The most a head may hold, refused with a 431 past that: gunicorn's own limits (100 lines of
# 8190 bytes) would let each connection waiting on its head hold 800 KiB of the worker's memory.
HEAD_BYTES = 64 * 1024
LINGER_S = 2.0  # how long a closing connection's input is drained, as gunicorn's close does
LINGER_BYTES = 65536  # and how much of it at most


class SlowClientWorker(ThreadWorker):
    """`ThreadWorker` reading heads and closing connections from its poller."""

    head_timeout_s: float = HEAD_TIMEOUT_S
    body_timeout_s: float = BODY_TIMEOUT_S

    def init_process(self) -> None:
        # Connections whose next request's head is being read, and connections closing, each in
        # the order of its deadlines (its start plus one same timeout), for `murder_pending`.
        self.heads: dict[TConn, Head] = {}
        self.closing: dict[TConn, tuple[float, int]] = {}  # deadline, bytes drained
        self.stopping_by: float | None = None  # when a stopping worker drops the heads left
        super().init_process()

    def reads_heads(self, conn: TConn) -> bool:
        return (not self.cfg.is_ssl and not conn.is_http2 and getattr(self.cfg, "protocol", "http") == "http"
                and not negotiation.prior_knowledge_allowed(self.cfg, conn.client))

    def enqueue_req(self, conn: TConn) -> None:
        """Give `conn` to a thread once its next request's head has come.

        gunicorn calls this from its poller for a new connection, for a kept-alive one that
        became readable, and for one whose last body's drain read into its next request."""
        if not self.reads_heads(conn):
            super().enqueue_req(conn)
            return
        if conn.parser is None:
            conn.parser = http.get_parser(self.cfg, conn.sock, conn.client)
            conn.parser.unreader = DeadlineUnreader(conn.sock)
        timeout = self.head_timeout_s if self.alive else STOP_KEEPALIVE_LINGER
        head = Head(conn.parser.unreader.take_buffered(), time.monotonic() + timeout)
        if head.data and self.head_ready(conn, head):
            self.hand(conn, head)
            return
        conn.sock.setblocking(False)
        self.heads[conn] = head
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.read_head, conn))
        # Most often the head is there already, come with the connection or what made it
        # readable: read now, rather than after another turn of the poller.
        self.read_head(conn, conn.sock)

    def head_ready(self, conn: TConn, head: Head) -> bool:
        return head.ready(self.cfg, conn.client, conn.parser.req_count + 1)

    def read_head(self, conn: TConn, _sock: socket.socket) -> None:
        """Read what `conn` sent of its head, without blocking the poller that calls it."""
        head = self.heads[conn]
        data = _received(conn.sock)
        if data is None:
            return
        if data:
            head.data += data
            if head.size() <= HEAD_BYTES and not self.head_ready(conn, head):
                return
        del self.heads[conn]
        self.poller.unregister(conn.sock)
        if data and head.size() <= HEAD_BYTES:
            self.hand(conn, head)
        elif data:
            with contextlib.suppress(OSError):
                util.write_error(conn.sock, 431, "Request Header Fields Too Large",
                                 f"a request's head is {HEAD_BYTES // 1024} KiB at most")
            self.linger(conn)
        else:  # the client left
            self.nr_conns -= 1
            conn.close()

    def hand(self, conn: TConn, head: Head) -> None:
        """Give `conn` to a thread, its head ready for gunicorn's parser and its body due."""
        unreader = cast(DeadlineUnreader, conn.parser.unreader)
        unreader.unread(bytes(head.data))
        unreader.deadline = time.monotonic() + self.body_timeout_s
        conn.data_ready = True  # the thread waits for nothing before it parses
        super().enqueue_req(conn)

    def handle_request(self, req: Any, conn: TConn) -> bool:
        try:
            return bool(super().handle_request(req, conn))
        finally:
            # The body was the app's to read in time. What it left unread gunicorn drains under
            # a bound of its own: a 408 raised there would follow the response already sent.
            if isinstance(conn.parser.unreader, DeadlineUnreader):
                conn.parser.unreader.deadline = None

    def finish_request(self, conn: TConn, fs: Future[Any]) -> None:
        if (self.reads_heads(conn) and not fs.cancelled() and fs.exception() is None
                and fs.result() is False):
            self.linger(conn)  # where gunicorn would close it gracefully, waiting on the client
            return
        super().finish_request(conn, fs)

    def linger(self, conn: TConn) -> None:
        """Close `conn` gracefully (RFC 9112 section 9.6): its write side now, then, once the
        client closes his or `LINGER_S` have passed, the rest; what he sends meanwhile is read
        and dropped, so that the kernel does not answer it with a reset that could cut off the
        response's end before he read it."""
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self.nr_conns -= 1
            conn.close()
            return
        conn.sock.setblocking(False)
        self.closing[conn] = (time.monotonic() + LINGER_S, 0)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.drain, conn))

    def drain(self, conn: TConn, _sock: socket.socket) -> None:
        deadline, drained = self.closing[conn]
        data = _received(conn.sock)
        if data is None:
            return
        if data and drained + len(data) < LINGER_BYTES:
            self.closing[conn] = (deadline, drained + len(data))
            return
        self.closed(conn)

    def closed(self, conn: TConn) -> None:
        del self.closing[conn]
        self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        conn.close()

    def murder_pending(self) -> None:
        """gunicorn's, which its loop calls about every second; then heads whose time is up end,
        a request begun with a 408, and closing connections whose time is up close. A stopping
        worker waits on no head longer than gunicorn waits on its kept-alive connections."""
        super().murder_pending()
        now = time.monotonic()
        if not self.alive and self.stopping_by is None:
            self.stopping_by = now + STOP_KEEPALIVE_LINGER
        while self.heads:
            conn, head = next(iter(self.heads.items()))
            if min(head.deadline, self.stopping_by or head.deadline) > now:
                break
            del self.heads[conn]
            self.poller.unregister(conn.sock)
            if head.data:
                # Banco's worker writes it as problem+json (`service.http.gunicorn_worker`).
                with contextlib.suppress(OSError):
                    util.write_error(conn.sock, 408, "Request Timeout",
                                     f"the request's head did not come within {self.head_timeout_s} s")
                self.linger(conn)
            else:  # an idle connection: it just closes, as a kept-alive one does
                self.nr_conns -= 1
                conn.close()
        while self.closing:
            conn, (deadline, _) = next(iter(self.closing.items()))
            if deadline > now:
                break
            self.closed(conn)


def _received(sock: socket.socket) -> bytes | None:
    """What a non-blocking socket has for us: None if nothing yet, b"" once the client is gone
    (or its connection broke)."""
    try:
        return sock.recv(8192)
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        return b""
