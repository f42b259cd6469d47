"""A log that can grow: appends, a hand's replay and a checkpoint on a small log and on a large one.

Two databases of the run's own: `small` holds one Sette e mezzo table's played hands and little
else; `large` holds the same, played after `--events` events (10 million by default) seeded by
COPY into the partitioned log. Seeded streams are 50 events each, a `HandBegan` then
`TreasurePosted` postings, with the versions and hash chain the store would have written; the
seed runs in chunks of `CHUNK` events, one transaction each, with the partitions attached ahead
between chunks as the sweeper would (`events.partitions.ensure`).

Each round, step by step on both databases in turn (one append on one, then on the other, the
order alternating), so that the machine's noise at any moment falls on both alike:

- **append**: `--appends` one-event appends through `PostgresEventStore.append`, each to one of
  8 streams of the round's own at the version expected, on one connection, in autocommit; the
  rate is the appends over the time spent in them;
- **replay**: every played hand replayed as `GET /v1/hands/{id}/replay` does it, from the log
  alone: the hand's table found by its `HandBegan`, the table's stream read and cut into hands,
  and each step redacted and evolved for an auditor (`service.application.replay.steps`);
- **checkpoint**: `service.verification.checkpoints.record`, which folds into the latest
  checkpoint's frontier the events since: the round's appends.

The first checkpoint of each database, folded from the log's start, is timed as well: what every
checkpoint cost before they were incremental. So is migration 012 over a log of as many events
seeded in the schema before it: what partitioning an existing install costs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field

import orjson
import psycopg

from bench import db, report
from bench.http_clients import GAMES, tables_for
from bench.http_history import build_history
from bench.http_service import prepare, redis_url, service
from bench.rebuild import postings
from events import partitions
from events.catalog import default_types
from events.model import NewEvent, canonical_json, chain_hash
from events.postgres import PostgresEventStore, configure_connection, make_pool
from games.contract import AUDITOR
from projections import migrate
from service.application.principal import Principal
from service.application.replay import steps
from service.verification import checkpoints
from service.verification.hand_log import load_hand

TARGET = 0.10  # on the large log, within 10% of the small log's append rate
CHUNK = 200_000  # seeded events per transaction
STREAM_LENGTH = 50
LOGS = ("small", "large")


def seed(conn: psycopg.Connection, events: int, progress: Callable[[str], None] | None = None,
         partitioned: bool = True) -> int:
    """COPY `events` events into the log in streams of 50 (a `HandBegan`, then postings);
    returns the count. `partitioned=False` for a log from before migration 012."""
    began, done = time.monotonic(), 0
    source = iter(postings(events, wallets=1000))
    while done < events:
        if partitioned:
            partitions.ensure(conn, ahead=CHUNK + partitions.PARTITION_SIZE)
        size = min(CHUNK, events - done)
        heads: dict[str, tuple[int, bytes]] = {}
        with conn.transaction(), conn.cursor() as cur:
            with cur.copy("COPY events (stream_id, version, type, schema_version, data, metadata,"
                          " hash) FROM STDIN") as copy:
                for i in range(done, done + size):
                    stream = f"bench-log:{i // STREAM_LENGTH}"
                    version, head = heads.get(stream, (0, b""))
                    if i % STREAM_LENGTH == 0:
                        event = NewEvent("HandBegan", {"hand_id": f"hd_seed{i // STREAM_LENGTH}",
                                                       "number": 1, "seats": [],
                                                       "commitment": "0" * 64})
                    else:
                        event = next(source).event({})
                    head = chain_hash(head, canonical_json(stream, event))
                    heads[stream] = (version + 1, head)
                    copy.write_row((stream, version + 1, event.type, event.schema_version,
                                    orjson.dumps(event.data).decode(), "{}", head))
            with cur.copy("COPY streams (stream_id, version, head) FROM STDIN") as copy:
                for stream, (version, head) in heads.items():
                    copy.write_row((stream, version, head))
        done += size
        if progress:
            elapsed = time.monotonic() - began
            progress(f"seeded {done:,}/{events:,} events, {elapsed:.0f} s"
                     f" ({done / max(elapsed, 1e-9):,.0f}/s)")
    if partitioned:
        partitions.ensure(conn)
    return done


def time_migration(url: str, events: int, progress: Callable[[str], None] | None = None) -> float:
    """Seconds migration 012 takes to partition an existing log of `events` events."""
    version = next(v for v, name, _ in migrate.available() if name.endswith("_partitioned_events.sql"))
    with db.fresh_database(url, prefix="banco_bench_migrate", upto=version - 1) as target, \
            psycopg.connect(target, autocommit=True) as conn:
        seed(conn, events, progress, partitioned=False)
        conn.execute("VACUUM ANALYZE events")
        began = time.monotonic()
        migrate.upgrade(conn)
        return time.monotonic() - began


@dataclass
class Log:
    """One database's figures, a value per round."""

    url: str
    events: int = 0  # in the log before the rounds
    partitions: int = 0
    hands: list[str] = field(default_factory=list)
    first_checkpoint: float = 0.0  # seconds, folded from the log's start
    appends: list[float] = field(default_factory=list)  # appends/s
    replays: list[float] = field(default_factory=list)  # seconds per hand, the round's median
    checkpoints: list[float] = field(default_factory=list)  # seconds
    folded: list[int] = field(default_factory=list)  # events a checkpoint folded in


