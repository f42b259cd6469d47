"""Followers at scale: how many open streams one node holds and what each costs in memory, and
what being followed costs a table's moves, against the same moves at the table unfollowed, in
the same run.

The service runs as `banco serve` ships it (gunicorn, 2 workers x `THREADS` threads, each
worker's streams passed on to its streamer process, up to `BANCO_STREAMS`) with a settlement
worker, on a database of the run's own. **Held**: `--streams` Server-Sent Events streams
(`?turns=true`) are opened at once, from one process with non-blocking sockets, on idle Sette e
mezzo tables as their seated players (four per table); the figure is how many answered
200, how many 503, and the growth of the resident memory of gunicorn's workers and their
streamers divided by the streams held. **Watched**: one client plays hands at a table
(`bench.http_clients.play`: it reads the table before each move) while 0, then each of
`--followers` streams follow that table (its
players, an auditor and the operator in turn, all with events, drained by another process, from
the table's version as they join); each round runs every count once, in an order that turns from
round to round, and p50/p99 of the moves are pooled over the rounds. The ceiling is the
unfollowed table (0 followers); the target is a followed table's move p99 within 2 times it.
**Delivery**: for each move, from its commit (the mover's response, which comes after it) to
the moment each follower's socket brought the event of that version (`id:`), pooled over
followers and rounds; and to the moment the last of them had it ("every follower"). At most
`SAMPLED` followers, spread over all, are timed: the others are read but not parsed. With
`--in-thread` every stream is served from its request's thread (`bench.in_thread`), the path
the streamer's delivery is compared with.
"""

from __future__ import annotations

import argparse
import bisect
import multiprocessing
import os
import re
import resource
import selectors
import socket
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event
from typing import cast

from bench import db, report
from bench.http_clients import GAMES, Client, TableSpec, play, tables_for
from bench.http_service import Service, prepare, process_cpu, redis_url, service
from service.cli.runner import THREADS
from service.runtime.config import STREAMS as PER_WORKER

STREAMS = 2000
FOLLOWERS = (1, 16, 500)
P99_TARGET = 2.0  # a followed table's move p99 within 2 times the unfollowed table's


def _nofile(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def open_streams(port: int, requests: Sequence[tuple[str, str]],
                 timeout: float = 60) -> tuple[list[socket.socket], int]:
    """Open a stream for each (path, token) at once; the sockets of those answered 200 (with
    their `: connected` comment read) and how many were refused."""
    _nofile(len(requests) + 256)
    sel = selectors.DefaultSelector()
    pending: dict[socket.socket, bytes] = {}
    for path, token in requests:
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\n"
                  "Accept: text/event-stream\r\n\r\n".encode())
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        pending[s] = b""
    held: list[socket.socket] = []
    refused = 0
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        for key, _ in sel.select(1.0):
            s = cast(socket.socket, key.fileobj)
            data = s.recv(65536)
            got = pending[s] + data
            if got.startswith(b"HTTP/1.1 200") and b": connected" in got:
                held.append(s)
            elif data and not (got.startswith(b"HTTP/1.1 503") and b"\r\n\r\n" in got):
                pending[s] = got
                continue
            else:
                refused += 1
                s.close()
            sel.unregister(s)
            del pending[s]
    for s in pending:
        s.close()
    sel.close()
    return held, refused + len(pending)


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


@dataclass
class Held:
    asked: int
    held: int
    refused: int
    kb_per_stream: float


