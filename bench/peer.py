"""Banco's store against the `eventsourcing` library's PostgreSQL recorder, the same command
through each, interleaved in the same run on the same server.

The command is a move's shape: load the table with its snapshot, decide on it (a pure function of
the state: the move and the next turn's deadline), append the two events, at the version the
snapshot was taken at.

- *Banco*: one transaction on the process's connection, as a request runs one: the table's row
  (its snapshot, `projections.tables.load`), `PostgresEventStore.append` of a `game.` event and a
  `DeadlineSet`, and the row written back with the new state (`projections.tables.save`).
- *eventsourcing*: an `Application` on `eventsourcing.postgres`, as its documentation sets one up,
  with an aggregate whose two methods are the same two events: `repository.get` (its latest
  snapshot, then the events after it), the two method calls, `save`. Snapshots are taken every
  `SNAPSHOT_EVERY` events, the library's own `snapshotting_intervals`: a snapshot on every command
  would be a second write per command, which Banco's one transaction does not pay.

Each process works on tables of its own (no conflicts on either side). Banco trials and peer
trials at the same number of processes alternate case by case and round by round; a case's ratio
is the median of its rounds' ratios.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any, ClassVar

import psycopg
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from psycopg.conninfo import conninfo_to_dict

from bench import db, report
from events.catalog import default_types
from events.model import NewEvent
from events.postgres import PostgresEventStore, configure_connection, make_pool
from projections import tables
from projections.tables import TableRow

TABLES_PER_PROCESS = 8
SNAPSHOT_EVERY = 10  # events, so every fifth command
TURN_SECONDS = 60.0


# --- the command, one pure decision for both sides ----------------------------------------------

@dataclass(frozen=True)
class Count:
    """A table's state: how many moves were made."""

    SCHEMA: ClassVar[int] = 1  # its snapshot's version (projections/snapshots.py)

    moves: int = 0