@dataclass
class Result:
    seeded: int
    seed_seconds: float
    logs: dict[str, Log]
    migration_seconds: float | None = None  # to partition a log of `seeded` events

    def ratio(self, figure: str) -> float:
        """The median over rounds of large / small for `figure` (appends, replays, checkpoints)."""
        small, large = getattr(self.logs["small"], figure), getattr(self.logs["large"], figure)
        return report.median([b / a for a, b in zip(small, large, strict=True) if a > 0])

    @property
    def met(self) -> bool | None:
        """Whether appends on the large log kept within TARGET; None below a million events."""
        if self.seeded < 1_000_000:
            return None
        return self.ratio("appends") >= 1 - TARGET


def prepare_log(url: str, hands: int, seed_events: int,
                progress: Callable[[str], None] | None = None) -> tuple[Log, float]:
    """Seed `url`'s log, then play `hands` hands at a table opened over the service; the log
    and the seconds the seed took."""
    seconds = 0.0
    if seed_events:
        with psycopg.connect(url, autocommit=True) as conn:
            began = time.monotonic()
            seed(conn, seed_events, progress)
            seconds = time.monotonic() - began
    prepare(url)
    with service(url, redis_url(), workers=1) as svc:
        [spec] = tables_for(svc, GAMES["sette-e-mezzo"], 1)
    build_history(url, spec.table_id, hands)
    log = Log(url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        log.hands = [r[0] for r in conn.execute(
            "SELECT hand_id FROM hands WHERE table_id = %s AND status = 'settled' ORDER BY number",
            (spec.table_id,))]
        row = conn.execute("SELECT count(*) FROM events").fetchone()
        log.events = int(row[0]) if row else 0
        log.partitions = len(partitions.bounds(conn))
        configure_connection(conn)
        wait_below_xmin(conn)
        began = time.monotonic()
        checkpoints.record(conn)
        log.first_checkpoint = time.monotonic() - began
    return log, seconds


def replay(conn: psycopg.Connection, hand_id: str) -> int:
    """A hand's replay for an auditor, from the log alone; the number of steps."""
    hand = load_hand(conn, hand_id)
    assert hand is not None, hand_id
    return len(steps(conn, hand, Principal("auditor", "bench"), AUDITOR))


@dataclass
class _Side:
    """One log's store and connection during the rounds."""

    log: Log
    store: PostgresEventStore
    conn: psycopg.Connection


def _turns(count: int) -> list[tuple[int, tuple[str, ...]]]:
    # Each step runs on both logs back to back, the order alternating, so that whatever the
    # machine does at that moment falls on both alike.
    return [(i, LOGS if i % 2 == 0 else LOGS[::-1]) for i in range(count)]


def wait_below_xmin(conn: psycopg.Connection, timeout: float = 120.0) -> None:
    """Wait until every event is below the snapshot's xmin, where a checkpoint folds it: a
    transaction open anywhere on the server (ids are server-wide) holds the watermark back."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = conn.execute("SELECT coalesce(max(txid) < pg_snapshot_xmin(pg_current_snapshot()),"
                           " true) FROM events").fetchone()
        if row is not None and row[0]:
            return
        time.sleep(0.05)


def trial(sides: dict[str, _Side], appends: int, round_: int) -> None:
    """One round: appends, then every hand's replay, each step on both logs in turn; then a
    checkpoint of each, folding in the round's appends."""
    tag = f"r{round_}"
    spent = {name: 0.0 for name in sides}
    for i, order in _turns(appends):
        for name in order:
            side = sides[name]
            event = NewEvent("PlayerRegistered", {"player_id": f"p-{tag}-{i}",
                                                  "name_enc": f"sealed-{i}"})
            began = time.perf_counter()
            side.store.append(f"bench-append-{tag}-{i % 8}", [event], i // 8, conn=side.conn)
            spent[name] += time.perf_counter() - began
    replays: dict[str, list[float]] = {name: [] for name in sides}
    for k, order in _turns(min(len(side.log.hands) for side in sides.values())):
        for name in order:
            began = time.perf_counter()
            replay(sides[name].conn, sides[name].log.hands[k])
            replays[name].append(time.perf_counter() - began)
    for name in (LOGS if round_ % 2 == 0 else LOGS[::-1]):
        side = sides[name]
        wait_below_xmin(side.conn)
        before = checkpoints.listed(side.conn, 1)[0]["events"]
        began = time.perf_counter()
        found = checkpoints.record(side.conn)
        side.log.checkpoints.append(time.perf_counter() - began)
        side.log.folded.append(found["events"] - before)
    for name, side in sides.items():
        side.log.appends.append(appends / spent[name])
        side.log.replays.append(report.median(replays[name]))


def run(url: str, events: int, hands: int = 20, rounds: int = 5, appends: int = 2000,
        progress: Callable[[str], None] | None = None, migration: bool = True) -> Result:
    migrated = time_migration(url, events, progress) if migration else None
    if progress and migrated is not None:
        progress(f"migration 012 of {events:,} events: {migrated:.1f} s")
    with ExitStack() as stack:
        urls = {name: stack.enter_context(db.fresh_database(url, prefix=f"banco_bench_{name}"))
                for name in LOGS}
        small, _ = prepare_log(urls["small"], hands, 0, progress)
        large, seed_seconds = prepare_log(urls["large"], hands, events, progress)
        logs = {"small": small, "large": large}
        if progress:
            progress(f"first checkpoints: small {small.first_checkpoint:.2f} s,"
                     f" large {large.first_checkpoint:.1f} s")
        pools = {name: stack.enter_context(make_pool(urls[name], min_size=1, max_size=1))
                 for name in LOGS}
        sides = {name: _Side(logs[name], PostgresEventStore(pools[name], default_types()),
                             stack.enter_context(pools[name].connection())) for name in LOGS}
        for r in range(rounds):
            trial(sides, appends, r)
            if progress:
                progress(f"round {r + 1}/{rounds}: appends large/small"
                         f" {large.appends[-1] / small.appends[-1]:.2f}")
        return Result(events, seed_seconds, logs, migrated)


def markdown(result: Result) -> str:
    rows = []
    for name, log in result.logs.items():
        rows.append([name, f"{log.events:,}", str(log.partitions),
                     report.rate(report.median(log.appends)),
                     report.ms(report.median(log.replays)),
                     f"{report.median(log.folded):,.0f}",
                     report.ms(report.median(log.checkpoints)),
                     f"{log.first_checkpoint:,.2f}"])
    table = report.table(["log", "events", "partitions", "appends/s", "replay ms (a hand)",
                          "events folded", "checkpoint ms", "first checkpoint s"], rows)
    verdict = {None: "log too small to judge", True: "yes", False: "no"}[result.met]
    return (f"{table}\n\nlarge/small, median of the rounds' ratios: appends"
            f" **{result.ratio('appends'):.2f}** (within {TARGET:.0%}: {verdict}), a hand's replay"
            f" {result.ratio('replays'):.2f}, a checkpoint {result.ratio('checkpoints'):.2f}."
            f" {result.seeded:,} events seeded by COPY in {result.seed_seconds:,.0f} s."
            + ("" if result.migration_seconds is None else
               f" Migration 012 partitioned a log of as many events (from the schema before it)"
               f" in {result.migration_seconds:,.1f} s."))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench large", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100,000 events, 2 rounds")
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--appends", type=int, default=2000, help="appends per round and log")
    parser.add_argument("--no-migration", action="store_true",
                        help="skip timing migration 012 over a log of --events events")
    parser.add_argument("--url", default=None)
    options = parser.parse_args(argv)
    if options.quick:
        options.events, options.rounds, options.hands = 100_000, 2, 5

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    began = time.monotonic()
    result = run(options.url or db.base_url(), options.events, options.hands, options.rounds,
                 options.appends, progress, migration=not options.no_migration)
    print(f"## A log that can grow ({time.monotonic() - began:,.0f} s)\n")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
