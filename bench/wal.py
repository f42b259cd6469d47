"""`python -m bench wal`: the WAL a played hand writes, on a private PostgreSQL.

A private server, started for the run (the embedded one `banco run` uses), so that the WAL
counted is Banco's alone: the machine's server is shared with other work, whose writes
`pg_current_wal_lsn()` would count too. Four players sit at a Sette e mezzo table; `--hands`
hands are played through `service.application.handlers`, one transaction per hand, as the HTTP
benchmark builds its history (bench/http_history.py). Reported: WAL bytes per hand, per event
and per write request (a deal or a move: each of these is one request over HTTP), and the
full-page images among them. docs/scaling.md builds its WAL figures on this.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psycopg

from bench import db
from bench.http_history import build_history
from service.http.app import create_app
from service.runtime import embedded
from service.runtime.config import Config

KEY = "bench-wal-operator-key"


def _seat_four(url: str, redis_url: str) -> str:
    """A Sette e mezzo table with four funded players seated: its id."""
    app = create_app(Config(database_url=url, redis_url=redis_url, operator_key=KEY,
                            queue_name="bench-wal", rate_limit="1000000/minute"))
    try:
        client, operator = app.test_client(), {"Authorization": f"Bearer {KEY}"}
        opened: dict[str, Any] = client.post("/v1/tables", headers=operator, json={
            "game": "sette-e-mezzo", "options": {"min_bet": 1, "max_bet": 10}}).json or {}
        table_id = str(opened["id"])
        for i in range(4):
            made: dict[str, Any] = client.post("/v1/players", json={"name": f"W{i}"},
                                               headers=operator).json or {}
            client.post(f"/v1/players/{made['player']['id']}/deposits", headers=operator,
                        json={"amount": 1_000_000, "reason": "bench"})
            r = client.post(f"/v1/tables/{table_id}/seats",
                            headers={"Authorization": f"Bearer {made['token']}"},
                            json={"age": 20 + i, "seed": f"seed-{i}", "buy_in": 100_000})
            assert r.status_code == 201, r.json
        return table_id
    finally:
        app.extensions["banco.pool"].close()


def measure(hands: int, redis_url: str) -> dict[str, float]:
    """Play `hands` hands on a private server; the WAL they wrote and what they wrote it for."""
    with tempfile.TemporaryDirectory(prefix="banco-wal-") as tmp:
        admin, server = embedded.start_postgres(Path(tmp) / "postgres", keep=False)
        try:
            with db.fresh_database(admin, "banco_wal") as url:
                table_id = _seat_four(url, redis_url)
                with psycopg.connect(url, autocommit=True) as conn:
                    conn.execute("CHECKPOINT")  # full-page images start from a clean slate
                    lsn, fpi = conn.execute("SELECT pg_current_wal_lsn(), wal_fpi FROM pg_stat_wal"
                                            ).fetchone() or (None, 0)
                    first = conn.execute("SELECT coalesce(max(position), 0) FROM events").fetchone()
                build_history(url, table_id, hands)
                with psycopg.connect(url, autocommit=True) as conn:
                    wal, fpi_after = conn.execute(
                        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s), wal_fpi FROM pg_stat_wal",
                        (lsn,)).fetchone() or (0, 0)
                    events, deadlines, ends = conn.execute(
                        "SELECT count(*), count(*) FILTER (WHERE type = 'DeadlineSet'),"
                        " count(*) FILTER (WHERE type = 'HandSettled') FROM events WHERE position > %s",
                        (first[0] if first else 0,)).fetchone() or (0, 0, 0)
        finally:
            server.cleanup()
    # Every deal and every move but the one that ends a hand starts a turn (one DeadlineSet
    # each); the last move of each hand starts none.
    writes = deadlines + ends
    return {"hands": hands, "wal_bytes": float(wal), "events": events, "writes": writes,
            "full_page_images": fpi_after - fpi, "per_hand": float(wal) / hands,
            "per_event": float(wal) / events, "per_write": float(wal) / writes}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench wal", description=__doc__)
    parser.add_argument("--hands", type=int, default=None, help="hands to play (default 300)")
    parser.add_argument("--quick", action="store_true", help="30 hands")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0",
                        help="a Redis for the app that seats the players (nothing is queued)")
    args = parser.parse_args(argv)
    found = measure(args.hands or (30 if args.quick else 300), args.redis_url)
    print("# WAL per hand, on a private PostgreSQL\n")
    print("| hands | events | writes | WAL | per hand | per event | per write | full-page images |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(f"| {found['hands']:,} | {found['events']:,} | {found['writes']:,} "
          f"| {found['wal_bytes'] / 1e6:.1f} MB | {found['per_hand'] / 1e3:.1f} KB "
          f"| {found['per_event']:.0f} B | {found['per_write'] / 1e3:.1f} KB "
          f"| {found['full_page_images']} |")
    sys.stdout.flush()
    return 0
