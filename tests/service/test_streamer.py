"""The streamer (service/streaming/streamer.py) in this process, fed streams as a worker's relay feeds
it (a message and a socket each over a Unix socket), on the session's database: what it reads,
renders and sends for a table that forty streams follow."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from projections.tables import TableRow
from service.application import notify
from service.application.principal import OPERATOR as OPERATOR_PRINCIPAL
from service.application.principal import Principal
from service.runtime.config import Config
from service.streaming import fanout
from service.streaming.feeds import Feed
from service.streaming.relay import Relay, node_folder
from service.streaming.streamer import Streamer
from tests.service.conftest import OPERATOR
from tests.service.test_fanout import wait_until
from tests.service.test_streams import cassino_table, move


@pytest.fixture
def streamer(app: Flask, config: Config) -> Iterator[tuple[Streamer, socket.socket]]:
    """A streamer serving in a thread of its own, and the worker's end of its Unix socket."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    streamer = Streamer(theirs, app.extensions["banco.pool"], app.extensions["banco.store"],
                        notify.Listener(config.database_url))
    thread = threading.Thread(target=streamer.serve, daemon=True)
    thread.start()
    assert ours.recv(32) == b"ready"
    yield streamer, ours
    ours.close()  # as a worker that ends: the streamer stops taking streams
    thread.join(10)
    assert not thread.is_alive()
    theirs.close()
    # It listened for notices while it ran, whether a stream was open or not (a revocation
    # comes at any time); stopped, it no longer does, and its LISTEN connection is closed.
    wait_until(lambda: not streamer.notices.listening.is_set())


class Reader:
    """A client's end of one stream: the events it was sent, by their data."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.sock.setblocking(False)
        self.buffer = b""
        self.events: list[dict[str, Any]] = []

    def read(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while chunk := self.sock.recv(1 << 16):
                self.buffer += chunk
        *blocks, self.buffer = self.buffer.split(b"\n\n")
        for block in blocks:
            for line in block.split(b"\n"):
                if line.startswith(b"data: "):
                    self.events.append(orjson.loads(line[6:]))


def dealt(client: FlaskClient, new_player: Any) -> tuple[list[Any], str, int]:
    """Ann and Bob at a Cassino table whose round is dealt: the players, the table, its version."""
    players = [new_player("Ann", 10), new_player("Bob", 10)]
    table_id = cassino_table(client, players)
    r = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
    assert r.status_code == 201, r.json
    return players, table_id, int(r.json["version"])


def pass_on(control: socket.socket, key: int, who: Principal, table_id: str,
            version: int, timeout: float = 60) -> Reader:
    """A stream of the table's events from `version`, as a worker passes one on."""
    client, server = socket.socketpair()
    state = [True, False, version, version, -1, None, False]  # `Follower.state`: events only
    message = {"id": key, "chunked": False, "deadline": time.monotonic() + timeout,
               "since": time.monotonic(),
               "follower": {"kind": "table", "table_id": table_id,
                            "who": [who.role, who.subject], "state": state}}
    socket.send_fds(control, [orjson.dumps(message)], [server.fileno()])
    server.close()
    return Reader(client)


