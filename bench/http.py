"""Whole hands played over HTTP against the service under gunicorn, against two ceiling endpoints
of the same app (the minimal move and one INSERT), in the same run.

The service runs as `banco serve` runs it (gunicorn, gthread workers, 2 x 2,048 threads, more when
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

The ceilings are endpoints of the same app (service/http/bench_endpoint.py): the same gunicorn,
authentication (a player token looked up like the tables' callers), pooled connection and
request transaction, with less work. `POST /v1/bench/moves`, the minimal move, does the least any
event-sourced move must do: in its transaction it locks the caller's table row, inserts two
events and writes the row back; the targets are set against it. `POST /v1/bench/inserts` does
one single-row INSERT: what a request costs at all. Table trials and the two ceilings' trials at
the same number of concurrent clients follow each other case by case, their order turning round
by round; a case's rate ratio is the median of its rounds' ratios, latencies are pooled over
its rounds.

A second part measures what an action costs at a table with a long history: a table with
`--history` played hands (built in-process through `service.application.handlers`, one hand per transaction)
against one with 10, and a twin of that one to show the method's own noise, one hand played over
HTTP at each in turn; p50s are compared move type by move type.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

from bench import db, http_cpu, otlp_sink, report
from bench.http_clients import GAMES, Tally, _hold, follow, insert, move, play, tables_for
from bench.http_history import history_markdown, run_history
from bench.http_service import Service, machine_cpu, prepare, process_cpu, redis_url, service
from service.cli.runner import THREADS

# The request each side's actions are: a move, or a ceiling's request (for `--cpu`).
ROUTES = {"tables": "POST /v1/tables/{id}/actions", "move": "POST /v1/bench/moves",
          "ceiling": "POST /v1/bench/inserts"}
SIDES = ("tables", "move", "ceiling")
# Actions/s at least this share of the minimal move's requests/s. Cassino spreads its deal and
# settlement over ~48 moves, Sette e mezzo over ~9: more of its actions carry them.
RATE_TARGETS = {"sette-e-mezzo": 0.40, "cassino": 0.55}
P99_TARGET = 3.0  # action p99 within 3 times the minimal move's p99


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
    deliveries: list[float] = field(default_factory=list)  # commit to the next mover's stream
    client_cpu: list[float] = field(default_factory=list)  # cores
    server_cpu: list[float] = field(default_factory=list)  # gunicorn's, cores
    other_cpu: list[float] = field(default_factory=list)  # the rest of the machine, cores
    parts: list[dict[str, float]] = field(default_factory=list)  # with --cpu: ms per action


@dataclass
class Result:
    case: Case
    tables: Side = field(default_factory=Side)
    move: Side = field(default_factory=Side)  # the minimal move's endpoint
    ceiling: Side = field(default_factory=Side)  # the one-INSERT endpoint

    def ratios_to(self, side: str = "ceiling") -> list[float]:
        """Each round's actions/requests of a ceiling, from its back-to-back trials."""
        other = getattr(self, side).rates
        return [t / c for t, c in zip(self.tables.rates, other, strict=True) if c > 0]

    @property
    def ratios(self) -> list[float]:
        return self.ratios_to("ceiling")

    @property
    def ratio(self) -> float:
        return report.median(self.ratios)

    @property
    def move_ratio(self) -> float:
        return report.median(self.ratios_to("move"))

    @property
    def request_ratio(self) -> float:
        """Every request a table client made (reads, deals and polls too) against the ceiling."""
        return report.median([t / c for t, c in zip(self.tables.requests, self.ceiling.rates,
                                                      strict=True) if c > 0])

    def p99_ratio_to(self, side: str) -> float:
        ceiling = report.quantile(getattr(self, side).latencies, 0.99)
        return report.quantile(self.tables.latencies, 0.99) / ceiling if ceiling else 0.0

    @property
    def p99_ratio(self) -> float:
        """Against the minimal move's p99, which the target is set against."""
        return self.p99_ratio_to("move")

    @property
    def rate_target(self) -> float:
        return RATE_TARGETS.get(self.case.game, max(RATE_TARGETS.values()))

    @property
    def met(self) -> tuple[bool, bool]:
        return self.move_ratio >= self.rate_target, self.p99_ratio <= P99_TARGET


def executor(mode: str, workers: int) -> Executor:
    if mode == "processes":
        context = get_context("forkserver")
        context.set_forkserver_preload(["bench.http_clients"])
        return ProcessPoolExecutor(workers, mp_context=context)
    return ThreadPoolExecutor(workers)


Tasks = list[tuple[Callable[..., Tally], tuple[Any, ...]]]  # a client function and its arguments


