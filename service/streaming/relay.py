"""A gunicorn worker's streams, passed on to a process of their own: its streamer.

Behind gunicorn, a stream's request thread sends the response's head and what was due, then
gunicorn hands the connection over (`service.streaming.fanout.HAND_OFF`). The worker passes the
socket, with where its follower stands, to its streamer (`service.streaming.streamer`) over a Unix
socket (`SCM_RIGHTS`), and closes its own copy: the streamer writes the stream from then on.
The worker's threads, and its GIL, are left to requests: a table's moves never wait for the
writing of their own followers' news, however many follow.

A request that writes a table the streamer has streams of hands it the table as written
(`offer`), before it commits: the streamer's followers render it once the notice of its commit
comes, rather than read it again from PostgreSQL. A table's streams land in every worker's
streamer (its players' connections are spread over the workers), so under gunicorn the table
goes to the node's other streamers too: each listens on a datagram socket in a folder of the
node's own (`node_folder`), which only the service's user can open.

The worker keeps each stream's place (`BANCO_STREAMS`) until its streamer says the stream
ended. A streamer that dies ends its streams (their clients resume with Last-Event-ID) and
gives back their places, and the next stream starts another; a streamer ends with its worker.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from projections import tables
from projections.tables import TableRow
from service.runtime import tracing

log = logging.getLogger("banco.relay")

# Written by the streamer when a stream ended: its id, in ASCII; and once it is ready.
ENDED_MAX = 32
READY = b"ready"
READY_S = 60.0  # how long a streamer may take to start: its imports, its pool's first connection
# A message without a socket is a table a request wrote (`Relay.offer`): this byte, the table's
# id and the transaction that wrote it, each followed by a space, then the table as
# `projections.tables.passed` writes it (its snapshot as stored: no pickle, whose reading could
# run code). Between a worker and the streamer it started, from the same code. The head lets a
# streamer keep the table unread until a notice of that transaction concerns one of its
# followers (`feeds.Feed.offer`), and drop unread a table nobody follows there.
OFFER = b"T"
MESSAGE_MAX = 1 << 16  # what the streamer reads of a message; a larger table is not offered
# A table another worker of the node wrote, on a streamer's offers socket: this byte, then as
# after `OFFER`.
SIBLING = b"S"
LOOK_S = 1.0  # how often the node's folder is listed for the streamers started since


def node_folder(arbiter: int) -> Path | None:
    """The folder where the streamers of gunicorn `arbiter`'s workers listen for the tables the
    other workers wrote: made by the first of them, the service's user's alone; None if a
    folder of that name is someone else's, or open to others (the offers are then not shared)."""
    folder = Path(tempfile.gettempdir(), f"banco-streamers-{os.getuid()}-{arbiter}")
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    try:
        found = folder.lstat()
    except OSError:
        return None
    if (not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid()
            or found.st_mode & 0o077):
        log.warning("%s is not the service's own; tables are not shared between streamers",
                    folder)
        return None
    return folder


