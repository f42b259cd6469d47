"""The clients of the HTTP benchmark: players at a table who follow their turns over
Server-Sent Events (`follow`) or read the table before each move (`play`), and the ceiling's
client (`insert`). Each runs in a process of its own and reports a `Tally`."""

from __future__ import annotations

import http.client
import os
import random
import select
import socket
import threading
import time
from contextlib import suppress
from dataclasses import dataclass, field
from queue import Empty, Queue
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from bench.http_service import Service

DEPOSIT = 10**9
SEVENHALF = {"sette-e-mezzo", "siete-y-media", "casino-pirate"}
POLL = 0.005  # how long a client waits before it asks again whether its hand is settled


@dataclass(frozen=True)
class Game:
    name: str
    players: int
    options: dict[str, Any]
    buy_in: int


GAMES = {
    "sette-e-mezzo": Game("sette-e-mezzo", 4, {"min_bet": 1, "max_bet": 10}, 10**6),
    "cassino": Game("cassino", 2, {"variant": "classic"}, 1),
}


class ResponseLost(Exception):
    """A new connection closed with no response: the request may or may not have been done."""


class Client:
    """One keep-alive HTTP/1.1 connection to the service on loopback."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, token: str | None, body: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = orjson.dumps(body)
            sent["Content-Type"] = "application/json"
        if self._dropped():
            self.conn.close()  # reopened by the request below
        reused = self.conn.sock is not None
        try:
            self.conn.request(method, path, data, sent)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
            if not reused:
                # Sent whole on a connection the server had just accepted: whether it was done
                # is the table's to tell, not a second sending's.
                self.conn.close()
                raise ResponseLost(f"{method} {path}: {e!r}") from e
            # The server closed the idle connection as the request went out, after `_dropped`
            # looked: it read none of it, so it goes again on a new connection (as urllib3's).
            self.conn.close()
            self.conn.request(method, path, data, sent)
            response = self.conn.getresponse()
        raw = response.read()
        return response.status, orjson.loads(raw) if raw else None, dict(response.getheaders())

    def _dropped(self) -> bool:
        """Whether the server closed the connection while it was idle (gunicorn keeps one alive
        for 2 s): a request sent on it would end in `RemoteDisconnected`. As urllib3 checks
        before it reuses a connection."""
        sock = self.conn.sock
        if sock is None:
            return False
        return bool(select.select([sock], [], [], 0)[0])  # readable while idle: its end

    def close(self) -> None:
        self.conn.close()


@dataclass
class Seat:
    player_id: str
    token: str


@dataclass
class TableSpec:
    """A table and the tokens of its players; a Cassino client opens a new table when one ends."""

    port: int
    operator_key: str
    game: str
    seats: list[Seat]
    table_id: str = ""


def payload(game: str, action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """What a client sends for an offered action: ranges and lists filled in for the sevenhalf
    games (the smallest amounts, so that seats last), other games' actions verbatim."""
    if game not in SEVENHALF:
        return dict(action)
    out: dict[str, Any] = {"type": action["type"]}
    for key, spec in action.items():
        if key == "type" or key == "declare":
            continue
        if isinstance(spec, dict):
            out[key] = spec["min"]
        else:
            out[key] = rng.choice(spec)
    return out


def open_table(client: Client, spec: TableSpec) -> dict[str, Any]:
    """A new table of `spec.game` with every player seated; the table as the last one sees it."""
    game = GAMES[spec.game]
    status, body, _ = client.call("POST", "/v1/tables", spec.operator_key,
                                  {"game": game.name, "options": game.options})
    assert status == 201, body
    spec.table_id = body["id"]
    table = body
    for i, seat in enumerate(spec.seats):
        status, body, _ = client.call("POST", f"/v1/tables/{spec.table_id}/seats", seat.token,
                                      {"buy_in": game.buy_in, "age": 20 + i, "seed": f"s{i}"})
        assert status == 201, body
        table = body["table"]
    return table


