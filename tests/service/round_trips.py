"""Counting round trips on the wire: a loopback proxy that reads the PostgreSQL protocol the
clients send, and a count of the Redis commands a thread sends.

A PostgreSQL round trip is the client asking the server for its answers and waiting for them:
a simple `Query` message, or a `Sync` or `Flush` of the extended protocol (a statement sent on
its own ends with one; a pipeline sends several statements and one `Sync` for all). A `Sync`
followed at once by a `Flush`, as psycopg ends a pipeline, is one request for answers. The
proxy counts these per client connection, whatever the client library does inside, and apart
from them the round trips that only prepared a statement (`prepares`).
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import redis
from psycopg.conninfo import conninfo_to_dict, make_conninfo

ASKS = {ord("Q"), ord("S"), ord("H")}  # messages the client then waits on


class PgProxy:
    """Forward 127.0.0.1:<port> to a PostgreSQL server, counting each connection's round trips."""

    def __init__(self, url: str) -> None:
        info = conninfo_to_dict(url)
        host, port = str(info.get("host") or "127.0.0.1"), int(info.get("port") or 5432)
        # A server on a unix socket is reached there; the proxy itself listens on TCP.
        self._target: str | tuple[str, int] = (f"{host}/.s.PGSQL.{port}" if host.startswith("/")
                                               else (host, port))
        self._listener = socket.create_server(("127.0.0.1", 0))
        # Plain text, so that the messages can be read.
        self.url = make_conninfo(url, host="127.0.0.1", port=self._listener.getsockname()[1],
                                 sslmode="disable", gssencmode="disable")
        self._lock = threading.Lock()
        self.trips: dict[int, int] = {}  # connection number -> round trips so far
        # Round trips that only prepared a named statement: psycopg prepares a statement on
        # its fifth use on a connection, in a round trip of its own, once.
        self.prepares = 0
        self.statements: dict[int, list[bytes]] = {}  # connection number -> queries parsed
        threading.Thread(target=self._accept, daemon=True).start()

    def total(self) -> int:
        with self._lock:
            return sum(self.trips.values())

    def _accept(self) -> None:
        number = 0
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            number += 1
            if isinstance(self._target, str):
                server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                server.connect(self._target)
            else:
                server = socket.create_connection(self._target)
            with self._lock:
                self.trips[number] = 0
                self.statements[number] = []
            threading.Thread(target=self._upstream, args=(number, client, server),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                s.close()

    def _upstream(self, number: int, client: socket.socket, server: socket.socket) -> None:
        pending, started, last = b"", False, 0
        sent: list[bytes] = []  # the messages since the last request for answers, as kind+name
        try:
            while data := client.recv(65536):
                pending += data
                while True:
                    if not started:  # the startup message: a length, no type byte
                        if len(pending) < 4:
                            break
                        (size,) = struct.unpack("!I", pending[:4])
                        if len(pending) < size:
                            break
                        pending, started = pending[size:], True
                        continue
                    if len(pending) < 5:
                        break
                    kind, (size,) = pending[0], struct.unpack("!I", pending[1:5])
                    if len(pending) < 1 + size:
                        break
                    body, pending = pending[5:1 + size], pending[1 + size:]
                    with self._lock:
                        if kind == ord("Q") or (kind in ASKS and last not in ASKS):
                            if len(sent) == 1 and sent[0].startswith(b"P") and sent[0] != b"P":
                                self.prepares += 1
                            else:
                                self.trips[number] += 1
                            sent = []
                        elif kind not in ASKS:
                            sent.append(bytes([kind]) + (body.split(b"\0", 1)[0]
                                                         if kind == ord("P") else b""))
                        if kind in (ord("Q"), ord("P")):
                            text = body if kind == ord("Q") else body.split(b"\0", 1)[1]
                            self.statements[number].append(text.split(b"\0", 1)[0])
                    last = kind
                server.sendall(data)
        except OSError:
            pass
        finally:
            for s in (client, server):
                s.close()

    def parsed(self) -> dict[int, int]:
        """How many statements each connection has had parsed so far: `statements`' lengths."""
        with self._lock:
            return {number: len(texts) for number, texts in self.statements.items()}

    def parsed_since(self, before: dict[int, int]) -> list[bytes]:
        """The statements parsed since `before` (from `parsed`), on every connection: those sent
        unprepared, and those prepared then for the first time on their connection."""
        with self._lock:
            return [text for number, texts in self.statements.items()
                    for text in texts[before.get(number, 0):]]

    def close(self) -> None:
        self._listener.close()


@contextmanager
def redis_commands(monkeypatch) -> Iterator[list[bytes]]:  # type: ignore[no-untyped-def]
    """The packed commands this thread sends to any Redis (a pipeline's are one send) while the
    block runs: each is a round trip."""
    sent: list[bytes] = []
    me = threading.get_ident()
    send = redis.connection.AbstractConnection.send_packed_command

    def counted(conn, command, *args, **kwargs):  # type: ignore[no-untyped-def]
        if threading.get_ident() == me:
            sent.append(command)
        return send(conn, command, *args, **kwargs)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counted)
    yield sent
