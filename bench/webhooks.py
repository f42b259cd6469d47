"""Webhook delivery to a receiver on loopback: deliveries per second, against a ceiling.

A log of `TreasurePosted` events is seeded (bench/rebuild.py's COPY), subscriptions are replayed
from its beginning, and every event is delivered to a receiver in a process of its own that
answers 200 at once. Three ways, each timed from the first delivery to the last:

- `job`: the delivery job (`workers.webhooks.deliver`) run in this process, one thread per
  subscription: what a worker does once its job has started;
- `worker`: real `banco worker` processes, woken by their sweepers as in production;
- `ceiling`: the same signed POSTs, one thread per subscription, with no database: what the
  HTTP client, the signature and the receiver cost alone.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import logging
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.sharedctypes import Synchronized
from typing import Any

import orjson
import psycopg
from standardwebhooks.webhooks import Webhook

from bench import db
from bench.rebuild import seed
from service.runtime.config import WorkerConfig

log = logging.getLogger("bench.webhooks")

# The receiver is on loopback, where webhooks go only when the operator allows it.
LOOPBACK = "127.0.0.1/32"
WEBHOOK_ENV = {"BANCO_WEBHOOK_BACKOFF_S": "0.05", "BANCO_WEBHOOK_LEASE_S": "2",
               "BANCO_WEBHOOK_ALLOW_NETWORKS": LOOPBACK}


def _serve(port: Synchronized, count: Synchronized) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with count.get_lock():
                count.value += 1
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port.value = server.server_address[1]
    server.serve_forever()


@dataclass
class Receiver:
    """A receiver in a process of its own (so that it takes no CPU time from the sender's
    interpreter), counting what it received."""

    process: multiprocessing.Process
    port: Synchronized
    count: Synchronized

    @classmethod
    def start(cls) -> Receiver:
        port, count = multiprocessing.Value("i", 0), multiprocessing.Value("q", 0)
        process = multiprocessing.Process(target=_serve, args=(port, count), daemon=True)
        process.start()
        while port.value == 0:
            time.sleep(0.01)
        return cls(process, port, count)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port.value}/hooks"

    def stop(self) -> None:
        self.process.terminate()
        self.process.join()


def subscribe(url: str, receiver: Receiver, subscriptions: int) -> list[str]:
    """`subscriptions` subscriptions to every posting, replayed from the log's beginning."""
    from service.application import webhook_subscriptions

    ids = []
    with psycopg.connect(url, autocommit=True) as conn:
        for _ in range(subscriptions):
            made, _secret = webhook_subscriptions.create(conn, receiver.url, ["TreasurePosted"], None,
                                                         (ipaddress.ip_network(LOOPBACK),))
            webhook_subscriptions.replay(conn, made["id"], 0)
            ids.append(made["id"])
    return ids


def job_settings(url: str) -> WorkerConfig:
    """A worker's settings on the database `url`, as `run_workers` gives its workers."""
    return WorkerConfig.from_env(WEBHOOK_ENV).with_servers(url, "redis://unused")


def delivered(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'"
                           ).fetchone()
    return int(row[0]) if row else 0


def run_jobs(url: str, ids: list[str], total: int) -> float:
    """Deliver with the job's function, one thread per subscription; the seconds it took."""
    from workers import context, webhooks

    def drain(subscription_id: str) -> None:
        sent = 0
        while sent < total // len(ids):
            # None sent: the watermark trails a transaction open elsewhere on the server.
            if not (done := webhooks.deliver(subscription_id)):
                time.sleep(0.01)
            sent += done

    with context.installed(job_settings(url)):  # where the job's pool connects
        began = time.monotonic()
        threads = [threading.Thread(target=drain, args=(s,)) for s in ids]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.monotonic() - began
    assert delivered(url) == total, "every event was delivered"
    return took


