"""Whole hands played over HTTP against the service under gunicorn, against a one-INSERT endpoint
of the same app, in the same run.

The service runs as `banco serve` runs it (gunicorn, gthread workers, 2 x 32 threads, more when
the clients' streams need them) with a real worker process (`python -m service.cli worker`)
settling the hands, on a database of the run's own. Each table is driven by one client (a
process, or a thread with `--threads`) that holds every player token of its table and follows
each player's turns over Server-Sent Events (`GET /v1/tables/{id}/stream?turns=true`): when a
player's stream brings him the table with `legal_actions`, the client plays one of them with the
table's version as If-Match (and goes on from the response while the same player has moves);
when a stream shows the table open for its next hand (the worker has settled the last), it deals
as that player. Cassino tables end when a side reaches 21: the client then opens a new one. With
`--poll` the clients instead read the table as the player whose turn it is before a move and
ask every 5 ms whether a finished hand is settled.

The ceiling is `POST /v1/bench/inserts` (service/bench_endpoint.py) in the same app: the same
gunicorn, authentication (a player token looked up like the tables' callers), pooled connection
and request transaction, but one single-row INSERT as its work. Table trials and ceiling trials
at the same number of concurrent clients alternate case by case and round by round; a case's
rate ratio is the median of its rounds' ratios, latencies are pooled over its rounds.

A second part measures what an action costs at a table with a long history: a table with
`--history` played hands (built in-process through `service.handlers`, one hand per transaction)
against one with 10, and a twin of that one to show the method's own noise, one hand played over
HTTP at each in turn; p50s are compared move type by move type.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import orjson
import psycopg

from bench import db, report
from events.catalog import default_types
from events.postgres import PostgresEventStore, make_pool
from service import bench_endpoint, handlers, settling
from service.runner import THREADS
from workers.queues import connect, queue

ROOT = Path(__file__).resolve().parents[1]
RATE_TARGET = 0.50  # actions/s at least half the ceiling's requests/s
P99_TARGET = 3.0  # action p99 under 3 times the ceiling's p99
HISTORY_TARGET = 0.10  # an action at a long-lived table within 10% of one at a young table
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


# --- the service --------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Service:
    port: int
    operator_key: str
    gunicorn: subprocess.Popen[bytes]
    worker: subprocess.Popen[bytes]
    log: Path


@contextmanager
def service(url: str, redis_url: str, workers: int = 2, threads: int = THREADS) -> Iterator[Service]:
    """gunicorn as `banco serve` starts it, and a settlement worker, both on database `url`."""
    port = free_port()
    key = "bench-" + secrets.token_hex(16)
    queue_name = f"banco-bench-{os.getpid()}-{secrets.token_hex(3)}"
    env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url, "BANCO_OPERATOR_KEY": key,
           "BANCO_QUEUE": queue_name, "BANCO_BENCH_ENDPOINTS": "1",
           # The benchmark drives each token far past any per-token rate limit a service uses.
           "BANCO_RATE_LIMIT": "100000000/minute"}
    with tempfile.TemporaryDirectory(prefix="banco-bench-http-") as tmp:
        log = Path(tmp, "service.log")
        with log.open("wb") as out:
            gunicorn = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "service.wsgi:app", "--bind",
                 f"127.0.0.1:{port}", "--workers", str(workers), "--worker-class", "gthread",
                 "--threads", str(threads), "--log-level", "warning"],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=out)
            worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=ROOT,
                                      env=env, stdout=subprocess.DEVNULL, stderr=out)
        running = Service(port, key, gunicorn, worker, log)
        try:
            _wait_ready(running)
            yield running
        finally:
            for proc in (gunicorn, worker):
                proc.terminate()
            for proc in (gunicorn, worker):
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            # The run's queue and anything left in it; Redis may be shared with other runs.
            with suppress(Exception):
                queue(connect(redis_url), queue_name).delete(delete_jobs=True)


def _wait_ready(svc: Service, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if svc.gunicorn.poll() is not None or svc.worker.poll() is not None:
            break
        try:
            client = Client(svc.port)
            if client.call("GET", "/readyz", None)[0] == 200:
                client.close()
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the service did not start:\n" + svc.log.read_text()[-3000:])


def _pids(root: int) -> list[int]:
    """`root` and its descendants."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        for task in Path(f"/proc/{pid}/task").glob("*/children"):
            with suppress(OSError):
                todo += [int(c) for c in task.read_text().split()]
    return found


