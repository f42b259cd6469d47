"""`python -m bench http --cpu`: where a trial's CPU goes, part by part, per action.

gunicorn loads this module as its configuration (`-c python:bench.http_cpu`). Its
`post_worker_init` hook wraps each worker's WSGI app so that the thread CPU time of every request
is counted by endpoint, a streamed body's included, chunk by chunk as it is made (a stream's
renders count in the trial they happen in, not when the stream ends). On SIGUSR2 a worker writes
its counts and its threads' CPU times to a file; the benchmark asks for them before and after a
trial and reads the other processes (the settlement worker, PostgreSQL, Redis) from `/proc`.

Thread CPU time is what a request cost, whatever else the machine did meanwhile. py-spy's GIL
samples, the other way to split a Python server's time, overstate the busier process when every
core is taken: a thread keeps the GIL while the OS keeps it waiting for a core.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import report

DIR_ENV = "BANCO_BENCH_CPU_DIR"
# Ids in paths (`tb_…`, `hd_…`, `pl_…`) become `{id}`, so a route's requests count together.
ID = re.compile(r"/[a-z]{2}_[0-9a-f]{8,}")


# --- in each gunicorn worker ---------------------------------------------------------------------

class Counts:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_route: dict[str, list[float]] = {}  # route -> [requests, CPU seconds]

    def add(self, route: str, seconds: float, requests: int) -> None:
        with self.lock:
            entry = self.by_route.setdefault(route, [0, 0.0])
            entry[0] += requests
            entry[1] += seconds


class _Body:
    """A response body whose chunks are counted as they are made."""

    def __init__(self, body: Iterable[bytes], route: str, counts: Counts) -> None:
        self._body, self._chunks = body, iter(body)
        self._route, self._counts = route, counts

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        began = time.thread_time()
        try:
            return next(self._chunks)
        finally:
            self._counts.add(self._route, time.thread_time() - began, 0)

    def close(self) -> None:
        close = getattr(self._body, "close", None)
        if close is not None:
            close()


def counting(app: Callable[..., Any], counts: Counts) -> Callable[..., Any]:
    """`app` with each request's CPU counted by route (method and path, ids left out)."""

    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        route = f"{environ['REQUEST_METHOD']} {ID.sub('/{id}', environ.get('PATH_INFO', ''))}"
        began = time.thread_time()
        try:
            body = app(environ, start_response)
        finally:
            counts.add(route, time.thread_time() - began, 1)
        return _Body(body, route, counts)

    return wrapped


def _threads() -> dict[str, float]:
    """CPU seconds of this process's live threads, by `name#id`: a thread that ends (the
    listener does when no stream is left) and its successor must not be taken for one."""
    spent: dict[str, float] = {}
    for t in threading.enumerate():
        if t.ident is None:
            continue
        try:
            spent[f"{t.name}#{t.native_id}"] = time.clock_gettime(time.pthread_getcpuclockid(t.ident))
        except OSError:
            continue  # it ended meanwhile
    return spent


def post_worker_init(worker: Any) -> None:
    """The gunicorn hook: count this worker's requests, and write the counts on SIGUSR2."""
    counts = Counts()
    worker.wsgi = counting(worker.wsgi, counts)
    folder = Path(os.environ[DIR_ENV])

    def write(ask: str) -> None:
        with counts.lock:
            routes = {k: list(v) for k, v in counts.by_route.items()}
        snapshot = {"ask": ask, "routes": routes, "threads": _threads()}
        path = folder / f"{os.getpid()}.json"
        path.with_suffix(".tmp").write_text(json.dumps(snapshot))
        path.with_suffix(".tmp").replace(path)  # whole, or not yet

    signal.signal(signal.SIGUSR2, lambda _signum, _frame: write((folder / "ask").read_text()))
    # Until now SIGUSR2 would have ended the worker (gunicorn resets it to the default): the file
    # tells the benchmark it may ask (`snapshot`), however long the app took to load.
    write("")


# --- in the benchmark ----------------------------------------------------------------------------