def trial(pool: Executor, svc: Service, side: Side, tasks: Tasks, seconds: float,
          lead: float = 0.05, request_route: str = "") -> list[Tally]:
    """Run every task from one shared instant for `seconds`; record the figures into `side`
    (with the service's CPU counted, its parts per action, `request_route` the action's own)."""
    folder = svc.cpu_dir
    if folder is not None:
        before = http_cpu.snapshot(folder, svc.gunicorn_workers(), svc.processes_cpu())
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
    side.deliveries += [x for t in tallies for x in t.deliveries]
    if lost := sum(getattr(t, "lost", 0) for t in tallies):
        # The server closed a new connection before it answered; the clients read the table
        # again and went on. Said, not hidden: a served client would see it too.
        print(f"  {lost} request(s) lost their response on a new connection", flush=True)
    side.client_cpu.append(client / span)
    side.server_cpu.append(server / span)
    side.other_cpu.append(max(0.0, (busy1 - busy0) - client - server) / span)
    if folder is not None:
        after = http_cpu.snapshot(folder, svc.gunicorn_workers(), svc.processes_cpu())
        side.parts.append(http_cpu.parts(before, after, request_route, client,
                                         sum(t.actions for t in tallies)))
    return tallies


def run_throughput(svc: Service, games: Sequence[str], concurrency: Sequence[int], seconds: float,
                   rounds: int, mode: str = "processes",
                   progress: Callable[[str], None] | None = None, warm: bool = True,
                   client: Callable[..., Tally] | None = None) -> list[Result]:
    """Every (game, tables) case, tables and both ceilings interleaved; round 0 (unless not
    `warm`) warms the server, its pools and the tables up with short unrecorded trials."""
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
                move_tasks = [(move, (svc.port, tokens[k])) for k in range(case.tables)]
                order: list[tuple[str, Tasks]] = [("tables", game_tasks), ("move", move_tasks),
                                                  ("ceiling", ceiling_tasks)]
                # Each side goes first, second and third in turn.
                turn = (r + i) % len(order)
                order = order[turn:] + order[:turn]
                for kind, tasks in order:
                    tallies = trial(pool, svc, getattr(res, kind), tasks,
                                    seconds if r else min(seconds, 0.3), request_route=ROUTES[kind])
                    if kind == "tables":
                        for spec, tally in zip(specs[case.game], tallies, strict=False):
                            spec.table_id = tally.table_id
                if progress and r:
                    progress(f"round {r}/{rounds} {case.game} x{case.tables}: "
                             f"{res.tables.rates[-1]:,.0f} actions/s, "
                             f"minimal move {res.move.rates[-1]:,.0f}/s, "
                             f"ceiling {res.ceiling.rates[-1]:,.0f} inserts/s")
    finally:
        pool.shutdown()
    return [results[c] for c in cases]


def lat(values: Sequence[float], q: float) -> str:
    """A latency quantile in ms."""
    return report.ms(report.quantile(values, q))


def spread(res: Result, side: str = "ceiling") -> str:
    """The median of the rounds' actions/requests of a ceiling, and their range when there are
    several: one round whose ceiling ran slow (or fast) shows as what it is, the machine's noise."""
    ratios = res.ratios_to(side)
    ratio = report.median(ratios)
    if len(ratios) < 2:
        return report.percent(ratio)
    return f"{report.percent(ratio)} ({min(ratios) * 100:.0f}-{report.percent(max(ratios))})"


def cpu(side: Side) -> str:
    return (f"{report.median(side.client_cpu):.2f} / {report.median(side.server_cpu):.2f} / "
            f"{report.median(side.other_cpu):.2f}")


def markdown(results: Sequence[Result]) -> str:
    rows = []
    for res in results:
        t, m, c = res.tables, res.move, res.ceiling
        rate_ok, p99_ok = res.met
        rows.append([
            res.case.game, str(res.case.tables),
            report.rate(report.median(t.rates)), f"{report.median(t.hands):.1f}",
            report.ms(report.quantile(t.settling, 0.5)),
            report.rate(report.median(t.requests)),
            f"{lat(t.latencies, 0.5)} / {lat(t.latencies, 0.99)}",
            (f"{lat(t.deliveries, 0.5)} / {lat(t.deliveries, 0.99)} / {lat(t.deliveries, 1.0)}"
             if t.deliveries else "-"),
            report.rate(report.median(m.rates)),
            f"{lat(m.latencies, 0.5)} / {lat(m.latencies, 0.99)}",
            report.rate(report.median(c.rates)),
            f"{lat(c.latencies, 0.5)} / {lat(c.latencies, 0.99)}",
            spread(res, "move"), spread(res, "ceiling"), report.percent(res.request_ratio),
            f"{res.p99_ratio:.1f}x", f"{res.p99_ratio_to('ceiling'):.1f}x",
            cpu(t), cpu(m), cpu(c),
            f"{report.percent(res.rate_target)}: {'yes' if rate_ok else 'no'}",
            "yes" if p99_ok else "no",
        ])
    return report.table(
        ["game", "tables", "actions/s", "hands/s", "settling p50 ms", "table requests/s",
         "action p50 / p99 ms", "delivery p50 / p99 / max ms", "minimal move POST/s",
         "minimal move p50 / p99 ms",
         "INSERT POST/s", "INSERT p50 / p99 ms",
         "actions/minimal move (rounds' range)", "actions/INSERT (rounds' range)",
         "requests/INSERT", "p99/minimal move p99", "p99/INSERT p99",
         "CPU tables: clients / gunicorn / rest", "CPU minimal move", "CPU INSERT",
         "actions/minimal move ≥", f"p99 ≤ {P99_TARGET:g}x minimal move's"],
        rows,
    )


