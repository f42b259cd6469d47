"""One webhook request: to an address checked as it is connected to, all within one deadline.

A timeout on each read does not bound a request: a receiver that drips its answer a byte at a
time holds the worker as long as it likes. Here the lookup, the connection, the TLS handshake,
the request and every read of the answer share one deadline; past it the attempt has failed.

The worker connects to the addresses it resolved and checked (service/application/webhook_addresses),
never to the name again, which a second lookup could resolve elsewhere. A failure to connect is
told the same way for a closed port, a filtered one, an unreachable host and an address not
allowed, so that the attempts shown to the operator do not make a port scanner of the service.
No proxy and no redirect either: the URL's host is where the events go.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import logging
import socket
import ssl
import time
from collections.abc import Sequence
from functools import cache
from urllib.parse import urlsplit

from service.application import webhook_addresses
from service.runtime.config import Network

log = logging.getLogger("banco.webhooks")

COULD_NOT_CONNECT = "could not connect"
ANSWER_BYTES = 65536  # read of the answer's body, at most: only its status counts
ERROR_CHARS = 200


class _CouldNotConnect(Exception):
    pass


class Deadline:
    """The time left of an attempt's `seconds`; TimeoutError once it has run out."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._at = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left; raises TimeoutError when none are."""
        left = self._at - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"timed out after {self.seconds:g} s")
        return left


class _Answer(io.RawIOBase):
    # The answer's bytes as http.client reads them, each read given only the time left.
    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock, self._deadline = sock, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        self._sock.settimeout(self._deadline.left())
        return self._sock.recv_into(buffer)


class _Bounded:
    """What http.client uses of its socket (`sendall`, `makefile`, `close`), within the deadline."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock, self._deadline = sock, deadline

    def sendall(self, data: bytes) -> None:
        self._sock.settimeout(self._deadline.left())  # for the whole of sendall, not each send
        self._sock.sendall(data)

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_Answer(self._sock, self._deadline))

    def close(self) -> None:
        # Not the socket: http.client closes it as soon as an answer says it will close the
        # connection, before the body is read (a real socket's file keeps it open until then).
        # `post` closes it once the answer is read.
        pass


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


def _connect(host: str, port: int, allow: Sequence[Network], deadline: Deadline) -> socket.socket:
    try:
        found = webhook_addresses.addresses(host, port, allow, deadline.left())
    except webhook_addresses.NotAllowed as e:
        log.warning("webhook to %s not sent: %s", host, e)
        raise _CouldNotConnect from None
    except TimeoutError:
        raise _CouldNotConnect from None
    for family, kind, proto, _, sockaddr in found:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(deadline.left())
            sock.connect(sockaddr)  # the address checked, not the name
        except OSError:  # a timeout too: a filtered port reads as a closed one
            sock.close()
            continue
        return sock
    raise _CouldNotConnect


def post(url: str, body: bytes, headers: dict[str, str], allow: Sequence[Network],
         timeout: float) -> tuple[int | None, str | None]:
    """POST `body` within `timeout` seconds in all; the receiver's status (None if none came)
    and what went wrong, if anything. A 3xx is an answer like any other: not followed."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    tls = parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    deadline = Deadline(timeout)
    sock: socket.socket | None = None
    try:
        sock = _connect(host, port, allow, deadline)
        if tls:
            sock.settimeout(deadline.left())
            sock = _tls().wrap_socket(sock, server_hostname=host)
        conn = http.client.HTTPConnection(host, port)
        conn.default_port = 443 if tls else 80  # the Host header names a default port by omission
        conn.sock = _Bounded(sock, deadline)  # connected already: http.client never looks up host
        conn.request("POST", target, body, {**headers, "Connection": "close"})  # one per attempt
        with conn.getresponse() as response:
            response.read(ANSWER_BYTES)
            status = response.status
    except _CouldNotConnect:
        return None, COULD_NOT_CONNECT
    except TimeoutError:
        return None, f"timed out after {timeout:g} s"
    except ssl.SSLError as e:
        return None, f"TLS: {e.reason or type(e).__name__}"[:ERROR_CHARS]
    except (http.client.HTTPException, OSError) as e:
        return None, f"no answer: {str(e) or type(e).__name__}"[:ERROR_CHARS]
    finally:
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()
    return status, None if 200 <= status < 300 else f"HTTP {status}"