def process_cpu(root: int) -> float:
    """CPU seconds used so far by `root` and its live descendants."""
    total = 0
    for pid in _pids(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(values[:8]) - idle) / tick, sum(values[:8]) / tick


# --- the client ---------------------------------------------------------------------------------

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
        self.conn.request(method, path, data, sent)
        response = self.conn.getresponse()
        raw = response.read()
        return response.status, orjson.loads(raw) if raw else None, dict(response.getheaders())

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


_rngs: dict[str, random.Random] = {}


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
    if ended <= stop_at:
        tally.actions += 1
        tally.latencies.append(ended - began)
        tally.kinds.append(action["type"] + ("*" if body["status"] != "playing" else ""))
        if body["status"] != "playing":
            tally.hands += 1
    return body, ended


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
    read by a thread per player into one inbox of (seat, table as that seat sees it)."""

    def __init__(self, spec: TableSpec, seconds: float) -> None:
        self.inbox: Queue[tuple[int, dict[str, Any]]] = Queue()
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
                        self.inbox.put((seat, orjson.loads(data)))
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
    try:
        while time.monotonic() < stop_at:
            if table is None:
                try:
                    seat, table = feeds.inbox.get(timeout=max(0.001, stop_at - time.monotonic()))
                except Empty:
                    break
                if table["version"] < latest:
                    table = None  # news of a version this client has moved past
                    continue
            latest = table["version"]
            state = table["status"]
            if finished is not None and state != "settling":
                tally.settling.append(time.monotonic() - finished)
                finished = None
            if max_hands is not None and tally.hands >= max_hands:
                break
            if state == "playing" and table["legal_actions"]:
                body, ended = _act(client, spec, spec.seats[seat].token, table, rng, tally, stop_at)
                latest = body["version"]
                if body["status"] == "settling":
                    finished = ended
                # The same player may move again (his own response shows it); else wait for
                # the stream of whoever moves next.
                table = body if body["status"] == "playing" and body["legal_actions"] else None
            elif state == "open":
                status, body, _ = client.call("POST", f"/v1/tables/{spec.table_id}/hands",
                                              spec.seats[seat].token)
                tally.requests += 1
                assert status == 201, body
                latest = body["version"]
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


def insert(port: int, token: str, start_at: float, stop_at: float) -> Tally:
    """The ceiling: POST one INSERT after another from `start_at` to `stop_at`."""
    tally = Tally()
    client = Client(port)
    time.sleep(max(0.0, start_at - time.monotonic()))
    cpu = time.thread_time()
    try:
        while time.monotonic() < stop_at:
            began = time.monotonic()
            status, body, _ = client.call("POST", "/v1/bench/inserts", token)
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


# --- throughput ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    game: str
    tables: int


@dataclass
class Side:
    """One side of a case (the tables, or the ceiling), round by round."""

    rates: list[float] = field(default_factory=list)  # actions (or inserts) per second
    hands: list[float] = field(default_factory=list)
    requests: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)  # pooled over rounds
    settling: list[float] = field(default_factory=list)  # settlement waits, pooled over rounds
    client_cpu: list[float] = field(default_factory=list)  # cores
    server_cpu: list[float] = field(default_factory=list)  # gunicorn's, cores
    other_cpu: list[float] = field(default_factory=list)  # the rest of the machine, cores


@dataclass
class Result:
    case: Case
    tables: Side = field(default_factory=Side)
    ceiling: Side = field(default_factory=Side)

    @property
    def ratio(self) -> float:
        return report.median([t / c for t, c in zip(self.tables.rates, self.ceiling.rates,
                                                      strict=True) if c > 0])

    @property
    def request_ratio(self) -> float:
        """Every request a table client made (reads, deals and polls too) against the ceiling."""
        return report.median([t / c for t, c in zip(self.tables.requests, self.ceiling.rates,
                                                      strict=True) if c > 0])

    @property
    def p99_ratio(self) -> float:
        ceiling = quantile(self.ceiling.latencies, 0.99)
        return quantile(self.tables.latencies, 0.99) / ceiling if ceiling else 0.0

    @property
    def met(self) -> tuple[bool, bool]:
        return self.ratio >= RATE_TARGET, self.p99_ratio < P99_TARGET


def quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def executor(mode: str, workers: int) -> Executor:
    if mode == "processes":
        context = get_context("forkserver")
        context.set_forkserver_preload(["bench.http"])
        return ProcessPoolExecutor(workers, mp_context=context)
    return ThreadPoolExecutor(workers)


Tasks = list[tuple[Callable[..., Tally], tuple[Any, ...]]]  # a client function and its arguments


def trial(pool: Executor, svc: Service, side: Side, tasks: Tasks, seconds: float,
          lead: float = 0.05) -> list[Tally]:
    """Run every task from one shared instant for `seconds`; record the figures into `side`."""
    start_at = time.monotonic() + lead
    stop_at = start_at + seconds
    busy0, _ = machine_cpu()
    server0 = process_cpu(svc.gunicorn.pid)
    futures = [pool.submit(fn, *args, start_at, stop_at) for fn, args in tasks]
    tallies = [f.result() for f in futures]
    busy1, _ = machine_cpu()
    server = process_cpu(svc.gunicorn.pid) - server0
    # the tasks end a little after `stop_at` (the last request in flight); close enough
    span = max(seconds, time.monotonic() - start_at)
    client = sum(t.cpu for t in tallies)
    side.rates.append(sum(t.actions for t in tallies) / seconds)
    side.hands.append(sum(t.hands for t in tallies) / seconds)
    side.requests.append(sum(t.requests for t in tallies) / seconds)
    side.latencies += [x for t in tallies for x in t.latencies]
    side.settling += [x for t in tallies for x in t.settling]
    side.client_cpu.append(client / span)
    side.server_cpu.append(server / span)
    side.other_cpu.append(max(0.0, (busy1 - busy0) - client - server) / span)
    return tallies


def run_throughput(svc: Service, games: Sequence[str], concurrency: Sequence[int], seconds: float,
                   rounds: int, mode: str = "processes",
                   progress: Callable[[str], None] | None = None, warm: bool = True,
                   client: Callable[..., Tally] | None = None) -> list[Result]:
    """Every (game, tables) case, tables and ceiling interleaved; round 0 (unless not `warm`)
    warms the server, its pools and the tables up with short unrecorded trials."""
    most = max(concurrency)
    specs = {g: tables_for(svc, GAMES[g], most) for g in games}
    tokens = [s.token for spec in specs[games[0]] for s in spec.seats[:1]]
    cases = [Case(g, n) for n in concurrency for g in games]
    results = {c: Result(c) for c in cases}
    pool = executor(mode, most)
    try:
        warmed: set[tuple[int, int]] = set()
        while len(warmed) < most:
            warmed |= set(pool.map(_hold, [time.monotonic() + 0.3] * most))
        for r in range(0 if warm else 1, rounds + 1):
            for i, case in enumerate(cases):
                res = results[case] if r else Result(case)
                game_tasks = [(client or follow, (spec,))
                              for spec in specs[case.game][:case.tables]]
                ceiling_tasks = [(insert, (svc.port, tokens[k])) for k in range(case.tables)]
                order: list[tuple[str, Tasks]] = [("tables", game_tasks), ("ceiling", ceiling_tasks)]
                if (r + i) % 2:
                    order.reverse()
                for kind, tasks in order:
                    tallies = trial(pool, svc, getattr(res, kind), tasks,
                                    seconds if r else min(seconds, 0.3))
                    if kind == "tables":
                        for spec, tally in zip(specs[case.game], tallies, strict=False):
                            spec.table_id = tally.table_id
                if progress and r:
                    progress(f"round {r}/{rounds} {case.game} x{case.tables}: "
                             f"{res.tables.rates[-1]:,.0f} actions/s, "
                             f"ceiling {res.ceiling.rates[-1]:,.0f} inserts/s")
    finally:
        pool.shutdown()
    return [results[c] for c in cases]


# --- history ------------------------------------------------------------------------------------

def build_history(url: str, table_id: str, hands: int, batch: int = 1,
                  progress: Callable[[str], None] | None = None) -> float:
    """Play `hands` hands at `table_id` in-process, through the same handlers as the service, and
    settle each; `batch` hands per transaction. Returns the seconds it took.

    One hand per transaction by default: a transaction held open for seconds would hold back the
    xmin of every snapshot on the server, and with it the readers that tail the event log (in
    this run or in anyone else's on the same server). Players stand whenever they may, which
    keeps hands short without changing what a hand writes."""
    rng = random.Random(hands)
    began = time.monotonic()
    metadata = {"actor": "bench", "command": "BenchHistory"}
    with make_pool(url, min_size=1, max_size=1) as pool, pool.connection() as conn:
        store = PostgresEventStore(pool, default_types())
        done = 0
        while done < hands:
            with conn.transaction():
                for _ in range(min(batch, hands - done)):
                    table = handlers.load(conn, table_id)
                    engine = handlers.engine_of(table)
                    table = handlers.open_hand(conn, store, table, metadata)
                    while table.status == "playing":
                        turn = engine.turn(table.state)
                        seats = [turn.seat] if turn is not None else []
                        seats += [s["seat"] for s in table.seats]
                        seat, offered = next((s, a) for s in seats
                                             if (a := engine.legal_actions(table.state, s)))
                        action = next((a for a in offered if a["type"] == "stand"), None)
                        table = handlers.act(conn, store, table, seat,
                                             payload(table.game, action or rng.choice(offered), rng),
                                             metadata)
                    assert table.hand_id is not None
                    settling.settle(conn, store, table_id, table.hand_id,
                                    {**metadata, "hand": table.hand_id})
                    done += 1
            if progress and (done % 1000 == 0 or done == hands):
                progress(f"history: {done:,}/{hands:,} hands, {time.monotonic() - began:.0f} s")
    return time.monotonic() - began


LABELS = ("young", "old", "twin")  # the twin is a second young table: the noise of the method


@dataclass
class HistoryResult:
    """Three Sette e mezzo tables: `young` and `twin` with a few played hands, `old` with many."""

    hands: dict[str, int]  # played hands before measuring
    events: dict[str, int]  # events in their streams
    snapshot_bytes: dict[str, int]  # the pickled engine state in the `tables` row
    build_seconds: float  # to build the old table's history
    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in LABELS})
    kinds: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in LABELS})

    def ratio(self, table: str = "old", base: str = "young") -> float:
        """`table` over `base`, of the action p50s taken move type by move type, weighted alike.

        The tables are dealt different cards, so they play a different mix of moves, and moves
        cost differently (a bet posts treasure: three more statements; the move that ends a hand
        writes its payout and queues the settlement). The latencies of all moves together are
        bimodal, and their p50 follows the mix.
        """
        of, to = _by_kind(self, table), _by_kind(self, base)
        kinds = [k for k in to if k in of]
        weights = {k: len(of[k]) + len(to[k]) for k in kinds}
        below = sum(weights[k] * quantile(to[k], 0.5) for k in kinds)
        return sum(weights[k] * quantile(of[k], 0.5) for k in kinds) / below if below else 0.0

    def pooled_ratio(self, table: str = "old", base: str = "young") -> float:
        """`table` over `base`, of the p50s of all moves together (follows the mix of moves)."""
        below = quantile(self.latencies[base], 0.5)
        return quantile(self.latencies[table], 0.5) / below if below else 0.0

    @property
    def met(self) -> bool:
        return abs(self.ratio() - 1) <= HISTORY_TARGET


def _by_kind(result: HistoryResult, label: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for kind, latency in zip(result.kinds[label], result.latencies[label], strict=True):
        out.setdefault(kind, []).append(latency)
    return out


def run_history(svc: Service, url: str, hands: int, young: int, rounds: int, per_round: int,
                progress: Callable[[str], None] | None = None, warm: bool = True) -> HistoryResult:
    """Build two tables with `young` played hands and one with `hands`, then play `per_round`
    hands over HTTP at each in turn (the order rotates), `rounds` times (plus an unrecorded
    round 0 when `warm`)."""
    specs = dict(zip(LABELS, tables_for(svc, GAMES["sette-e-mezzo"], len(LABELS)), strict=True))
    build_history(url, specs["young"].table_id, young)
    build_history(url, specs["twin"].table_id, young)
    seconds = build_history(url, specs["old"].table_id, hands, progress=progress)
    sizes = {}
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        for label, spec in specs.items():
            row = conn.execute("SELECT s.version, length(t.state) FROM streams s, tables t"
                               " WHERE s.stream_id = %s AND t.table_id = %s",
                               (handlers.stream(spec.table_id), spec.table_id)).fetchone()
            assert row is not None
            sizes[label] = row
    result = HistoryResult({"young": young, "old": hands, "twin": young},
                           {k: v[0] for k, v in sizes.items()}, {k: v[1] for k, v in sizes.items()},
                           seconds)
    for r in range(0 if warm else 1, rounds + 1):
        order = list(LABELS[r % 3:] + LABELS[:r % 3])
        for label in order:
            tally = _hands(specs[label], per_round)
            if r:
                result.latencies[label] += tally.latencies
                result.kinds[label] += tally.kinds
        if r and progress and r % 10 == 0:
            progress(f"history round {r}/{rounds}: old/young {result.ratio():.2f},"
                     f" twin/young {result.ratio('twin'):.2f}")
    return result


def _hands(spec: TableSpec, count: int) -> Tally:
    """Play `count` whole hands at `spec` over HTTP, settlement included."""
    now = time.monotonic()
    tally = play(spec, now, now + 600, max_hands=count)
    assert tally.hands >= count, "the hands did not end in time"
    return tally


# --- report -------------------------------------------------------------------------------------

def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def markdown(results: Sequence[Result]) -> str:
    rows = []
    for res in results:
        t, c = res.tables, res.ceiling
        rate_ok, p99_ok = res.met
        rows.append([
            res.case.game, str(res.case.tables),
            report.rate(report.median(t.rates)), f"{report.median(t.hands):.1f}",
            ms(quantile(t.settling, 0.5)),
            report.rate(report.median(t.requests)),
            f"{ms(quantile(t.latencies, 0.5))} / {ms(quantile(t.latencies, 0.99))}",
            report.rate(report.median(c.rates)),
            f"{ms(quantile(c.latencies, 0.5))} / {ms(quantile(c.latencies, 0.99))}",
            report.percent(res.ratio), report.percent(res.request_ratio), f"{res.p99_ratio:.1f}x",
            f"{report.median(t.client_cpu):.2f} / {report.median(t.server_cpu):.2f} / "
            f"{report.median(t.other_cpu):.2f}",
            f"{report.median(c.client_cpu):.2f} / {report.median(c.server_cpu):.2f} / "
            f"{report.median(c.other_cpu):.2f}",
            "yes" if rate_ok else "no", "yes" if p99_ok else "no",
        ])
    return report.table(
        ["game", "tables", "actions/s", "hands/s", "settling p50 ms", "table requests/s",
         "action p50 / p99 ms",
         "ceiling POST/s", "ceiling p50 / p99 ms", "actions/ceiling", "requests/ceiling",
         "p99/ceiling p99",
         "CPU tables: clients / gunicorn / rest", "CPU ceiling: clients / gunicorn / rest",
         f"≥ {RATE_TARGET:.0%}", f"p99 < {P99_TARGET:g}x"],
        rows,
    )


def history_markdown(result: HistoryResult) -> str:
    rows = []
    for label in ("young", "twin", "old"):
        lat = result.latencies[label]
        rows.append([label, f"{result.hands[label]:,}", f"{result.events[label]:,}",
                     f"{result.snapshot_bytes[label]:,}", str(len(lat)), ms(quantile(lat, 0.5)),
                     ms(sum(lat) / len(lat) if lat else 0.0), ms(quantile(lat, 0.99))])
    table = report.table(["table", "hands played before", "events in its stream",
                          "snapshot bytes", "actions timed", "action p50 ms", "mean ms", "p99 ms"],
                         rows)
    verdict = "yes" if result.met else "no"
    return (f"{table}\n\nold/young, action p50 move type by move type: **{result.ratio():.2f}**"
            f" (within {HISTORY_TARGET:.0%}: {verdict}); all moves together"
            f" {result.pooled_ratio():.2f}. The same for two young tables (the method's own"
            f" noise), twin/young: {result.ratio('twin'):.2f}; all moves together"
            f" {result.pooled_ratio('twin'):.2f}. The old table's {result.hands['old']:,} hands"
            f" were built in {result.build_seconds:.0f} s.")


def redis_url() -> str:
    return os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


@dataclass
class Options:
    games: Sequence[str] = tuple(GAMES)
    tables: Sequence[int] = (1, 4, 16)
    seconds: float = 2.0
    rounds: int = 5
    mode: str = "processes"
    history: int = 10_000  # hands played at the old table (0: skip the history part)
    young: int = 10
    history_rounds: int = 100
    hands_per_round: int = 1
    poll: bool = False  # clients that read before each move (`play`) instead of `follow`

    @property
    def client_kind(self) -> str:
        return ("reading the table before each move and polling for settlement" if self.poll
                else "following their turns over Server-Sent Events")

    @property
    def server_threads(self) -> int:
        """gunicorn threads per worker: as many as `banco serve` runs, or, with streams, one per
        stream a trial can hold, either worker taking any of them, twice over (a trial's streams
        end just after the next one's begin), whichever is more."""
        if self.poll:
            return THREADS
        players = max(GAMES[g].players for g in self.games)
        return max(THREADS, 2 * max(self.tables) * players + 8)


def prepare(url: str) -> None:
    """The ceiling's scratch table, in the run's database."""
    with psycopg.connect(url, autocommit=True) as conn:
        bench_endpoint.create_table(conn)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench http", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="some seconds: one short round, a 50-hand history")
    parser.add_argument("--seconds", type=float, help="length of one trial (default 2, quick 0.5)")
    parser.add_argument("--rounds", type=int, help="rounds of every case (default 5, quick 1)")
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 4, 16],
                        help="concurrent tables, one client each (default 1 4 16)")
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    parser.add_argument("--threads", action="store_true",
                        help="one client thread per table instead of one process per table")
    parser.add_argument("--poll", action="store_true",
                        help="clients that read the table before a move and poll for settlement,"
                        " instead of following their turns over Server-Sent Events")
    parser.add_argument("--history", type=int,
                        help="hands played at the long-lived table (default 10000, quick 50; 0 skips)")
    parser.add_argument("--url", help="server to create the benchmark database on"
                        " (default: $DATABASE_URL, else the local test server)")
    args = parser.parse_args(argv)
    options = Options(
        games=args.games, tables=args.tables,
        seconds=args.seconds or (0.5 if args.quick else 2.0),
        rounds=args.rounds or (1 if args.quick else 5),
        mode="threads" if args.threads else "processes",
        poll=args.poll,
        history=args.history if args.history is not None else (50 if args.quick else 10_000),
        history_rounds=2 if args.quick else 100,
        hands_per_round=1,
    )
    progress = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    with db.fresh_database(args.url) as url:
        print(f"# HTTP: tables vs a one-INSERT endpoint of the same app,"
              f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n"
              f"gunicorn gthread 2 workers x {options.server_threads} threads and one settlement"
              f" worker, {db.describe(url)}, clients {options.client_kind},"
              f" {os.cpu_count()} cores shared by the service, PostgreSQL, Redis and the clients;"
              f" clients as {options.mode}, {options.rounds} round(s) of {options.seconds:g} s per"
              " trial; rates are medians over rounds, actions/ceiling the median of each round's"
              " ratio, latencies pooled over rounds; CPU in cores\n", flush=True)
        prepare(url)
        with service(url, redis_url(), threads=options.server_threads) as svc:
            results = run_throughput(svc, options.games, options.tables, options.seconds,
                                     options.rounds, options.mode, progress,
                                     client=play if options.poll else follow)
            print(markdown(results), flush=True)
            if options.history:
                history = run_history(svc, url, options.history, options.young,
                                      options.history_rounds, options.hands_per_round, progress)
                print(f"\n## Action cost at a table with {history.hands['old']:,} played hands"
                      f" against one with {history.hands['young']:,}\n")
                print(history_markdown(history))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
