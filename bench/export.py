"""Balance-history CSV export against `COPY ... TO STDOUT WITH CSV` of the same rows, in one run.

The history of one wallet is seeded straight into `balance_history` (the projection the export
reads) with `generate_series`. Each measurement runs in a fresh child process that streams the
export to /dev/null and reports its rows/s and its peak resident memory (VmHWM), so the memory
figure is the export's alone and a leak would show as growth with the row count.

- export: `service.application.export.export(conn, filters, "csv")`, the code behind
  `GET /v1/players/{id}/balance-history` with `Accept: text/csv` and `banco export`.
- ceiling: `COPY (SELECT the same columns ... ORDER BY position) TO STDOUT WITH CSV`, read by
  psycopg in the same kind of child: PostgreSQL formatting the CSV itself.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import psycopg

from bench import db, report

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATE = 100_000  # rows/s
TARGET_RSS_MB = 150
ACCOUNT = "wallet:bench"
SEED = """
INSERT INTO balance_history (position, account, recorded_at, amount, balance_after, reason,
                             counterparty, table_id, hand_id)
SELECT g, %s, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second',
       CASE WHEN g %% 3 = 0 THEN -2 ELSE 3 END, g + g / 3, CASE WHEN g %% 3 = 0 THEN 'bet' ELSE 'won' END,
       'seat:tb_0123456789abcdef:pl_0123456789abcdef', 'tb_0123456789abcdef', 'hd_' || lpad(g::text, 16, '0')
FROM generate_series(%s::bigint, %s::bigint) AS g
"""
CEILING = ("COPY (SELECT position, recorded_at, account, amount, balance_after, reason, counterparty,"
           " table_id, hand_id FROM balance_history WHERE account = '{account}' ORDER BY position)"
           " TO STDOUT WITH CSV HEADER")


def peak_rss_mb() -> float:
    """This process's peak resident set size (VmHWM), in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def child(url: str, mode: str, account: str) -> dict[str, float]:
    """One measurement, in this (fresh) process: rows, seconds, peak RSS."""
    from events.postgres import configure_connection
    from projections import history
    from service.application.export import export

    rows = 0
    with psycopg.connect(url, autocommit=True) as conn, open(os.devnull, "wb") as sink:
        configure_connection(conn)
        start = time.perf_counter()
        if mode == "export":
            for chunk in export(conn, history.Filters(account), "csv"):
                sink.write(chunk)
                rows += chunk.count(b"\n")
        else:
            with conn.cursor().copy(CEILING.format(account=account)) as copy:
                for data in copy:
                    sink.write(data)
                    rows += bytes(data).count(b"\n")
        seconds = time.perf_counter() - start
    return {"rows": rows - 1, "seconds": seconds, "rss_mb": peak_rss_mb()}


def measure(url: str, mode: str) -> dict[str, float]:
    """One measurement in a fresh child process."""
    out = subprocess.run([sys.executable, "-m", "bench.export", "--child", mode, "--url", url],
                         capture_output=True, check=True, text=True, cwd=ROOT)
    return dict(orjson.loads(out.stdout))


@dataclass
class Result:
    rows: int
    export: list[dict[str, float]] = field(default_factory=list)
    ceiling: list[dict[str, float]] = field(default_factory=list)

    def rate(self, which: str) -> float:
        """Median rows/s of `export` or `ceiling`."""
        return report.median([m["rows"] / m["seconds"] for m in getattr(self, which)])

    def rss(self, which: str) -> float:
        """Highest peak RSS (MB) of `export` or `ceiling`."""
        return max(m["rss_mb"] for m in getattr(self, which))


def run(url: str, sizes: Sequence[int], rounds: int,
        progress: Callable[[str], None] = lambda _: None) -> list[Result]:
    """Seed up to the largest size, measuring export and ceiling (alternating) at each size."""
    results, seeded = [], 0
    with psycopg.connect(url, autocommit=True) as conn:
        for size in sorted(sizes):
            conn.execute(SEED, (ACCOUNT, seeded + 1, size))
            conn.execute("VACUUM ANALYZE balance_history")
            seeded = size
            result = Result(size)
            for r in range(rounds):
                order = ("export", "ceiling") if r % 2 == 0 else ("ceiling", "export")
                for mode in order:
                    got = measure(url, mode)
                    assert got["rows"] == size, (mode, got)
                    getattr(result, mode).append(got)
                progress(f"{size:,} rows, round {r + 1}: export {result.export[-1]['seconds']:.2f} s,"
                         f" ceiling {result.ceiling[-1]['seconds']:.2f} s")
            results.append(result)
    return results


def markdown(results: Sequence[Result]) -> str:
    """The results as a Markdown table."""
    rows = [[f"{r.rows:,}", report.rate(r.rate("export")), report.rate(r.rate("ceiling")),
             report.percent(r.rate("export") / r.rate("ceiling")), f"{r.rss('export'):.0f}",
             f"{r.rss('ceiling'):.0f}",
             "yes" if r.rate("export") >= TARGET_RATE and r.rss("export") < TARGET_RSS_MB else "no"]
            for r in results]
    return report.table(["rows", "export rows/s", "ceiling rows/s (COPY CSV)", "export/ceiling",
                         "export peak RSS, MB", "ceiling peak RSS, MB",
                         f"≥ {TARGET_RATE:,}/s and < {TARGET_RSS_MB} MB"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m bench export [--quick] [options]`."""
    parser = argparse.ArgumentParser(prog="python -m bench export", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few seconds: 10,000 and 50,000 rows")
    parser.add_argument("--sizes", type=int, nargs="+", help="row counts (default 100,000 1,000,000)")
    parser.add_argument("--rounds", type=int, help="rounds per size (default 3, quick 1)")
    parser.add_argument("--url", help="server to create the benchmark database on"
                        " (default: $DATABASE_URL, else the local test server)")
    parser.add_argument("--child", choices=["export", "ceiling"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(orjson.dumps(child(args.url, args.child, ACCOUNT)).decode())
        return 0
    sizes = args.sizes or ([10_000, 50_000] if args.quick else [100_000, 1_000_000])
    rounds = args.rounds or (1 if args.quick else 3)
    with db.fresh_database(args.url) as url:
        results = run(url, sizes, rounds, progress=lambda line: print(line, file=sys.stderr, flush=True))
        print(f"# Balance-history CSV export vs COPY TO STDOUT, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n{db.describe(url)},"
              f" {os.cpu_count()} cores, {rounds} round(s) per size, each in a fresh process;"
              f" medians over rounds, peak RSS the highest\n")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