def test_a_move_is_read_once_and_each_view_made_once_for_forty_streams(
        streamer: tuple[Streamer, socket.socket], client: FlaskClient, new_player: Any):
    """Forty streams passed on to a streamer follow a table: its two players (each from
    several streams), an auditor, the operator and players without a seat. A move's events are
    read from PostgreSQL once in the streamer, redacted once per view, and made into bytes once
    per group of alike followers (six); yet every stream receives exactly what its reader's own
    page of the table's events shows him, and the streamer says when each one ended."""
    serving, control = streamer
    players, table_id, version = dealt(client, new_player)
    made = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json
    auditor = (Principal("auditor", made["id"]), {"Authorization": f"Bearer {made['token']}"})
    others = [new_player(f"Sp{i}", 0) for i in range(2)]
    readers = [(Principal("player", p.id), p.auth) for p in (*players, *others)]
    readers += [auditor, (OPERATOR_PRINCIPAL, OPERATOR)]
    follows = [(readers[i % len(readers)], pass_on(control, i, readers[i % len(readers)][0],
                                                   table_id, version)) for i in range(40)]

    def joined() -> bool:
        feed = serving.feeds.get(table_id)
        return serving.fanout.streams == 40 and feed is not None and feed.followers == 40

    deadline = time.monotonic() + 15
    while not joined():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.2)  # their looks as they joined are done
    feed = serving.feeds.get(table_id)
    assert feed is not None
    reads, renders, makings = feed.reads, feed.renders, serving.fanout.makings

    moved = move(client, table_id, players)
    deadline = time.monotonic() + 15
    for _, reader in follows:
        while not reader.events or reader.events[-1]["version"] < moved:
            assert time.monotonic() < deadline, "a stream never heard of the move"
            reader.read()
            time.sleep(0.01)

    assert feed.reads - reads == 1
    # seat 0, seat 1, auditors, everyone else: at most four views of each new event
    assert 0 < feed.renders - renders <= 4 * (moved - version)
    # a group per view and subscriber: each seated player, each player without a seat (who
    # sees what everyone else does, but is a subscriber of his own), the auditor, the operator
    assert serving.fanout.makings - makings == len(readers)
    for (_, auth), reader in follows:
        page = client.get(f"/v1/tables/{table_id}/events", headers=auth,
                          query_string={"after": version, "limit": 1000}).json["items"]
        assert reader.events == page

    for _, reader in follows[:10]:
        reader.sock.close()
    ended: set[int] = set()
    control.settimeout(10)
    while len(ended) < 10:
        ended.add(int(control.recv(32)))
    assert ended == set(range(10))
    for _, reader in follows[10:]:
        reader.sock.close()


def test_moves_reach_the_streams_by_their_notices_and_a_stream_ends_at_its_timeout_with_no_tick(
        streamer: tuple[Streamer, socket.socket], client: FlaskClient, new_player: Any,
        monkeypatch: pytest.MonkeyPatch):
    """The fan-out's tick, which keeps silent streams alive and makes up for lost notices, never
    comes here: every move still reaches the streams passed on, each because its notice woke
    the fan-out (a wake-up per move at least), and a stream ends at its own timeout."""
    monkeypatch.setattr(fanout, "TICK_S", 3600.0)
    serving, control = streamer
    players, table_id, version = dealt(client, new_player)
    readers = [pass_on(control, i, Principal("player", players[i % 2].id), table_id, version)
               for i in range(4)]
    short = pass_on(control, 4, OPERATOR_PRINCIPAL, table_id, version, timeout=0.5)
    deadline = time.monotonic() + 15
    while serving.fanout.streams < 5:
        assert time.monotonic() < deadline
        time.sleep(0.02)

    wakes = serving.fanout.wakes
    moves = 20
    for _ in range(moves):
        moved = move(client, table_id, players)
        deadline = time.monotonic() + 10  # a bound for a missed wake-up, which waits an hour
        for reader in readers:
            while not reader.events or reader.events[-1]["version"] < moved:
                assert time.monotonic() < deadline, "a move waited for the fan-out's tick"
                reader.read()
                time.sleep(0.005)
    assert serving.fanout.wakes - wakes >= moves

    short.sock.setblocking(True)
    short.sock.settimeout(10)
    while short.sock.recv(1 << 16):  # until the fan-out closes it: its timeout has passed
        pass
    control.settimeout(10)
    assert int(control.recv(32)) == 4
    for reader in [short, *readers]:
        reader.sock.close()


def test_a_table_a_request_wrote_reaches_the_streamer_and_is_not_read_again(
        streamer: tuple[Streamer, socket.socket], app: Flask, client: FlaskClient,
        new_player: Any, monkeypatch: pytest.MonkeyPatch):
    """A move's request hands the table it wrote to the streamer of its worker (`Relay.offer`):
    the streamer's followers of the table render it once the notice of its commit comes, and
    nobody reads the table from PostgreSQL; a move whose table was not offered is read once."""
    serving, control = streamer
    relay = Relay()
    relay.attach(control)  # as a worker's relay, to the streamer it started
    try:
        _offered_tables_are_not_read_again(serving, relay, app, client, new_player, monkeypatch)
    finally:
        control.shutdown(socket.SHUT_RDWR)  # the relay's listener lets go, as at a worker's end