class Relay:
    """The worker's side: its streamer, started with the worker (`start`), and again by the
    next stream after one died."""

    def __init__(self, metrics_dir: Path | None = None, node: Path | None = None) -> None:
        self._metrics_dir = metrics_dir  # `Config.metrics_dir`: where the streamer counts
        # The node's streamers' folder (`node_folder`), their sockets in it, and ours.
        self._node = node
        self._siblings: list[str] = []
        self._looked = -LOOK_S
        self._own: str | None = None
        self._out: socket.socket | None = None
        self._lock = threading.Lock()
        self._control: socket.socket | None = None
        self._ends: dict[int, Callable[[], None]] = {}  # the running streamer's streams
        self._tables: dict[int, str] = {}  # the tables they follow, by stream
        self._followed: Counter[str] = Counter()  # how many of them follow each table
        self._ids = itertools.count(1)

    def hand(self, sock: socket.socket, chunked: bool, follower: dict[str, Any],
             deadline: float, since: float, ended: Callable[[], None]) -> None:
        """Have the streamer write `sock` from now on (in chunks if `chunked`) until the
        stream's `deadline` (monotonic clock) or its end, for `follower` as it stands
        (`Following.spec`), whose token was known good `since` (it ends if the streamer heard
        of a revocation after that); `ended` is called once it has ended. `sock` is closed
        here."""
        with sock:
            try:
                with self._lock:
                    control = self._control or self._start()
                    key = next(self._ids)
                    self._ends[key] = ended
                    if follower.get("kind") == "table":
                        self._tables[key] = follower["table_id"]
                        self._followed[follower["table_id"]] += 1
            except OSError as e:
                log.error("no streamer to pass a stream to (%s); its client reconnects", e)
                ended()
                return
            message = orjson.dumps({"id": key, "chunked": chunked, "deadline": deadline,
                                    "since": since, "follower": follower})
            try:
                socket.send_fds(control, [message], [sock.fileno()])
            except OSError as e:  # the streamer went away meanwhile: the client reconnects
                log.warning("a stream could not be passed to its streamer (%s)", e)
                self._ended(key)

    def offer(self, table: TableRow) -> None:
        """Hand the streamer `table` as a request wrote it, if it has streams of it, and the
        node's other streamers too; never waiting: one a streamer cannot take now is read
        again from PostgreSQL, as before."""
        with self._lock:
            control = self._control
            ours = control is not None and bool(self._followed[table.table_id])
        siblings = self._others()
        if not ours and not siblings:
            return
        if table.txid is None:
            return  # no notice can name it: never shown
        # With the trace of the request that wrote it, when tracing (service/runtime/tracing.py).
        written = b"%b %d %b %b" % (table.table_id.encode(), table.txid, tracing.traceparent(),
                                    tables.passed(table))
        if ours and len(written) < MESSAGE_MAX:
            # Full (the streamer is busy) or gone: its followers read the table.
            with contextlib.suppress(OSError):
                control.send(OFFER + written, socket.MSG_DONTWAIT)  # type: ignore[union-attr]
        if siblings:
            self._to_siblings(siblings, SIBLING + written)

    def _others(self) -> list[str]:
        """The sockets of the node's other streamers, listed again every `LOOK_S`."""
        if self._node is None:
            return []
        now = time.monotonic()
        if now - self._looked >= LOOK_S:
            self._looked = now
            try:
                names = os.listdir(self._node)
            except OSError:
                names = []
            self._siblings = [str(self._node / name) for name in names
                              if str(self._node / name) != self._own]
        return self._siblings

    def _to_siblings(self, siblings: list[str], message: bytes) -> None:
        if len(message) > MESSAGE_MAX:
            return
        out = self._out
        if out is None:
            out = self._out = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        for path in siblings:
            try:
                out.sendto(message, socket.MSG_DONTWAIT, path)
            except BlockingIOError:
                continue  # that streamer is busy: its followers read the table
            except OSError as e:  # gone (its worker ended): forgotten until the folder is listed
                with contextlib.suppress(ValueError):
                    self._siblings.remove(path)
                if isinstance(e, ConnectionRefusedError):  # nobody listens: a killed one's
                    with contextlib.suppress(OSError):
                        os.unlink(path)

    def close(self) -> None:
        """Let go of the socket the node's other streamers are sent tables on."""
        out, self._out = self._out, None
        if out is not None:
            out.close()

    def start(self, node: Path | None = None) -> None:
        """Start the streamer now, as its worker starts, rather than with the first stream,
        which would otherwise wait for it; with the `node`'s folder (`node_folder`) where the
        node's streamers listen for each other's tables."""
        with self._lock:
            if node is not None:
                self._node = node
            if self._control is None:
                try:
                    self._start()
                except OSError as e:  # tried again with the first stream
                    log.error("the streamer did not start (%s)", e)

    def _start(self) -> socket.socket:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        node = [] if self._node is None else [str(self._node)]
        proc = subprocess.Popen([sys.executable, "-m", "service.streaming.streamer",
                                 str(theirs.fileno()), *node], pass_fds=(theirs.fileno(),))
        theirs.close()
        # Streams wait until it can take them: one handed over sooner would be taken late,
        # its client sent what changed meanwhile at once, not change by change.
        ours.settimeout(READY_S)
        try:
            if ours.recv(ENDED_MAX) != READY:
                raise OSError("the streamer did not start")
        except OSError:
            proc.kill()
            proc.wait()
            ours.close()
            raise
        ours.settimeout(None)
        self.attach(ours, proc)
        return ours

    def attach(self, control: socket.socket, proc: subprocess.Popen[bytes] | None = None) -> None:
        """Pass streams from now on to the streamer at the other end of `control`, which said it
        is ready (`proc`, when this relay started it); under the lock while others may pass
        streams."""
        self._control, self._ends = control, {}
        self._tables, self._followed = {}, Counter()
        if proc is not None and self._node is not None:
            self._own, self._looked = str(self._node / str(proc.pid)), -LOOK_S
        threading.Thread(target=self._listen, args=(control, self._ends, proc), daemon=True,
                         name="banco-relay").start()

    def _ended(self, key: int, ends: dict[int, Callable[[], None]] | None = None) -> None:
        with self._lock:
            end = (self._ends if ends is None else ends).pop(key, None)
            if end is not None and (ends is None or ends is self._ends):  # the running one's
                table_id = self._tables.pop(key, None)
                if table_id is not None:
                    self._followed[table_id] -= 1
                    if not self._followed[table_id]:
                        del self._followed[table_id]
        if end is not None:
            end()

    def _listen(self, control: socket.socket, ends: dict[int, Callable[[], None]],
                proc: subprocess.Popen[bytes] | None) -> None:
        """Give back the places of the streams the streamer ended; all of them if it dies."""
        while True:
            try:
                message = control.recv(ENDED_MAX)
            except OSError:
                message = b""
            if not message:
                break
            self._ended(int(message), ends)
        with self._lock:
            if self._control is control:
                self._control = None
                self._tables, self._followed = {}, Counter()
            left = dict(ends)
            ends.clear()
        control.close()
        if left:
            log.warning("the streamer ended with %d streams open; their clients reconnect",
                        len(left))
        for end in left.values():
            end()
        if proc is None:
            return
        proc.wait()
        if self._metrics_dir is not None:
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(proc.pid)  # its open streams stop counting
