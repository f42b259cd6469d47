"""A gunicorn worker's streamer: the process that writes the streams its worker passes on.

`python -m service.streaming.streamer FD [NODE]`, started by the worker's relay (`service.streaming.relay`)
with FD one end of a Unix socket, and NODE the folder where the node's streamers hear of the
tables the other workers wrote (`relay.node_folder`). Each message on FD is a stream: the
client's socket, and where its follower stands (`Following.spec`). The streamer serves them
from its fan-out (`service.streaming.fanout`) with feeds, notices and connections of its own,
reading and redacting through the same code as the worker would; it writes back each stream's
id as it ends, and exits when the worker closes its end.

A stream reaches the streamer a moment after its worker last read for it: the fan-out looks
for news once as it takes the stream over (`Fanout.serve`), so a change committed meanwhile is
sent too.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson
from psycopg_pool import ConnectionPool

from events.catalog import default_types
from events.model import Checkpoint
from events.postgres import PostgresEventStore, make_pool
from projections import tables
from service.application import notify
from service.application.principal import Principal
from service.runtime import logs, tracing
from service.runtime.config import Config, ConfigError
from service.runtime.slots import once
from service.streaming.fanout import Fanout, Following
from service.streaming.feeds import Feeds
from service.streaming.follower import Follower
from service.streaming.log_follower import LogFollower
from service.streaming.relay import MESSAGE_MAX, OFFER, READY, READY_S, SIBLING

log = logging.getLogger("banco.streamer")

POOL = 2  # connections for the feeds' reads: the fan-out thread reads one change at a time


class Streamer:
    """Takes the streams its worker passes on (`control`) and serves them from its fan-out."""

    def __init__(self, control: socket.socket, pool: ConnectionPool,
                 store: PostgresEventStore, notices: notify.Listener) -> None:
        self.control = control
        self.pool = pool
        self.store = store
        self.notices = notices
        self.feeds = Feeds()
        self.fanout = Fanout(notices)

    def hear_siblings(self, node: Path) -> socket.socket:
        """Take the tables the node's other workers wrote (`Relay.offer`) from a socket of its
        own in the `node`'s folder, in a thread; the socket, to close and unlink at the end."""
        offers = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        offers.bind(str(node / str(os.getpid())))
        threading.Thread(target=self._siblings, args=(offers,), name="banco-offers",
                         daemon=True).start()
        return offers

    def _siblings(self, offers: socket.socket) -> None:
        while True:
            try:
                message = offers.recv(MESSAGE_MAX)
            except OSError:  # closed as the streamer ends
                return
            if message.startswith(SIBLING):
                self.offered(message[len(SIBLING):])

    def offered(self, message: bytes) -> None:
        """A table a request of the node wrote (`Relay.offer`): kept unread by its feed, if it
        has followers here, until a notice of its commit concerns one of them."""
        table_id, txid, trace, written = message.split(b" ", 3)
        feed = self.feeds.get(table_id.decode())
        if feed is not None:
            feed.offer_later(int(txid), partial(tables.received, written), trace)

    def serve(self) -> None:
        """Take the worker's streams until it closes its end; ready once it listens for
        revocations (a stream whose token is revoked after that ends, however soon)."""
        self.notices.keep()
        try:
            if not self.notices.listening.wait(READY_S / 2):
                log.warning("the streamer does not hear PostgreSQL's notices yet; it goes on")
            self.control.send(READY)
            self._serve()
        finally:
            self.notices.release()

    def _serve(self) -> None:
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(self.control, MESSAGE_MAX, 1)
            except OSError:  # reset: the worker went away with our last words unread
                return
            if not message:
                return
            if not fds and message.startswith(OFFER):
                # A table the worker wrote (`Relay.offer`), from the code that started us.
                self.offered(message[len(OFFER):])
                continue
            sock = socket.socket(fileno=fds[0])
            stream = orjson.loads(message)
            try:
                self.take(stream, sock)
            except Exception:
                log.exception("a stream could not be taken over; its client reconnects")
                sock.close()
                self.ended(stream["id"])

    def take(self, stream: dict[str, Any], sock: socket.socket) -> None:
        follower, table_id, leave = self.follower(stream["follower"])
        self.fanout.serve(follower, table_id, sock, stream["chunked"], stream["deadline"],
                          stream["since"], once(leave, partial(self.ended, stream["id"])))

    def follower(self, spec: dict[str, Any]) -> tuple[Following, str, Callable[[], None]]:
        """The follower `spec` describes, the table whose notices it hears, and what it gives
        back when it ends."""
        who = Principal(*spec["who"])
        if spec["kind"] == "log":
            types = spec["types"]
            return (LogFollower(self.pool, self.store, who, Checkpoint(*spec["last"]),
                                None if types is None else frozenset(types)),
                    notify.EVERY_TABLE, lambda: None)
        feed = self.feeds.join(spec["table_id"])
        follower = Follower(feed, self.store, self.pool, who, 0, 0,
                            {"events": True, "turns": True})
        follower.set_state(tuple(spec["state"]))
        return follower, spec["table_id"], partial(self.feeds.leave, feed)

    def ended(self, key: int) -> None:
        with contextlib.suppress(OSError):  # the worker is gone, and so are we soon
            self.control.send(b"%d" % key)


def main(argv: list[str]) -> int:
    # Ctrl-C reaches the whole process group: the worker stops, closing its end, and so do we.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logs.configure()
    try:
        config = Config.from_env()
    except ConfigError as e:
        print(f"Error: {e}", file=sys.stderr)
        return 2
    tracing.configure("banco-streamer")  # with an OTLP endpoint set, as the API
    control = socket.socket(fileno=int(argv[0]))
    pool = make_pool(config.database_url, min_size=1, max_size=POOL, timeout=5)
    streamer = Streamer(control, pool, PostgresEventStore(pool, default_types()),
                        notify.Listener(config.database_url))
    offers = None
    if len(argv) > 1:
        try:
            offers = streamer.hear_siblings(Path(argv[1]))
        except OSError as e:  # its followers read what the other workers write, as before
            log.warning("not hearing the other workers' tables (%s)", e)
    # What the imports and the set-up made lives as long as the process: out of the collector's
    # sight, a full collection walks the streams' own objects only. It stops every follower's
    # news while it runs, and walking the 50,000 objects of the modules too made it 25-60 ms.
    gc.freeze()
    try:
        streamer.serve()
    finally:
        if offers is not None:
            with contextlib.suppress(OSError):
                os.unlink(offers.getsockname())
            offers.close()
            with contextlib.suppress(OSError):  # the node's last streamer takes the folder along
                os.rmdir(argv[1])
        pool.close(timeout=1)
        if config.metrics_dir is not None:
            from prometheus_client import multiprocess

            # The streams it leaves open end with it: they stop counting (`service.runtime.metrics`).
            multiprocess.mark_process_dead(os.getpid())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