def cpu_markdown(results: Sequence[Result]) -> str:
    """With --cpu: ms of CPU per action (or ceiling request) by part, medians over rounds."""
    rows = [((res.case.game, str(res.case.tables), side), getattr(res, side).parts)
            for res in results for side in SIDES]
    return http_cpu.markdown(rows, ["game", "tables", "side"])


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
    cpu: bool = False  # count the CPU of each part of the service (`bench.http_cpu`)
    in_thread: bool = False  # streams served from their requests' threads (`bench.in_thread`)

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
    parser.add_argument("--in-thread", action="store_true",
                        help="serve every stream from its request's thread (no hand-over to the"
                        " streamer): the path handed-over streams are compared with")
    parser.add_argument("--cpu", action="store_true",
                        help="also split each trial's CPU into its parts, per action (gunicorn"
                        " counts its requests by endpoint; local PostgreSQL and Redis from /proc)")
    parser.add_argument("--history", type=int,
                        help="hands played at the long-lived table (default 10000, quick 50; 0 skips)")
    parser.add_argument("--traces", action="store_true",
                        help="the service traces every request and job and exports the spans by"
                        " OTLP to a receiver of the benchmark's (service/runtime/tracing.py)")
    parser.add_argument("--url", help="server to create the benchmark database on"
                        " (default: $DATABASE_URL, else the local test server)")
    args = parser.parse_args(argv)
    options = Options(
        games=args.games, tables=args.tables,
        seconds=args.seconds or (0.5 if args.quick else 2.0),
        rounds=args.rounds or (1 if args.quick else 5),
        mode="threads" if args.threads else "processes",
        poll=args.poll,
        cpu=args.cpu,
        in_thread=args.in_thread,
        history=args.history if args.history is not None else (50 if args.quick else 10_000),
        history_rounds=2 if args.quick else 100,
        hands_per_round=1,
    )
    progress = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    sink = None
    if args.traces:  # the service and its worker inherit the endpoint
        endpoint, sink = otlp_sink.start()
        os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    with db.fresh_database(args.url) as url:
        print(f"# HTTP: tables vs the minimal move and a one-INSERT endpoint of the same app,"
              f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n"
              f"gunicorn gthread 2 workers x {options.server_threads} threads and one settlement"
              f" worker, {db.describe(url)}, clients {options.client_kind},"
              f" {os.cpu_count()} cores shared by the service, PostgreSQL, Redis and the clients;"
              f" clients as {options.mode}, {options.rounds} round(s) of {options.seconds:g} s per"
              " trial; rates are medians over rounds, actions/ceiling the median of each round's"
              " ratio (its trials back to back), latencies pooled over rounds; CPU in cores;"
              f" streams {'served in their threads' if options.in_thread else 'handed over'};"
              f" traces {'on, exported by OTLP to a local receiver' if sink else 'off'};"
              f" load average before {os.getloadavg()[0]:.2f}\n", flush=True)
        prepare(url)
        with service(url, redis_url(), threads=options.server_threads, cpu=options.cpu,
                     in_thread=options.in_thread) as svc:
            results = run_throughput(svc, options.games, options.tables, options.seconds,
                                     options.rounds, options.mode, progress,
                                     client=play if options.poll else follow)
            print(markdown(results), flush=True)
            print(f"\nload average after: {os.getloadavg()[0]:.2f}", flush=True)
            if sink is not None:
                print(f"spans exported: {sink.requests} OTLP requests, {sink.bytes:,} bytes",
                      flush=True)
            if options.cpu:
                print("\n## CPU per action (or ceiling request), ms, by part\n")
                print(cpu_markdown(results), flush=True)
            if options.history:
                history = run_history(svc, url, options.history, options.young,
                                      options.history_rounds, options.hands_per_round, progress)
                print(f"\n## Action cost at a table with {history.hands['old']:,} played hands"
                      f" against one with {history.hands['young']:,}\n")
                print(history_markdown(history))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