@dataclass
class Tally:
    """What one client did during one trial."""

    actions: int = 0
    hands: int = 0
    requests: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds, of the counted actions
    kinds: list[str] = field(default_factory=list)  # their action types, `*` when it ended the hand
    settling: list[float] = field(default_factory=list)  # from a hand's last action to settled
    cpu: float = 0.0  # the client's own CPU seconds
    table_id: str = ""
    # From a move's commit (its response, which comes after it) to the moment the stream of the
    # player who acts next brought him that version: what a follower waits for, in seconds.
    deliveries: list[float] = field(default_factory=list)
    moves: list[tuple[int, float]] = field(default_factory=list)  # (version, response) of each
    lost: int = 0  # requests sent on a new connection that closed with no response


_rngs: dict[str, random.Random] = {}


class Acknowledged:
    """When each of a client's moves was acknowledged (its response came, after its commit), by
    table and version, until the stream of the player who moves next brings that version: the
    delivery measured from it. Keyed by the table too, since a Cassino client opens a new table
    when one ends and the new table's versions start again from 1; a move the next stream never
    brings (its player moves again at once) must not be matched with the new table's version."""

    def __init__(self) -> None:
        self._at: dict[tuple[str, int], float] = {}

    def moved(self, table_id: str, version: int, at: float) -> None:
        self._at[(table_id, version)] = at

    def delivered(self, table_id: str, version: int, came: float) -> float | None:
        """Seconds from that move's acknowledgement to `came`; None if it was not this
        client's move (or was already counted)."""
        at = self._at.pop((table_id, version), None)
        return None if at is None else max(0.0, came - at)


def _act(client: Client, spec: TableSpec, token: str, table: dict[str, Any], rng: random.Random,
         tally: Tally, stop_at: float) -> tuple[dict[str, Any], float]:
    """Play one of `table`'s legal actions as `token`'s player; count it if it ended in time.
    Returns the table the response shows and when it came."""
    action = payload(spec.game, rng.choice(table["legal_actions"]), rng)
    began = time.monotonic()
    status, body, _ = client.call("POST", f"/v1/tables/{spec.table_id}/actions", token, action,
                                  {"If-Match": f'"{table["version"]}"'})
    ended = time.monotonic()
    tally.requests += 1
    assert status == 200, (action, body)
    tally.moves.append((body["version"], ended))
    if ended <= stop_at:
        tally.actions += 1
        tally.latencies.append(ended - began)
        tally.kinds.append(action["type"] + ("*" if body["status"] != "playing" else ""))
        if body["status"] != "playing":
            tally.hands += 1
    return body, ended


def _reread(client: Client, spec: TableSpec, seat: int, tally: Tally) -> dict[str, Any]:
    """The table as `seat`'s player sees it, after a request of his lost its response: it
    tells whether the move or the deal was made, as a client that lost an answer asks."""
    status, body, _ = client.call("GET", f"/v1/tables/{spec.table_id}", spec.seats[seat].token)
    tally.requests += 2  # the request whose answer was lost, and this one
    tally.lost += 1
    assert status == 200, body
    return dict(body)


def play(spec: TableSpec, start_at: float, stop_at: float, max_hands: int | None = None) -> Tally:
    """Play hands at `spec`'s table from `start_at` to `stop_at` (monotonic clock, shared by
    processes); count the actions and hands that completed in that span. With `max_hands`, stop
    once that many hands are played and settled."""
    rng = _rngs.setdefault(spec.table_id, random.Random(spec.table_id))
    tally = Tally(table_id=spec.table_id)
    client = Client(spec.port)
    by_seat = {i: s for i, s in enumerate(spec.seats)}
    time.sleep(max(0.0, start_at - time.monotonic()))
    cpu = time.thread_time()
    try:
        path = f"/v1/tables/{spec.table_id}"
        status, table, _ = client.call("GET", path, spec.operator_key)
        tally.requests += 1
        assert status == 200, table
        finished = None  # when the hand in play ended, until the client sees it settled
        while time.monotonic() < stop_at:
            state = table["status"]
            if finished is not None and state != "settling":
                tally.settling.append(time.monotonic() - finished)
                finished = None
            if max_hands is not None and tally.hands >= max_hands and state != "settling":
                break
            if state == "playing":
                seat = table["turn"]["seat"] if table["turn"] else None
                if seat is None or table["you"] != seat or not table["legal_actions"]:
                    table = _mover(client, spec, path, seat, tally)
                    seat = table["you"]
                table, ended = _act(client, spec, by_seat[seat].token, table, rng, tally, stop_at)
                if table["status"] == "settling":
                    finished = ended
            elif state == "settling":
                time.sleep(POLL)
                status, table, _ = client.call("GET", path, spec.operator_key)
                tally.requests += 1
                assert status == 200, table
            elif state == "open":
                status, table, _ = client.call("POST", path + "/hands", spec.seats[0].token)
                tally.requests += 1
                assert status == 201, table
            elif state == "over":
                table = open_table(client, spec)
                tally.requests += 1 + len(spec.seats)
                path = f"/v1/tables/{spec.table_id}"
                tally.table_id = spec.table_id
            else:
                raise AssertionError(f"unexpected table status {state}")
    finally:
        client.close()
    tally.cpu = time.thread_time() - cpu
    return tally


