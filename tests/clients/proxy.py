"""A TCP proxy in front of a running Banco that breaks connections on demand, as a network does:
it cuts every connection open (`cut`), drops the answer to the next request after the server
received it (`drop_next_answer`), or answers the next request itself with a 503 (`refuse_next`);
once `answered` is a bytearray, it keeps there every byte the server sends through it, to see what
a client was told."""

from __future__ import annotations

import contextlib
import socket
import threading


class Proxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.lock = threading.Lock()
        self.open: set[socket.socket] = set()
        self.drop_next_answer = False
        self.refuse_next: bytes | None = None  # a whole HTTP answer to send instead of forwarding
        self.refused = 0
        self.dropped = 0
        self.cuts = 0
        self.answered: bytearray | None = None
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.listener.close()
        self.cut()

    def cut(self) -> None:
        """Close every connection open through the proxy, both ways."""
        with self.lock:
            socks, self.open = set(self.open), set()
            self.cuts += 1
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with self.lock:
            refusal, self.refuse_next = self.refuse_next, None
        if refusal is not None:
            client.recv(65536)
            with self.lock:
                self.refused += 1
            client.sendall(refusal)
            client.close()
            return
        upstream = socket.create_connection(self.upstream)
        with self.lock:
            self.open |= {client, upstream}
        threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
        self._pipe(upstream, client, True)

    def _pipe(self, source: socket.socket, target: socket.socket, answers: bool) -> None:
        try:
            while data := source.recv(65536):
                if answers:
                    with self.lock:
                        drop, self.drop_next_answer = self.drop_next_answer, False
                    if drop:  # the server handled the request; its answer never arrives
                        with self.lock:
                            self.dropped += 1
                        break
                    if self.answered is not None:
                        with self.lock:
                            self.answered += data
                target.sendall(data)
        except OSError:
            pass
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        with self.lock:
            self.open -= {source, target}