def run_held(svc: Service, streams: int) -> Held:
    specs = tables_for(svc, GAMES["sette-e-mezzo"], max(1, streams // 40))
    requests = [(f"/v1/tables/{spec.table_id}/stream?turns=true&events=false&timeout=600",
                 seat.token) for spec in specs for seat in spec.seats]
    requests = (requests * (streams // len(requests) + 1))[:streams]
    before = sum(_rss_kb(pid) for pid in svc.api_processes())
    held, refused = open_streams(svc.port, requests)
    time.sleep(1.0)
    during = sum(_rss_kb(pid) for pid in svc.api_processes())
    for s in held:
        s.close()
    # The streamers see a client leave at once; the next part starts once they are gone.
    time.sleep(2 if len(held) > 50 else 0)
    return Held(streams, len(held), refused, (during - before) / max(1, len(held)))


EVENT_ID = re.compile(rb"(?:^|\n)id: (\d+)\n")
Marks = list[tuple[int, float]]  # a stream's (newest event version, when it came), as it grew


SAMPLED = 50  # streams whose events are timed; the others are read, not parsed


def _follow(port: int, requests: list[tuple[str, str]], ready: multiprocessing.Queue[int],
            stop: Event, marks: multiprocessing.Queue[list[Marks]]) -> None:
    """Hold the streams and read everything they send until `stop`; then put in `marks` when
    each of `SAMPLED` streams, spread over all, received each newer event. Parsing every
    stream's events in Python would make this reader, not the service, what a follower waits
    for at 500 streams; and a batch of readable sockets is timed as the `select` that found them
    returned, not as each is reached."""
    held, _ = open_streams(port, requests)
    ready.put(len(held))
    sel = selectors.DefaultSelector()
    every = max(1, len(held) // SAMPLED)
    timed = range(0, len(held), every)
    newest = [0] * len(held)
    tails = [b""] * len(held)  # an `id:` line may come in two reads
    seen: list[Marks] = [[] for _ in timed]
    for i, s in enumerate(held):
        sel.register(s, selectors.EVENT_READ, i)
    # Read into one buffer: `recv(n)` allocates n bytes each time, and at 500 streams a change
    # is 500 reads, whose allocations (a 1 MB one is an mmap and munmap) the benchmark's own
    # client would take from the two cores the service is measured on.
    buffer = bytearray(1 << 16)
    while not stop.is_set():
        events = sel.select(0.2)
        came = time.monotonic()
        for key, _ in events:
            s = cast(socket.socket, key.fileobj)
            n = s.recv_into(buffer)
            if not n:
                sel.unregister(s)
                continue
            i = key.data
            if i % every or i // every >= len(seen):
                continue
            data = tails[i] + buffer[:n]
            tails[i] = bytes(data[-32:])
            ids = EVENT_ID.findall(data)
            if ids and int(ids[-1]) > newest[i]:
                newest[i] = int(ids[-1])
                seen[i // every].append((newest[i], came))
    for s in held:
        s.close()
    marks.put(seen)


def deliveries(moves: list[tuple[int, float]], marks: list[Marks]) -> tuple[list[float],
                                                                           list[float], int]:
    """For each move, from its response to each stream's receipt of its version, and to the
    last stream's; and how many (stream, move) pairs never arrived."""
    each: list[float] = []
    every: list[float] = []
    missed = 0
    versions = [[v for v, _ in m] for m in marks]
    for version, moved in moves:
        last = 0.0
        for m, vs in zip(marks, versions, strict=True):
            i = bisect.bisect_left(vs, version)
            if i == len(vs):
                missed += 1
                continue
            waited = max(0.0, m[i][1] - moved)
            each.append(waited)
            last = max(last, waited)
        every.append(last)
    return each, every, missed


@dataclass
class Watched:
    latencies: dict[int, list[float]] = field(default_factory=dict)  # by followers
    held: dict[int, int] = field(default_factory=dict)
    cpu: dict[int, float] = field(default_factory=dict)  # gunicorn's CPU seconds while playing
    each: dict[int, list[float]] = field(default_factory=dict)  # commit to a follower's receipt
    every: dict[int, list[float]] = field(default_factory=dict)  # commit to the last follower's
    missed: dict[int, int] = field(default_factory=dict)  # (follower, move) pairs never received

    def cpu_ms(self, followers: int) -> float:
        """gunicorn's CPU per move, in ms: less disturbed than latencies by the machine's other
        work, it shows what each follower costs the process."""
        return 1000 * self.cpu[followers] / max(1, len(self.latencies[followers]))

    def p(self, followers: int, q: float) -> float:
        return report.quantile(self.latencies[followers], q)

    def ratio(self, followers: int) -> float:
        ceiling = self.p(0, 0.99)
        return self.p(followers, 0.99) / ceiling if ceiling else 0.0


def run_watched(svc: Service, followers: Sequence[int], seconds: float, rounds: int) -> Watched:
    spec: TableSpec = tables_for(svc, GAMES["sette-e-mezzo"], 1)[0]
    client = Client(svc.port)
    status, body, _ = client.call("POST", "/v1/auditors", svc.operator_key, {"name": "bench"})
    client.close()
    assert status == 201, body
    tokens = [seat.token for seat in spec.seats] + [body["token"], svc.operator_key]
    path = f"/v1/tables/{spec.table_id}/stream?turns=true&timeout=600&after="
    counts = [0, *followers]
    out = Watched({k: [] for k in counts}, {k: 0 for k in counts}, {k: 0.0 for k in counts},
                  {k: [] for k in counts}, {k: [] for k in counts}, {k: 0 for k in counts})
    context = multiprocessing.get_context("spawn")
    for r in range(rounds):
        for k in counts[r % len(counts):] + counts[:r % len(counts)]:
            stop = context.Event()
            ready: multiprocessing.Queue[int] = context.Queue()
            marks: multiprocessing.Queue[list[Marks]] = context.Queue()
            holder = None
            if k:
                # From the table's version now: what following costs a move, not a history
                # sent to 500 clients at once.
                client = Client(svc.port)
                version = client.call("GET", f"/v1/tables/{spec.table_id}", tokens[-1])[1]["version"]
                client.close()
                requests = [(f"{path}{version}", tokens[i % len(tokens)]) for i in range(k)]
                holder = context.Process(target=_follow,
                                         args=(svc.port, requests, ready, stop, marks))
                holder.start()
                out.held[k] = ready.get(timeout=120)
                time.sleep(0.5)
            start = time.monotonic() + 0.05
            cpu = process_cpu(svc.gunicorn.pid)
            tally = play(spec, start, start + seconds)
            out.cpu[k] += process_cpu(svc.gunicorn.pid) - cpu
            out.latencies[k] += tally.latencies
            if holder is not None:
                time.sleep(1.0)  # the last moves' news on its way
                stop.set()
                each, every, missed = deliveries(
                    [(v, t) for v, t in tally.moves if t <= start + seconds], marks.get(timeout=60))
                out.each[k] += each
                out.every[k] += every
                out.missed[k] += missed
                holder.join(30)
    return out


def markdown(held: Held, watched: Watched) -> str:
    lines = [report.table(
        ["streams asked", "held (200)", "refused (503)", "memory per stream"],
        [[f"{held.asked:,}", f"{held.held:,}", f"{held.refused:,}",
          f"{held.kb_per_stream:.0f} KB"]]), ""]
    rows = []
    for k in watched.latencies:
        each = (f"{1000 * (watched.cpu_ms(k) - watched.cpu_ms(0)) / k:.0f}" if k and 0 in
                watched.cpu else "")
        rows.append([str(k), f"{watched.held[k]:,}", str(len(watched.latencies[k])),
                     report.ms(watched.p(k, 0.5)), report.ms(watched.p(k, 0.99)),
                     "ceiling" if k == 0 else f"{watched.ratio(k):.2f}",
                     f"{watched.cpu_ms(k):.1f}", each])
    lines.append(report.table(["followers", "held", "moves", "p50 ms", "p99 ms",
                               "p99 / unfollowed", "server CPU ms / move",
                               "µs / follower / move"], rows))
    rows = [[f"{k} ({min(k, SAMPLED)} timed)", str(len(watched.every[k])), _spread(watched.each[k]),
             _spread(watched.every[k]), str(watched.missed[k])]
            for k in watched.latencies if k]
    lines += ["", report.table(["followers", "moves", "to each follower p50 / p99 / max ms",
                                "to every follower p50 / p99 / max ms", "never received"], rows)]
    return "\n".join(lines)


def _spread(values: list[float]) -> str:
    return " / ".join(report.ms(report.quantile(values, q)) for q in (0.5, 0.99, 1.0))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench streams", description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=STREAMS)
    parser.add_argument("--followers", type=int, nargs="+", default=list(FOLLOWERS))
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--quick", action="store_true", help="200 streams, 1 round of 2 s")
    parser.add_argument("--per-worker", type=int, default=PER_WORKER,
                        help=f"BANCO_STREAMS, the streams each worker holds (default {PER_WORKER:,})")
    parser.add_argument("--in-thread", action="store_true",
                        help="serve every stream from its request's thread (no hand-over to the"
                        " streamer): the path handed-over streams are compared with")
    parser.add_argument("--url", help="server to create the benchmark database on"
                        " (default: $DATABASE_URL, else the local test server)")
    args = parser.parse_args(argv)
    if args.quick:
        args.streams, args.seconds, args.rounds = min(args.streams, 200), 2.0, 1
    with db.fresh_database(args.url) as url:
        prepare(url)
        print(f"gunicorn gthread 2 workers x {THREADS} threads, up to {args.per_worker:,} streams each"
              f" in its streamer; {args.streams:,} streams held,"
              f" then {args.rounds} rounds of {args.seconds:g} s per follower count;"
              f" streams {'served in their threads' if args.in_thread else 'handed over'};"
              f" load average before {os.getloadavg()[0]:.2f}", file=sys.stderr)
        threads = max(THREADS, max(args.streams, *args.followers) + 64) if args.in_thread else THREADS
        with service(url, redis_url(), threads=threads, in_thread=args.in_thread,
                     streams=args.per_worker) as svc:
            held = run_held(svc, args.streams)
            watched = run_watched(svc, args.followers, args.seconds, args.rounds)
    print(markdown(held, watched))
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    ok = held.held >= min(args.streams, STREAMS) and all(
        watched.ratio(k) <= P99_TARGET for k in args.followers)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