class Feeds:
    """Each player's stream of his turns at one table (`GET .../stream?turns=true&events=false`),
    read by a thread per player into one inbox of (seat, table as that seat sees it, when it
    came)."""

    def __init__(self, spec: TableSpec, seconds: float) -> None:
        self.inbox: Queue[tuple[int, dict[str, Any], float]] = Queue()
        self.conns: list[http.client.HTTPConnection] = []
        path = (f"/v1/tables/{spec.table_id}/stream?turns=true&events=false"
                f"&timeout={min(600.0, max(0.1, seconds)):.2f}")  # the API allows 0.1-600 s
        for seat, player in enumerate(spec.seats):
            conn = http.client.HTTPConnection("127.0.0.1", spec.port, timeout=30)
            conn.request("GET", path, headers={"Authorization": f"Bearer {player.token}"})
            self.conns.append(conn)
            threading.Thread(target=self._read, args=(conn, seat), daemon=True).start()

    def _read(self, conn: http.client.HTTPConnection, seat: int) -> None:
        # `close` ends a read from the client's own thread; http.client then fails in whatever
        # way the moment gives (OSError, ValueError, AttributeError...): the feed is over.
        with suppress(Exception):
            response = conn.getresponse()
            kind, data = "", b""
            for line in iter(response.readline, b""):
                if line.startswith(b"event: "):
                    kind = line[7:].strip().decode()
                elif line.startswith(b"data: "):
                    data = line[6:]
                elif line == b"\n" and data:
                    if kind == "table":
                        self.inbox.put((seat, orjson.loads(data), time.monotonic()))
                    kind, data = "", b""

    def close(self) -> None:
        for conn in self.conns:
            with suppress(OSError):
                if conn.sock is not None:
                    conn.sock.shutdown(socket.SHUT_RDWR)
            conn.close()


def follow(spec: TableSpec, start_at: float, stop_at: float, max_hands: int | None = None) -> Tally:
    """`play` as a client that follows its players' turns over Server-Sent Events: it never reads
    the table before a move, nor asks whether a hand is settled; each player's stream brings him
    the table when he has something to do (legal actions, or an open table to deal at)."""
    rng = _rngs.setdefault(spec.table_id, random.Random(spec.table_id))
    tally = Tally(table_id=spec.table_id)
    client = Client(spec.port)
    time.sleep(max(0.0, start_at - time.monotonic()))
    cpu = time.thread_time()
    feeds = Feeds(spec, stop_at - time.monotonic() + 0.5)
    latest = 0  # the newest table version this client knows of
    table: dict[str, Any] | None = None  # a table it can act on now, with the seat that sees it
    seat = 0
    finished = None  # when the hand in play ended, until a stream shows it settled
    acknowledged = Acknowledged()
    try:
        while time.monotonic() < stop_at:
            if table is None:
                try:
                    seat, table, came = feeds.inbox.get(
                        timeout=max(0.001, stop_at - time.monotonic()))
                except Empty:
                    break
                if table["version"] < latest:
                    table = None  # news of a version this client has moved past
                    continue
                delivery = acknowledged.delivered(table["id"], table["version"], came)
                if delivery is not None and came <= stop_at:
                    tally.deliveries.append(delivery)
            latest = table["version"]
            state = table["status"]
            if finished is not None and state != "settling":
                tally.settling.append(time.monotonic() - finished)
                finished = None
            if max_hands is not None and tally.hands >= max_hands:
                break
            if state == "playing" and table["legal_actions"]:
                try:
                    body, ended = _act(client, spec, spec.seats[seat].token, table, rng, tally,
                                       stop_at)
                except ResponseLost:
                    table = _reread(client, spec, seat, tally)
                    continue
                latest = body["version"]
                acknowledged.moved(spec.table_id, latest, ended)
                if body["status"] == "settling":
                    finished = ended
                # The same player may move again (his own response shows it); else wait for
                # the stream of whoever moves next.
                table = body if body["status"] == "playing" and body["legal_actions"] else None
            elif state == "open":
                try:
                    status, body, _ = client.call("POST", f"/v1/tables/{spec.table_id}/hands",
                                                  spec.seats[seat].token)
                except ResponseLost:
                    table = _reread(client, spec, seat, tally)
                    continue
                tally.requests += 1
                assert status == 201, body
                latest = body["version"]
                acknowledged.moved(spec.table_id, latest, time.monotonic())
                table = body if body["legal_actions"] else None
            elif state == "over":
                feeds.close()
                open_table(client, spec)
                tally.requests += 1 + len(spec.seats)
                tally.table_id = spec.table_id
                feeds = Feeds(spec, stop_at - time.monotonic() + 0.5)
                latest, table = 0, None
            else:
                table = None  # nothing to do at this version; wait for the next news
    finally:
        feeds.close()
        client.close()
    tally.cpu = time.thread_time() - cpu
    return tally


