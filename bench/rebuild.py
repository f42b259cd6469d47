"""The projection rebuild over a seeded log, against the same aggregate done in SQL, in one run.

The log holds `TreasurePosted` events only: a deposit from `house:issued` to every wallet, then
transfers between wallets, each wallet paying at most its deposit in all, so that no balance
goes negative whatever order they are replayed in. Events are grouped into streams of
`STREAM_LENGTH`, with the versions and the hash chain the store would have written (the chain
is computed here with the store's own `canonical_json` and `chain_hash`), and loaded with COPY.

Each round times `projections.rebuild.rebuild_all` (truncate balances, balance history and
players; replay every posting; move the checkpoints) and the ceiling, one GROUP BY over the
same events, alternately first and second.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import orjson
import psycopg

from bench import db, report
from events.ledger import HOUSE, Transfer, wallet
from events.model import canonical_json, chain_hash
from events.postgres import configure_connection
from projections.rebuild import rebuild_all

TARGET = 50_000  # events/s, over a log of at least TARGET_EVENTS
TARGET_EVENTS = 200_000
STREAM_LENGTH = 50
MAX_AMOUNT = 7
REPLAYED_BY = {None: "one worker per partition", 0: "the rebuild's own backend"}
CEILING_SQL = "SELECT data->>'to', sum((data->>'amount')::bigint) FROM events GROUP BY 1"


def postings(events: int, wallets: int) -> Iterator[Transfer]:
    """`events` postings: one deposit per wallet, then transfers that never overdraw."""
    wallets = max(2, min(wallets, events // 2))
    transfers = events - wallets
    pays = -(-transfers // wallets)  # the most transfers any one wallet pays
    deposit = pays * MAX_AMOUNT + 1
    for n in range(wallets):
        yield Transfer(HOUSE, wallet(f"w{n}"), deposit, "deposit")
    for i in range(transfers):
        payer = i % wallets
        payee = (payer + 1 + (i // wallets) % (wallets - 1)) % wallets
        yield Transfer(wallet(f"w{payer}"), wallet(f"w{payee}"), 1 + i % MAX_AMOUNT, "transfer",
                       table=f"t{i % 97}", hand=f"h{i}")


def seed(conn: psycopg.Connection, events: int, wallets: int = 1000) -> int:
    """COPY `events` postings into the log (and their stream heads); returns the count."""
    heads: dict[str, tuple[int, bytes]] = {}
    count = 0
    with conn.transaction(), conn.cursor() as cur:
        with cur.copy("COPY events (stream_id, version, type, schema_version, data, metadata, hash)"
                      " FROM STDIN") as copy:
            for i, transfer in enumerate(postings(events, wallets)):
                stream = f"bench-table:{i // STREAM_LENGTH}"
                version, head = heads.get(stream, (0, b""))
                event = transfer.event({})
                text = canonical_json(stream, event)
                head = chain_hash(head, text)
                heads[stream] = (version + 1, head)
                copy.write_row((stream, version + 1, event.type, event.schema_version,
                                orjson.dumps(event.data).decode(), "{}", head))
                count += 1
        with cur.copy("COPY streams (stream_id, version, head) FROM STDIN") as copy:
            for stream, (version, head) in heads.items():
                copy.write_row((stream, version, head))
    return count


@dataclass
class Result:
    events: int
    rebuild: list[float] = field(default_factory=list)  # events/s, one per round
    ceiling: list[float] = field(default_factory=list)
    # The same rebuild with the history replayed in its own backend (workers=0), when compared.
    one_backend: list[float] = field(default_factory=list)
    seed_rate: float = 0.0
    checks: dict[str, int] = field(default_factory=dict)

    @property
    def ratios(self) -> list[float]:
        return [r / c for r, c in zip(self.rebuild, self.ceiling, strict=True) if c > 0]

    @property
    def one_backend_ratios(self) -> list[float]:
        return [r / c for r, c in zip(self.one_backend, self.ceiling, strict=True) if c > 0]

    @property
    def met(self) -> bool | None:
        """Whether the target is met; None when the log is too small to judge it."""
        if self.events < TARGET_EVENTS:
            return None
        return report.median(self.rebuild) >= TARGET


def time_rebuild(conn: psycopg.Connection, workers: int | None = None) -> tuple[int, float]:
    start = time.perf_counter()
    covered = rebuild_all(conn, workers=workers)
    return covered, time.perf_counter() - start


def time_rebuild_of(conn: psycopg.Connection, count: int, workers: int | None) -> float:
    """The rebuild's events/s, checked to cover all `count` events."""
    n, elapsed = time_rebuild(conn, workers)
    assert n == count, f"rebuild covered {n} of {count} events"
    return count / elapsed