def decide(moves: int, now: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """The move's event and the next turn's deadline, from the state before it."""
    seat = moves % 4
    return ({"hand": "h1", "data": {"seat": seat, "card": moves % 40}},
            {"hand": "h1", "seat": (seat + 1) % 4, "waiting_for": "move",
             "deadline": now + TURN_SECONDS})


# --- Banco ---------------------------------------------------------------------------------------

class BancoSide:
    def __init__(self, url: str) -> None:
        self.conn = psycopg.connect(url)
        configure_connection(self.conn)
        self.store = PostgresEventStore(make_pool(url, min_size=1, max_size=1), default_types())
        self.tables: list[str] = []
        for _ in range(TABLES_PER_PROCESS):
            table = TableRow(table_id="tb_" + secrets.token_hex(8), game="bench", options={},
                             status="playing", version=0, created_by="bench", state=Count())
            with self.conn.transaction():
                created = self.store.append(f"table-{table.table_id}", [NewEvent(
                    "TableCreated", {"table_id": table.table_id, "game": "bench", "options": {},
                                     "created_by": "bench"})], 0, conn=self.conn)
                table.version, table.created_at = created[-1].version, created[-1].recorded_at
                tables.save(self.conn, table)
            self.tables.append(table.table_id)

    def close(self) -> None:
        self.conn.close()
        self.store.pool.close()

    def command(self, turn: int) -> None:
        table_id = self.tables[turn % len(self.tables)]
        with self.conn.transaction():
            table = tables.load(self.conn, table_id, state_type=Count)  # no game's table
            assert table is not None
            move, deadline = decide(table.state.moves, time.time())
            stored = self.store.append(
                f"table-{table_id}",
                [NewEvent("game.Moved", move), NewEvent("DeadlineSet", deadline)],
                table.version, conn=self.conn)
            table.version = stored[-1].version
            table.state = Count(table.state.moves + 1)
            tables.save(self.conn, table)


# --- eventsourcing -------------------------------------------------------------------------------

class PeerTable(Aggregate):
    """The same table in the library's terms: each decorated method is an event."""

    def __init__(self) -> None:
        self.moves = 0
        self.deadline = 0.0

    @event("Moved")
    def moved(self, hand: str, data: dict[str, Any]) -> None:
        self.moves += 1

    @event("DeadlineSet")
    def deadline_set(self, hand: str, seat: int, waiting_for: str, deadline: float) -> None:
        self.deadline = deadline


class PeerTables(Application[Any]):
    snapshotting_intervals = {PeerTable: SNAPSHOT_EVERY}  # noqa: RUF012 (the library's own shape)


def peer_env(url: str) -> dict[str, str]:
    """The library's settings for the server and database `url` names (socket or TCP alike)."""
    params = conninfo_to_dict(url)
    env = {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": str(params["dbname"]),
           "POSTGRES_HOST": str(params.get("host") or "127.0.0.1"),
           "POSTGRES_PORT": str(params.get("port") or "5432"),
           "POSTGRES_USER": str(params.get("user") or "postgres"),
           "POSTGRES_PASSWORD": str(params.get("password") or ""), "POSTGRES_POOL_SIZE": "1",
           # `prepare` makes the tables once: processes starting together would race to.
           "CREATE_TABLE": "n"}
    return env


class PeerSide:
    def __init__(self, url: str) -> None:
        self.app = PeerTables(env=peer_env(url))
        self.tables = []
        for _ in range(TABLES_PER_PROCESS):
            table = PeerTable()
            self.app.save(table)
            self.tables.append(table.id)

    def close(self) -> None:
        self.app.close()

    def command(self, turn: int) -> None:
        table: PeerTable = self.app.repository.get(self.tables[turn % len(self.tables)])
        move, deadline = decide(table.moves, time.time())
        table.moved(**move)
        table.deadline_set(**deadline)
        self.app.save(table)


# --- processes and trials ------------------------------------------------------------------------

_process: dict[str, Any] = {}


def _setup(url: str) -> None:
    _process["url"] = url


def _side(kind: str) -> BancoSide | PeerSide:
    side = _process.get(kind)
    if side is None:
        side = _process[kind] = (BancoSide if kind == "banco" else PeerSide)(_process["url"])
    return side


def run_process(kind: str, start_at: float, stop_at: float) -> int:
    """Commands from `start_at` until `stop_at` (monotonic, shared by processes): how many
    completed in that span."""
    side = _side(kind)
    time.sleep(max(0.0, start_at - time.monotonic()))
    done = turn = 0
    while True:
        side.command(turn)
        turn += 1
        if time.monotonic() > stop_at:
            return done
        done += 1


def _warm(start_at: float) -> int:
    """Open this process's connections and tables on both sides; hold it until `start_at`."""
    _side("banco")
    _side("peer")
    time.sleep(max(0.0, start_at - time.monotonic()))
    return os.getpid()


@dataclass
class Result:
    processes: int
    banco: list[float] = field(default_factory=list)  # commands/s, one per round
    peer: list[float] = field(default_factory=list)

    @property
    def ratios(self) -> list[float]:
        return [b / p for b, p in zip(self.banco, self.peer, strict=True) if p > 0]

    @property
    def ratio(self) -> float:
        return report.median(self.ratios)


def prepare(url: str) -> None:
    """The library's tables, made once before the processes start."""
    PeerTables(env={**peer_env(url), "CREATE_TABLE": "y"}).close()


def run(url: str, processes: Sequence[int] = (1, 4), seconds: float = 2.0, rounds: int = 5,
        progress: Callable[[str], None] | None = None) -> list[Result]:
    prepare(url)
    most = max(processes)
    context = get_context("forkserver")
    context.set_forkserver_preload(["bench.peer"])
    results = [Result(n) for n in processes]
    with ProcessPoolExecutor(most, mp_context=context, initializer=_setup,
                             initargs=(url,)) as pool:
        warmed: set[int] = set()
        while len(warmed) < most:
            warmed |= set(pool.map(_warm, [time.monotonic() + 0.3] * most))
        for r in range(rounds):
            for i, res in enumerate(results):
                order = ["banco", "peer"] if (r + i) % 2 == 0 else ["peer", "banco"]
                for kind in order:
                    start_at = time.monotonic() + 0.05
                    futures = [pool.submit(run_process, kind, start_at, start_at + seconds)
                               for _ in range(res.processes)]
                    getattr(res, kind).append(sum(f.result() for f in futures) / seconds)
                if progress:
                    progress(f"round {r + 1}/{rounds} x{res.processes}: banco"
                             f" {res.banco[-1]:,.0f}, eventsourcing {res.peer[-1]:,.0f} commands/s")
    return results


def markdown(results: Sequence[Result]) -> str:
    rows = []
    for res in results:
        ratios = res.ratios
        rows.append([str(res.processes), report.rate(report.median(res.banco)),
                     report.rate(report.median(res.peer)),
                     f"{res.ratio:.2f}x ({min(ratios, default=0):.2f}x-{max(ratios, default=0):.2f}x)"])
    return report.table(["processes", "Banco commands/s", "eventsourcing commands/s",
                         "Banco/eventsourcing (rounds' range)"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench peer", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few seconds: one short round")
    parser.add_argument("--seconds", type=float, help="length of one trial (default 2, quick 0.5)")
    parser.add_argument("--rounds", type=int, help="rounds (default 5, quick 1)")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 4],
                        help="concurrent processes, each on tables of its own (default 1 4)")
    parser.add_argument("--url", help="server to create the benchmark database on"
                        " (default: $DATABASE_URL, else the local test server)")
    args = parser.parse_args(argv)
    seconds = args.seconds or (0.5 if args.quick else 2.0)
    rounds = args.rounds or (1 if args.quick else 5)
    with db.fresh_database(args.url) as url:
        results = run(url, args.processes, seconds, rounds,
                      progress=lambda line: print(line, file=sys.stderr, flush=True))
        print(f"# Banco's store vs the eventsourcing library's PostgreSQL recorder,"
              f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n{db.describe(url)},"
              f" {os.cpu_count()} cores, processes with {TABLES_PER_PROCESS} tables each, the"
              f" library snapshotting every {SNAPSHOT_EVERY} events, {rounds} round(s) of"
              f" {seconds:g} s per trial; rates are medians over rounds, the ratio the median of"
              " each round's\n")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