def _mover(client: Client, spec: TableSpec, path: str, seat: int | None, tally: Tally) -> Any:
    """The table as seen by the player who has legal actions (the turn's seat first)."""
    order = [seat] if seat is not None else []
    order += [i for i in range(len(spec.seats)) if i != seat]
    for i in order:
        status, table, _ = client.call("GET", path, spec.seats[i].token)
        tally.requests += 1
        assert status == 200, table
        if table["legal_actions"] or table["status"] != "playing":
            return table
    raise AssertionError("a hand in play offers nobody an action")


def _ceiling(path: str, port: int, token: str, start_at: float, stop_at: float) -> Tally:
    """POST `path` one request after another from `start_at` to `stop_at`."""
    tally = Tally()
    client = Client(port)
    time.sleep(max(0.0, start_at - time.monotonic()))
    cpu = time.thread_time()
    try:
        while time.monotonic() < stop_at:
            began = time.monotonic()
            status, body, _ = client.call("POST", path, token)
            ended = time.monotonic()
            assert status == 201, body
            if ended <= stop_at:
                tally.actions += 1
                tally.requests += 1
                tally.latencies.append(ended - began)
    finally:
        client.close()
    tally.cpu = time.thread_time() - cpu
    return tally


def insert(port: int, token: str, start_at: float, stop_at: float) -> Tally:
    """The one-INSERT ceiling: POST one INSERT after another from `start_at` to `stop_at`."""
    return _ceiling("/v1/bench/inserts", port, token, start_at, stop_at)


def move(port: int, token: str, start_at: float, stop_at: float) -> Tally:
    """The minimal-move ceiling: a locked row, two events and the row written back, per POST."""
    return _ceiling("/v1/bench/moves", port, token, start_at, stop_at)


def _hold(start_at: float) -> tuple[int, int]:
    time.sleep(max(0.0, start_at - time.monotonic()))
    return os.getpid(), threading.get_ident()


# --- setting up ---------------------------------------------------------------------------------

def register(client: Client, key: str, name: str) -> Seat:
    status, body, _ = client.call("POST", "/v1/players", key, {"name": name})
    assert status == 201, body
    seat = Seat(body["player"]["id"], body["token"])
    status, body, _ = client.call("POST", f"/v1/players/{seat.player_id}/deposits", key,
                                  {"amount": DEPOSIT, "reason": "bench"})
    assert status == 201, body
    return seat


def tables_for(svc: Service, game: Game, count: int) -> list[TableSpec]:
    client = Client(svc.port)
    try:
        specs = []
        for t in range(count):
            seats = [register(client, svc.operator_key, f"{game.name} {t}.{i}")
                     for i in range(game.players)]
            spec = TableSpec(svc.port, svc.operator_key, game.name, seats)
            open_table(client, spec)
            specs.append(spec)
        return specs
    finally:
        client.close()