def _offered_tables_are_not_read_again(serving: Streamer, relay: Relay, app: Flask,
                                       client: FlaskClient, new_player: Any,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(app.extensions, "banco.relay", relay)
    players, table_id, version = dealt(client, new_player)
    readers = []
    try:
        for seat, player in enumerate(players):  # each follows his turns, as after his first look
            ours, theirs = socket.socketpair()
            readers.append(Reader(ours))
            state = [False, True, version, version, version, seat, False]  # `Follower.state`
            relay.hand(theirs, False, {"kind": "table", "table_id": table_id,
                                       "who": ["player", player.id], "state": state},
                       time.monotonic() + 60, time.monotonic(), lambda: None)
        deadline = time.monotonic() + 15
        while (feed := serving.feeds.get(table_id)) is None or feed.followers < 2:
            assert time.monotonic() < deadline
            time.sleep(0.02)

        # The request commits once the streamer has the table: the notice of its commit cannot
        # overtake it, whatever else the machine does meanwhile.
        offer = relay.offer

        def offered_and_taken(table: Any) -> None:
            offers = feed.offers
            offer(table)
            deadline = time.monotonic() + 10
            while feed.offers == offers:
                assert time.monotonic() < deadline, "the streamer never took the table"
                time.sleep(0.005)

        monkeypatch.setattr(relay, "offer", offered_and_taken)

        def turns(moved: int) -> None:
            """Wait until the mover's opponent was sent the table at `moved`."""
            deadline = time.monotonic() + 10
            while not any(e.get("version") == moved for reader in readers for e in reader.events):
                assert time.monotonic() < deadline, "no follower was sent his turn"
                for reader in readers:
                    reader.read()
                time.sleep(0.01)

        turns(move(client, table_id, players))  # after the streams' looks as they joined
        reads = feed.table_reads
        for _ in range(3):
            turns(move(client, table_id, players))
        assert feed.table_reads == reads

        monkeypatch.setattr(relay, "offer", lambda table: None)
        turns(move(client, table_id, players))
        assert feed.table_reads == reads + 1
    finally:
        for reader in readers:
            reader.sock.close()


class _Node:
    """Two workers' relays as a request sees them: streams go to one worker's streamer, the
    tables a request writes are offered by the other worker's relay."""

    def __init__(self, streams: Relay, writes: Relay) -> None:
        self.hand = streams.hand
        self.offer = writes.offer


def test_a_table_another_worker_wrote_reaches_the_streamer_and_is_not_read_again(
        streamer: tuple[Streamer, socket.socket], app: Flask, client: FlaskClient,
        new_player: Any, monkeypatch: pytest.MonkeyPatch):
    """A table's streams sit in every worker's streamer: the worker that serves a move offers
    its table to the node's other streamers too (`relay.node_folder`), whose followers then
    render it without reading it from PostgreSQL, as the writer's own streamer's do."""
    serving, control = streamer
    node = Path(tempfile.mkdtemp(prefix="banco-node-"))
    offers = serving.hear_siblings(node)
    streams, writes = Relay(), Relay(node=node)
    streams.attach(control)  # the streamer's own worker, which serves no move here
    try:
        _offered_tables_are_not_read_again(serving, _Node(streams, writes),  # type: ignore[arg-type]
                                           app, client, new_player, monkeypatch)
    finally:
        control.shutdown(socket.SHUT_RDWR)
        writes.close()
        offers.close()
        shutil.rmtree(node)


def test_the_node_folder_is_the_service_users_alone(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = node_folder(4242)
    assert folder is not None and folder.stat().st_mode & 0o777 == 0o700
    assert node_folder(4242) == folder  # the node's other workers find it
    open_to_all = tmp_path / f"banco-streamers-{os.getuid()}-4243"
    open_to_all.mkdir(mode=0o777)
    open_to_all.chmod(0o777)
    assert node_folder(4243) is None  # anyone could have put a socket there


def test_an_offered_table_is_read_only_when_a_notice_of_its_commit_comes():
    """What another worker sent is kept as it came: read when a notice of its transaction
    reaches a follower of the table here (`Feed.heard`), once, and never for another's."""
    written = TableRow(table_id="tb_1", game="cassino", options={}, status="playing", version=7,
                       txid=41)
    reads: list[int] = []

    def read() -> TableRow:
        reads.append(1)
        return written

    feed = Feed("tb_1")
    feed.offer_later(41, read)
    feed.heard([notify.Change("tb_1", 5, 0, "playing", "player:pl_x", 40)])
    assert reads == []  # another transaction's notice
    feed.heard([notify.Change("tb_1", 7, 1, "playing", "player:pl_x", 41)])
    feed.heard([notify.Change("tb_1", 7, 1, "playing", "player:pl_x", 41)])
    assert reads == [1]
    assert feed.turn(None, Principal("operator", "operator"), 7, 7) == (None, None)  # type: ignore[arg-type]
