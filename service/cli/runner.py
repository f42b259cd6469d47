"""`banco run`: the API, a worker with its scheduler, and embedded servers when none are named."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import click
import psycopg

from projections import migrate
from service.cli import metrics_dir
from service.runtime import embedded, house_key
from service.runtime.config import (
    ERASURE_JOURNAL,
    Config,
    ConfigError,
    Local,
    child_environment,
)

# gunicorn threads per worker, for requests: a stream holds one only until its client has what
# was due, then goes on from the worker's streamer (`service.streaming.relay`, bounded by
# `BANCO_STREAMS`). Long polls hold theirs while they wait: three quarters of them may.
THREADS = 64
# Connections a worker keeps open between their requests (HTTP keep-alive), or while their heads
# come (`service.http.slow_clients`), beside those its threads serve: gunicorn keeps none alive
# when its connections do not outnumber its threads, and a client then pays a new connection for
# every request.
KEPT_ALIVE = 1000


def gunicorn_command(bind: str, workers: int, threads: int = THREADS) -> list[str]:
    """gunicorn serving the API, its own refusals in problem+json (`service.http.gunicorn_worker`)."""
    return [sys.executable, "-m", "gunicorn", "service.http.wsgi:app", "--bind", bind,
            "--workers", str(workers), "--worker-class", "service.http.gunicorn_worker.ProblemWorker",
            "--threads", str(threads), "--worker-connections", str(threads + KEPT_ALIVE),
            # Its `child_exit` drops a dead worker's live gauges from the metrics.
            "--config", "python:service.http.gunicorn_hooks",
            # No `gunicornc` control socket: nothing here uses it, and its thread's stop is
            # waited for (up to seconds) when gunicorn stops.
            "--no-control-socket"]


def refuse_taken(host: str, port: int, choose: str) -> None:
    """Fail at once, in one line, when gunicorn could not listen on `host`:`port` (another Banco
    on it, say), rather than let it retry for seconds and stop whatever started meanwhile.
    `choose` says how to give another address."""
    host = host.removeprefix("[").removesuffix("]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as gunicorn chooses
    address = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host or '*'}:{port}"
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            # As gunicorn binds: a port left in TIME_WAIT by a Banco just stopped is free to it.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise click.ClickException(
                f"{address} is already in use (by another Banco?): stop what listens there,"
                f" or {choose}") from e
        raise click.ClickException(f"cannot listen on {address}: {e.strerror or e}") from e


def new_operator_key() -> str:
    """A random key that does not begin with a dash (a URL-safe token does once in 64 draws),
    which command-line parsers (argparse, Node's parseArgs) would take for an option when it is
    passed as `--token KEY`."""
    while (key := secrets.token_urlsafe(32)).startswith("-"):
        pass
    return key


def operator_key(data_dir: Path, named: str | None) -> str:
    """The key `named` (`BANCO_OPERATOR_KEY`), or the one generated on the first start and kept
    in the data dir."""
    if named:
        return named
    path = data_dir / "operator_key"
    if path.exists():
        return path.read_text().strip()
    key = new_operator_key()
    data_dir.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(key + "\n")
    return key


def run(data_dir: Path, host: str, port: int, workers: int) -> None:
    """Start everything, print how to reach it, and stop everything on Ctrl-C or SIGTERM."""
    other = port + 1 if port < 65535 else port - 1
    refuse_taken(host, port, f"choose another port with --port or BANCO_PORT"
                 f" (`./quickstart run --port {other}`)")
    local = Local.from_env()
    if local.house_key_file is not None and not local.house_key_file.exists():
        # Only the data folder's own key is generated: a file named and missing is a typo or an
        # unmounted volume, and a new key would sign this house's checkpoints from now on.
        raise click.UsageError(f"BANCO_HOUSE_KEY_FILE names {local.house_key_file}, which does"
                               " not exist: name the house's key, or unset it to use (or make on"
                               f" the first start) {data_dir / 'house_key.pem'}")
    servers = embedded.start(data_dir, named=local)
    children: list[subprocess.Popen[bytes]] = []

    def stop(*_: object) -> None:
        raise KeyboardInterrupt

    # Both set explicitly: a process started in the background by a shell begins with SIGINT
    # ignored, and Ctrl-C must still stop everything.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    failed = False  # a process ended by itself (a port taken since): not a clean stop
    try:
        key = operator_key(data_dir, local.operator_key)
        # The house's signing key, generated on the first start: the processes are told its
        # file, never its content.
        house_file = local.house_key_file or data_dir / "house_key.pem"
        try:
            house = house_key.ensure(house_file)
        except house_key.HouseKeyError as e:
            raise click.UsageError(str(e)) from e
        # Before the processes start: the API's and the worker's metrics are added up from there.
        metrics = metrics_dir.chosen(local.metrics_dir, data_dir / "metrics")
        env = child_environment(DATABASE_URL=servers.database_url, REDIS_URL=servers.redis_url,
                                BANCO_OPERATOR_KEY=key, BANCO_THREADS=str(THREADS),
                                BANCO_HOUSE_KEY_FILE=str(house_file),
                                **{metrics_dir.VARIABLE: str(metrics),
                                   ERASURE_JOURNAL: str(local.journal(data_dir).resolve())})
        try:
            # Every process reads these settings: refuse bad ones here, once and plainly, rather
            # than as a traceback from each gunicorn worker that fails to start.
            Config.from_env(env)
        except ConfigError as e:
            raise click.UsageError(str(e)) from e
        with psycopg.connect(servers.database_url, autocommit=True) as conn:
            migrate.upgrade(conn)
        # No gunicorn access log: the API writes one JSON line per request (service/runtime/logs.py).
        # Each in a process group of its own, which the stop signals as a whole: the gunicorn
        # workers and their streamers with their master.
        children.append(subprocess.Popen(
            [*gunicorn_command(f"{host}:{port}", workers), "--log-level", "warning"], env=env,
            start_new_session=True))
        children.append(subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env,
                                         start_new_session=True))
        click.echo(f"Banco is running at http://{host}:{port}  (data in {data_dir})")
        click.echo(f"Operator key: {key}")
        click.echo(f"House key (Ed25519, public): {house_key.public_b64(house)}"
                   f"  (also at http://{host}:{port}/.well-known/banco-house-key)")
        click.echo("Press Ctrl-C to stop.")
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        click.echo("a Banco process exited; stopping the others", err=True)
        failed = True
    except KeyboardInterrupt:
        click.echo("stopping Banco")
    finally:
        stop_children(children)
        servers.stop()
    if failed:
        raise SystemExit(1)


# How long the processes have to end by themselves once told to stop, before they are killed:
# what is left of a stop's few seconds once the embedded servers' own shutdown is counted.
STOP_GRACE_S = 3.0


def stop_children(children: list[subprocess.Popen[bytes]]) -> None:
    """Stop the API and the worker, each with its process group, within `STOP_GRACE_S`.

    SIGINT, as Ctrl-C gives it: gunicorn's quick shutdown (its workers drop their streams, whose
    clients reconnect to the next start) and the worker's warm one (the job in hand finishes).
    What is still running at the deadline is killed: a command's writes are one transaction, so
    a killed one leaves nothing half done, and a job cut short is found abandoned and run again.
    """
    for child in children:
        _signal_group(child, signal.SIGINT)
    deadline = time.monotonic() + STOP_GRACE_S
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=max(0.0, deadline - time.monotonic()))
    for child in children:
        # The group's stragglers too (a gunicorn worker or streamer outliving its master).
        _signal_group(child, signal.SIGKILL)
        child.wait()


def _signal_group(child: subprocess.Popen[bytes], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # the group has ended
        os.killpg(child.pid, sig)