def named_cpu(names: Sequence[str]) -> float:
    """CPU seconds so far of the machine's processes whose command is one of `names`."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        command, _, rest = text.partition(" (")[2].rpartition(")")
        if command in names:
            fields = rest.split()
            # utime and stime, and cutime and cstime: the CPU of exited children their parent
            # has reaped. A PostgreSQL backend that exits mid-trial (another client's session
            # ending) moves its CPU to the postmaster's children's count instead of taking it
            # out of the total, which would otherwise go down.
            total += sum(int(f) for f in fields[11:15])
    return total / os.sysconf("SC_CLK_TCK")


STARTING_S = 60.0  # how long a gunicorn worker may take to load the app, on a busy machine


@dataclass
class Snapshot:
    routes: dict[str, list[float]] = field(default_factory=dict)
    threads: dict[str, float] = field(default_factory=dict)
    processes: dict[str, float] = field(default_factory=dict)


def snapshot(folder: Path, workers: Sequence[int], processes: dict[str, float],
             timeout: float = 5.0) -> Snapshot:
    """The gunicorn `workers`' counts, summed, with `processes`' CPU seconds as given."""
    ask = f"{time.monotonic_ns()}"
    (folder / "ask").write_text(ask)
    loaded = time.monotonic() + STARTING_S
    for pid in workers:
        # A worker still loading the app (the service answers once one of them has) would be
        # ended by the signal: it is sent once the worker has written its first file.
        while not (folder / f"{pid}.json").exists():
            if time.monotonic() > loaded:
                raise RuntimeError(f"gunicorn worker {pid} did not start counting its CPU")
            time.sleep(0.01)
        os.kill(pid, signal.SIGUSR2)
    shot = Snapshot(processes=processes)
    deadline = time.monotonic() + timeout
    for pid in workers:
        path = folder / f"{pid}.json"
        while True:
            data = json.loads(path.read_text()) if path.exists() else {}
            if data.get("ask") == ask:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn worker {pid} did not report its CPU")
            time.sleep(0.01)
        for route, (requests, seconds) in data["routes"].items():
            entry = shot.routes.setdefault(route, [0, 0.0])
            entry[0] += requests
            entry[1] += seconds
        for name, seconds in data["threads"].items():
            shot.threads[name] = shot.threads.get(name, 0.0) + seconds
    return shot


# The parts a trial's CPU is split into, in the order they are reported.
PARTS = ("the request", "streams", "other requests", "listener and jobs", "gunicorn, the rest",
         "settlement worker", "PostgreSQL", "Redis", "clients")
# service/application/notify.py, workers/deferred_jobs.py
BACKGROUND_THREADS = ("banco-notify", "banco-jobs")


def parts(before: Snapshot, after: Snapshot, request_route: str, clients: float,
          count: int) -> dict[str, float]:
    """ms of CPU per action (or ceiling request) of each part between two snapshots; `count`
    actions completed, `clients` CPU seconds of the clients."""
    routes = {r: after.routes[r][1] - before.routes.get(r, [0, 0.0])[1] for r in after.routes}
    # A thread that ended during the trial is missing from `after`: its last CPU falls to
    # "gunicorn, the rest", which is the process's CPU less what was counted.
    threads = {t: after.threads[t] - before.threads.get(t, 0.0) for t in after.threads}
    proc = {p: after.processes[p] - before.processes[p] for p in after.processes}
    request = routes.pop(request_route, 0.0)
    streams = sum(v for r, v in routes.items() if r.endswith("/stream"))
    others = sum(v for r, v in routes.items() if not r.endswith("/stream"))
    counted = request + streams + others
    background = sum(v for t, v in threads.items() if t.split("#")[0] in BACKGROUND_THREADS)
    seconds = {
        "the request": request,
        "streams": streams,
        "other requests": others,
        "listener and jobs": background,
        "gunicorn, the rest": proc["gunicorn"] - counted - background,
        "settlement worker": proc["worker"],
        "PostgreSQL": proc["postgres"],
        "Redis": proc["redis"],
        "clients": clients,
    }
    return {k: v / count * 1000 for k, v in seconds.items()} if count else {}


def markdown(rows: Sequence[tuple[Sequence[str], Sequence[dict[str, float]]]],
             headers: Sequence[str]) -> str:
    """A table of each row's parts, medians over its rounds, and their total."""
    body = []
    for cells, rounds in rows:
        # A round without an action (a trial that fell wholly on a settlement wait) has no parts.
        medians = [report.median([r[p] for r in rounds if r]) for p in PARTS]
        body.append([*cells, *(f"{m:.2f}" for m in medians), f"{sum(medians):.2f}"])
    return report.table([*headers, *PARTS, "total"], body)
