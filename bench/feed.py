"""Reading the log's feed against a plain ordered SELECT of the same rows, in one run.

The log is seeded with postings (`bench.rebuild.seed`, through COPY) and as many engine events
of one table, each with a card only its seat may see (a spectator gets the public part).

- feed: `service.application.feed.read` as the operator (a spectator: every engine event redacted),
  page after page of 500 from the beginning, each page's items encoded with orjson as the
  endpoint's body would be: the code behind `GET /v1/feed` but for Flask's own part.
- ceiling: `SELECT` the same columns `ORDER BY position`, by keyset pages of 500, rows left as
  psycopg returns them: no watermark, no upcasting, no redaction, no JSON.

Each half of the log is written by one transaction, as a bulk write would be: a reader's cursor
then spends half the run inside the log's last transaction, where a page that sorted what is
left of it (rather than following the index) would take longer the earlier it starts. Every
feed page is timed, and the report gives the fastest and the slowest tenth of the log's pages.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import orjson
import psycopg

from bench import db, rebuild, report

PAGE = 500
GAME_EVENTS = """
INSERT INTO events (stream_id, version, type, data, hash)
SELECT 'table-tb_bench', g, 'game.CardDealt',
       jsonb_build_object('hand', 'hd_bench', 'visible_to', jsonb_build_array(g %% 4),
                          'data', jsonb_build_object('seat', g %% 4, 'card', 'Qd', 'face_up', false),
                          'public', jsonb_build_object('seat', g %% 4, 'face_up', false)),
       '\\x'::bytea
FROM generate_series(1, %s) AS g
"""
CEILING = ("SELECT position, stream_id, version, type, schema_version, data, metadata, recorded_at,"
           " hash, txid::text::bigint FROM events WHERE position > %s ORDER BY position LIMIT %s")


def read_feed(url: str, pages: list[float] | None = None) -> int:
    """Page through the whole feed as the operator; the events read. Each page's time (the
    store's read and the redaction, in seconds) is added to `pages`."""
    from events.catalog import default_types
    from events.model import Checkpoint
    from events.postgres import PostgresEventStore, configure_connection, make_pool
    from service.application import feed
    from service.application.principal import Principal

    operator = Principal("operator", "operator")
    count = 0
    with make_pool(url, max_size=1) as pool, pool.connection() as conn:
        configure_connection(conn)
        store = PostgresEventStore(pool, default_types())
        after = Checkpoint()
        while True:
            start = time.perf_counter()
            page = feed.read(conn, store, operator, after, PAGE)
            if pages is not None:
                pages.append(time.perf_counter() - start)
            if not page.items:
                return count
            orjson.dumps({"items": page.items, "next_after": page.next_after})
            count += len(page.items)
            after = page.last


def read_ceiling(url: str) -> int:
    """Page through the same rows by position with a plain SELECT; the rows read."""
    count = last = 0
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            rows = conn.execute(CEILING, (last, PAGE)).fetchall()
            if not rows:
                return count
            count += len(rows)
            last = rows[-1][0]


@dataclass
class Result:
    events: int
    feed: list[float] = field(default_factory=list)  # events/s, one per round
    ceiling: list[float] = field(default_factory=list)
    pages: list[list[float]] = field(default_factory=list)  # each round's feed pages, seconds

    @property
    def ratio(self) -> float:
        return report.median([f / c for f, c in zip(self.feed, self.ceiling, strict=True)])

    def tenths(self) -> tuple[float, float]:
        """The log cut into ten runs of pages in reading order: the lowest and the highest of the
        runs' median page times (ms), each the median over the rounds. Flat page times give two
        close figures; pages that sort what is left of a large transaction show as a run of slow
        pages where the reader enters it."""
        def runs(pages: list[float]) -> list[float]:
            pages = pages[:-1] or pages  # the last, empty page says the log is read
            n = max(1, len(pages) // 10)
            return [report.median(pages[i:i + n]) * 1000 for i in range(0, n * 10, n)
                    if pages[i:i + n]]
        medians = [runs(p) for p in self.pages]
        tenths = [report.median([m[i] for m in medians if i < len(m)])
                  for i in range(max(len(m) for m in medians))]
        return min(tenths), max(tenths)

    def slow_pages(self) -> tuple[float, float]:
        """The run's 99th-percentile feed page and its slowest, ms."""
        pages = sorted(t for p in self.pages for t in p)
        return pages[min(len(pages) - 1, len(pages) * 99 // 100)] * 1000, pages[-1] * 1000


def run(url: str, events: int, rounds: int,
        progress: Callable[[str], None] = lambda _: None) -> Result:
    """Seed `events` (half postings, half engine events) and time both reads, alternating."""
    with psycopg.connect(url, autocommit=True) as conn:
        rebuild.seed(conn, events // 2, wallets=100)
        conn.execute(GAME_EVENTS, (events - events // 2,))
        conn.execute("VACUUM ANALYZE events")
        # The feed serves only what is below the watermark, which a transaction open anywhere on
        # the server holds back: wait until the whole seeded log is below it (it then stays).
        deadline = time.monotonic() + 120
        while conn.execute("SELECT count(*) FROM events"
                           " WHERE txid < pg_snapshot_xmin(pg_current_snapshot())"
                           ).fetchone() != (events,):
            assert time.monotonic() < deadline, "the watermark stayed behind the seeded log"
            time.sleep(0.05)
    result = Result(events)
    for r in range(rounds):
        pages: list[float] = []
        order = ("feed", "ceiling")
        for name in order if r % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            got = read_feed(url, pages) if name == "feed" else read_ceiling(url)
            seconds = time.perf_counter() - start
            assert got == events, (name, got, events)
            getattr(result, name).append(got / seconds)
        result.pages.append(pages)
        progress(f"round {r + 1}: feed {result.feed[-1]:,.0f}/s, ceiling {result.ceiling[-1]:,.0f}/s")
    return result


def markdown(results: Sequence[Result]) -> str:
    """The results as a Markdown table, a row per log size."""
    rows = []
    for result in results:
        fastest, slowest = result.tenths()
        rows.append([f"{result.events:,}", report.rate(report.median(result.feed)),
                     report.rate(report.median(result.ceiling)), report.percent(result.ratio),
                     f"{fastest:.1f}-{slowest:.1f}", "{:.1f} / {:.1f}".format(*result.slow_pages())])
    return report.table(
        ["events", "feed events/s", "ceiling events/s (ordered SELECT)", "feed/ceiling",
         "page ms, tenths' medians", "page ms, p99 / slowest"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m bench feed [--quick] [options]`."""
    parser = argparse.ArgumentParser(prog="python -m bench feed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few seconds: 10,000 events")
    parser.add_argument("--events", help="events in the log, or several sizes separated by"
                        " commas, each a log of its own (default 100,000)")
    parser.add_argument("--rounds", type=int, help="rounds (default 5, quick 1)")
    parser.add_argument("--url", help="server to create the benchmark database on"
                        " (default: $DATABASE_URL, else the local test server)")
    args = parser.parse_args(argv)
    sizes = ([int(n.replace("_", "")) for n in args.events.split(",")] if args.events
             else [10_000 if args.quick else 100_000])
    rounds = args.rounds or (1 if args.quick else 5)
    results = []
    for events in sizes:
        with db.fresh_database(args.url) as url:
            results.append(run(url, events, rounds,
                               progress=lambda line: print(line, file=sys.stderr, flush=True)))
    print(f"# Feed reading vs an ordered SELECT, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n{db.describe(url)},"
          f" {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f},"
          f" {rounds} round(s), medians\n")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
