"""The service a HTTP benchmark runs against: gunicorn as `banco serve` starts it and a settlement
worker, on a database of the run's own; and the CPU the processes use."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench import http_cpu
from bench.http_clients import Client
from service.cli.runner import THREADS, gunicorn_command
from service.http import bench_endpoint
from service.runtime.config import STREAMS
from workers.queues import connect, queue

ROOT = Path(__file__).resolve().parents[1]


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
    cpu_dir: Path | None = None  # with `cpu`: where gunicorn's workers report their CPU

    def gunicorn_workers(self) -> list[int]:
        """The gunicorn master's workers."""
        return _children(self.gunicorn.pid)

    def api_processes(self) -> list[int]:
        """gunicorn's workers and their streamers."""
        return _pids(self.gunicorn.pid)[1:]

    def processes_cpu(self) -> dict[str, float]:
        """CPU seconds so far of gunicorn, the settlement worker, PostgreSQL and Redis."""
        return {"gunicorn": process_cpu(self.gunicorn.pid), "worker": process_cpu(self.worker.pid),
                "postgres": http_cpu.named_cpu(["postgres"]),
                "redis": http_cpu.named_cpu(["redis-server"])}


@contextmanager
def service(url: str, redis_url: str, workers: int = 2, threads: int = THREADS,
            cpu: bool = False, streams: int = STREAMS, in_thread: bool = False
            ) -> Iterator[Service]:
    """gunicorn as `banco serve` starts it, and a settlement worker, both on database `url`;
    with `cpu`, gunicorn's workers count their requests' CPU (`bench.http_cpu`). Each worker
    holds up to `streams` open streams, passed on to its streamer unless `in_thread`
    (`bench.in_thread`)."""
    port = free_port()
    key = "bench-" + secrets.token_hex(16)
    queue_name = f"banco-bench-{os.getpid()}-{secrets.token_hex(3)}"
    env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url, "BANCO_OPERATOR_KEY": key,
           "BANCO_QUEUE": queue_name, "BANCO_BENCH_ENDPOINTS": "1", "BANCO_THREADS": str(threads),
           "BANCO_STREAMS": str(streams),
           # The benchmark drives each token far past any per-token rate limit a service uses.
           "BANCO_RATE_LIMIT": "100000000/minute"}
    with tempfile.TemporaryDirectory(prefix="banco-bench-http-") as tmp:
        log = Path(tmp, "service.log")
        cpu_dir = Path(tmp, "cpu") if cpu else None
        extra = []
        if cpu_dir is not None:
            cpu_dir.mkdir()
            env[http_cpu.DIR_ENV] = str(cpu_dir)
            extra = ["--config", "python:bench.http_cpu"]
        if in_thread:
            extra += ["--worker-class", "bench.in_thread.InThreadWorker"]
        with log.open("wb") as out:
            gunicorn = subprocess.Popen(
                [*gunicorn_command(f"127.0.0.1:{port}", workers, threads), "--log-level",
                 "warning", *extra],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=out)
            worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=ROOT,
                                      env=env, stdout=subprocess.DEVNULL, stderr=out)
        running = Service(port, key, gunicorn, worker, log, cpu_dir)
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
        client = None
        try:
            client = Client(svc.port)
            if client.call("GET", "/readyz", None)[0] == 200:
                return
        except OSError:
            pass
        finally:  # a 503 while the service starts, too: its socket is not left to the collector
            if client is not None:
                client.close()
        time.sleep(0.1)
    raise RuntimeError("the service did not start:\n" + svc.log.read_text()[-3000:])


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with suppress(OSError):
            found += [int(c) for c in task.read_text().split()]
    return found


def _pids(root: int) -> list[int]:
    """`root` and its descendants."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += _children(pid)
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


def redis_url() -> str:
    return os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


def prepare(url: str) -> None:
    """The ceiling's scratch table, in the run's database."""
    with psycopg.connect(url, autocommit=True) as conn:
        bench_endpoint.create_table(conn)