def time_ceiling(conn: psycopg.Connection) -> tuple[int, float]:
    start = time.perf_counter()
    rows = conn.execute(CEILING_SQL).fetchall()
    elapsed = time.perf_counter() - start
    return len(rows), elapsed


def check(conn: psycopg.Connection) -> dict[str, int]:
    """What the rebuild must have produced: two legs per posting, balances summing to zero."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM balance_history), (SELECT count(*) FROM balances),"
        " (SELECT coalesce(sum(balance), 0) FROM balances),"
        " (SELECT count(*) FROM balances WHERE balance < 0 AND account <> %s)",
        (HOUSE,),
    ).fetchone()
    assert row is not None
    return dict(zip(("legs", "accounts", "sum", "overdrawn"), map(int, row), strict=True))


def run(
    url: str,
    events: int = 200_000,
    rounds: int = 5,
    wallets: int = 1000,
    progress: Callable[[str], None] | None = None,
    workers: int | None = None,
) -> Result:
    with psycopg.connect(url, autocommit=True) as conn:
        configure_connection(conn)
        start = time.perf_counter()
        count = seed(conn, events, wallets)
        result = Result(count, seed_rate=count / (time.perf_counter() - start))
        # Set hint bits and statistics now, so that the first timed round does not pay for them.
        conn.execute("VACUUM (ANALYZE) events")
        time_ceiling(conn)
        # Each round times the rebuild, the ceiling and (when the rebuild has workers) the rebuild
        # in one backend, each of them first in turn.
        timed: list[tuple[list[float], Callable[[], float]]] = [
            (result.rebuild, lambda: time_rebuild_of(conn, count, workers)),
            (result.ceiling, lambda: count / time_ceiling(conn)[1]),
        ]
        if workers != 0:
            timed.append((result.one_backend, lambda: time_rebuild_of(conn, count, 0)))
        for r in range(rounds):
            for i in range(len(timed)):
                rates, measure = timed[(r + i) % len(timed)]
                rates.append(measure())
            if progress:
                progress(f"round {r + 1}/{rounds}: rebuild {result.rebuild[-1]:,.0f}"
                         + (f" (one backend {result.one_backend[-1]:,.0f})" if result.one_backend else "")
                         + f" ceiling {result.ceiling[-1]:,.0f} events/s")
        result.checks = check(conn)
    return result


def markdown(result: Result) -> str:
    rebuild = report.median(result.rebuild)
    ceiling = report.median(result.ceiling)
    header = ["events", "rebuild events/s", "ceiling events/s (GROUP BY in SQL)", "rebuild/ceiling"]
    row = [f"{result.events:,}", report.rate(rebuild), report.rate(ceiling),
           report.percent(report.median(result.ratios))]
    if result.one_backend:
        header += ["one backend: rebuild events/s", "one backend: rebuild/ceiling"]
        row += [report.rate(report.median(result.one_backend)),
                report.percent(report.median(result.one_backend_ratios))]
    header.append(f"≥ {TARGET:,} events/s")
    row.append({True: "yes", False: "no", None: f"not judged (< {TARGET_EVENTS:,} events)"}[result.met])
    return report.table(header, [row])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench rebuild", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few seconds: a small log")
    parser.add_argument("--events", type=int, help="events in the log (default 200,000, quick 20,000)")
    parser.add_argument("--rounds", type=int, help="rounds (default 5, quick 2)")
    parser.add_argument("--wallets", type=int, default=1000)
    parser.add_argument("--workers", type=int, help="connections replaying the balance history"
                        " (default: one per partition; 0: the rebuild's own backend alone)")
    parser.add_argument("--url", help="server to create the benchmark database on"
                        " (default: $DATABASE_URL, else the local test server)")
    args = parser.parse_args(argv)
    events = args.events or (20_000 if args.quick else 200_000)
    rounds = args.rounds or (2 if args.quick else 5)
    load_before = os.getloadavg()[0]
    with db.fresh_database(args.url) as url:
        result = run(url, events, rounds, args.wallets,
                     progress=lambda line: print(line, file=sys.stderr, flush=True),
                     workers=args.workers)
        print(f"# Projection rebuild vs GROUP BY, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
              f"\n\n{db.describe(url)}, {os.cpu_count()} cores, {result.events:,} TreasurePosted"
              f" events across {args.wallets} wallets (seeded by COPY at"
              f" {result.seed_rate:,.0f} events/s), {rounds} round(s), the history replayed by"
              f" {REPLAYED_BY.get(args.workers, f'{args.workers} workers at a time')};"
              # The machine may be shared: the ratio is read against the load it ran under.
              f" load average (1 min) {load_before:.1f} before, {os.getloadavg()[0]:.1f} after;"
              " medians over rounds\n")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