def run_workers(url: str, redis_url: str, workers: int, total: int) -> float:
    """Deliver with real `banco worker` processes; the seconds all deliveries take at the rate
    measured from the first to the last."""
    env = {**os.environ, **WEBHOOK_ENV, "DATABASE_URL": url, "REDIS_URL": redis_url,
           "BANCO_QUEUE": f"bench-webhooks-{os.getpid()}", "BANCO_SWEEP_EVERY_S": "0.2"}
    procs = [subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True) for _ in range(workers)]
    try:
        while (first := delivered(url)) == 0:  # timed from the first: a worker takes ~1 s to start
            time.sleep(0.01)
        began = time.monotonic()
        while delivered(url) < total:
            time.sleep(0.05)
        # The deliveries after the first one, over the time they took.
        return (time.monotonic() - began) * total / (total - first)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                log.warning("worker %s did not stop within 15 s of SIGTERM: killed", p.pid)
            # Its group: the worker and the scheduler process RQ started.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def run_ceiling(receiver: Receiver, subscriptions: int, events: int) -> float:
    """The same number of signed POSTs with no database; the seconds it took."""
    from workers.webhooks import headers_for, post

    signer = Webhook("whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    body = orjson.dumps({"type": "TreasurePosted", "timestamp": "2026-11-25T00:00:00+00:00",
                         "data": {"position": 1, "data": {"amount": 1}}})

    def send(n: int) -> None:
        for i in range(events):
            post(receiver.url, body, headers_for(signer, f"wh_{n}_{i}", body))

    began = time.monotonic()
    threads = [threading.Thread(target=send, args=(n,)) for n in range(subscriptions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - began


@dataclass
class Row:
    way: str
    subscriptions: int
    deliveries: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.deliveries / self.seconds


def run(base_url: str, redis_url: str, events: int, subscriptions: Sequence[int],
        workers: Sequence[int], progress: Callable[[str], None] = lambda s: None) -> list[Row]:
    """Every way, for each count of subscriptions (and of workers, for `worker`)."""
    rows = []
    receiver = Receiver.start()
    from workers import context

    try:
        for k in subscriptions:
            total = events * k
            with context.installed(job_settings(base_url)):  # the ceiling sends as a worker does
                rows.append(Row("ceiling", k, total, run_ceiling(receiver, k, events)))
            progress(f"ceiling, {k} subscription(s): {rows[-1].rate:,.0f}/s")
            with db.fresh_database(base_url, prefix="banco_bench_hooks") as url:
                with psycopg.connect(url) as conn:
                    seed(conn, events, wallets=max(2, events // 10))
                ids = subscribe(url, receiver, k)
                rows.append(Row("job", k, total, run_jobs(url, ids, total)))
                progress(f"job, {k} subscription(s): {rows[-1].rate:,.0f}/s")
            for w in workers:
                with db.fresh_database(base_url, prefix="banco_bench_hooks") as url:
                    with psycopg.connect(url) as conn:
                        seed(conn, events, wallets=max(2, events // 10))
                    subscribe(url, receiver, k)
                    rows.append(Row(f"worker x{w}", k, total, run_workers(url, redis_url, w, total)))
                    progress(f"{w} worker(s), {k} subscription(s): {rows[-1].rate:,.0f}/s")
    finally:
        receiver.stop()
    return rows


def markdown(rows: list[Row]) -> str:
    lines = ["| way | subscriptions | deliveries | seconds | deliveries/s |",
             "| --- | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r.way} | {r.subscriptions} | {r.deliveries:,} | {r.seconds:.2f} | {r.rate:,.0f} |"
              for r in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench webhooks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=2000, help="events in the log")
    parser.add_argument("--subscriptions", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--quick", action="store_true", help="200 events, 1 subscription, 1 worker")
    args = parser.parse_args(argv)
    if args.quick:
        args.events, args.subscriptions, args.workers = 200, [1], [1]
    redis_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    print(f"# Webhook delivery to a receiver on loopback, {args.events:,} events,"
          f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} ({db.describe(db.base_url())})")
    rows = run(db.base_url(), redis_url, args.events, args.subscriptions, args.workers,
               progress=lambda s: print(s, file=sys.stderr))
    print(markdown(rows))
    return 0
