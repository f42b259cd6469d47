"""The `banco` command: migrations, rebuild, export, and the all-in-one `run`."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import psutil
import psycopg
import pytest

ROOT = Path(__file__).resolve().parent.parent


def banco(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def env(database_url: str, redis_url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url}


def test_db_upgrade_is_idempotent(env):
    result = banco("db", "upgrade", env=env)
    assert result.returncode == 0 and "schema is current" in result.stdout


@pytest.fixture(scope="module")
def clitest(database_url: str) -> str:
    """A player with two postings: 30 in, 4 out."""
    from events import ledger
    from events.catalog import default_types
    from events.model import NewEvent
    from events.postgres import PostgresEventStore, make_pool
    from service.application.postgres_unit_of_work import PostgresUnitOfWork

    pool = make_pool(database_url)
    try:
        store = PostgresEventStore(pool, default_types())
        with pool.connection() as c, c.transaction():
            registered = NewEvent("PlayerRegistered", {"player_id": "clitest", "name_enc": "Cli"})
            uow = PostgresUnitOfWork.joining(c, store)
            uow.append("player-clitest", [registered, *(t.event({}) for t in (
                ledger.Transfer(ledger.HOUSE, "wallet:clitest", 30, "cash"),
                ledger.Transfer("wallet:clitest", ledger.HOUSE, 4, "fee")))], None)
            uow.flush()
    finally:
        pool.close()
    return "clitest"


def test_projections_rebuild_and_export(env, clitest):
    rebuilt = banco("projections", "rebuild", env=env)
    assert rebuilt.returncode == 0 and "rebuilt projections from" in rebuilt.stdout
    exported = banco("export", "balance-history", "--player", "clitest", "--format", "ndjson", env=env)
    assert exported.returncode == 0, exported.stderr
    rows = [orjson.loads(line) for line in exported.stdout.splitlines()]
    assert [(r["amount"], r["balance_after"]) for r in rows] == [(30, 30), (-4, 26)]
    missing = banco("export", "balance-history", "--player", "nobody", env=env)
    assert missing.returncode == 2 and "no player nobody" in missing.stderr


def test_export_to_a_file_with_a_progress_bar_and_filters(env, clitest, tmp_path):
    out = tmp_path / "history.json"
    done = banco("export", "balance-history", "--player", "clitest", "--format", "json",
                 "-o", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert "exporting" in done.stderr  # the bar goes to stderr, never into the file
    rows = orjson.loads(out.read_bytes())
    assert [(r["amount"], r["balance_after"]) for r in rows] == [(30, 30), (-4, 26)]
    assert set(rows[0]) == {"position", "recorded_at", "account", "amount", "balance_after",
                            "reason", "counterparty", "table", "hand"}
    later = banco("export", "balance-history", "--player", "clitest", "--from", "2999-01-01",
                  "--format", "json", env=env)
    assert later.returncode == 0 and orjson.loads(later.stdout) == [] and later.stderr == ""
    bad = banco("export", "balance-history", "--player", "clitest", "--to", "soon", env=env)
    assert bad.returncode == 2 and "ISO 8601" in bad.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, deadline: float) -> dict:
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return orjson.loads(r.read())
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} never answered")


@contextmanager
def banco_running(data: Path, database_url: str, redis_url: str,
                  **settings: str) -> Iterator[tuple[str, str]]:
    """`banco run` with one API worker on the servers named, with an operator key and a queue of
    its own (and `settings`): its URL and operator key. Stopped with SIGINT, as Ctrl-C does."""
    port, key = free_port(), secrets.token_urlsafe(24)
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "BANCO_OPERATOR_KEY": key, "BANCO_QUEUE": f"banco-run-{secrets.token_hex(4)}",
           **settings}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "run", "--data-dir", str(data),
                             "--port", str(port), "--workers", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 60)
        yield f"http://127.0.0.1:{port}", key
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def postgres_processes(data_dir: Path) -> list[str]:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if str(data_dir) in line and "postgres" in line]


# The stop's own 3 s grace for its processes, then the embedded servers' shutdown, which takes a
# few seconds more on a loaded machine; a stop that waited on the open stream or on a server's
# clients (gunicorn's 30 s graceful timeout, PostgreSQL's smart shutdown) would take far longer.
STOP_BOUND_S = 10.0


def open_stream(port: int, key: str) -> socket.socket:
    """A table's stream held open, as a page following it holds it; its headers read."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/tables", data=b'{"game": "sette-e-mezzo"}', method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        table = orjson.loads(r.read())["id"]
    stream = socket.create_connection(("127.0.0.1", port), timeout=30)
    stream.sendall(f"GET /v1/tables/{table}/stream?timeout=600 HTTP/1.1\r\nHost: banco\r\n"
                   f"Authorization: Bearer {key}\r\n\r\n".encode())
    assert stream.recv(1 << 16).startswith(b"HTTP/1.1 200")
    return stream


def stream_ended(stream: socket.socket) -> bool:
    """Whether the server ended the stream's connection (what it sent before read through)."""
    with stream:
        stream.settimeout(5)
        try:
            while stream.recv(1 << 16):
                pass
        except ConnectionResetError:
            pass
    return True


def processes_of(proc: subprocess.Popen[str], data: Path) -> list[psutil.Process]:
    """`banco run`, every process it started (each group's) and its embedded servers."""
    family = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    servers = [p for p in psutil.process_iter(["cmdline"])
               if str(data) in " ".join(p.info["cmdline"] or ())]
    return list({p.pid: p for p in family + servers}.values())


def ctrl_c(proc: subprocess.Popen[str], family: list[psutil.Process]) -> float:
    """Ctrl-C as a terminal gives it (SIGINT to the foreground process group, `banco run`'s):
    the seconds until every process of `family` has ended."""
    started = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=60)
    _, alive = psutil.wait_procs(family, timeout=60)
    assert alive == [], alive
    return time.monotonic() - started


def test_run_starts_everything_embedded_and_ctrl_c_stops_it(tmp_path):
    """On a machine with no servers: embedded PostgreSQL and Redis, data kept across starts."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "BANCO_OPERATOR_KEY")}
    data = tmp_path / "data"
    port = free_port()

    def start() -> subprocess.Popen[str]:
        # A process group of its own, as a shell's foreground job: Ctrl-C signals the group.
        return subprocess.Popen([sys.executable, "-m", "service.cli", "run", "--data-dir", str(data),
                                 "--port", str(port), "--workers", "1"], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)

    def stop(proc: subprocess.Popen[str]) -> str:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        return out

    proc = start()
    try:
        ready = wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 90)
        assert ready["status"] == "ready"
        key = (data / "operator_key").read_text().strip()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/players", data=b'{"name": "Kept"}', method="POST",
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as r:
            player_id = orjson.loads(r.read())["player"]["id"]
        house = wait_ready(f"http://127.0.0.1:{port}/.well-known/banco-house-key", time.monotonic() + 10)
    finally:
        out = stop(proc)
    # The house's public key is printed; its private half kept in the data folder, its owner's alone.
    assert f"http://127.0.0.1:{port}" in out and key in out and house["public_key"] in out
    assert (data / "house_key.pem").stat().st_mode & 0o077 == 0
    assert proc.returncode == 0 or proc.returncode == -signal.SIGINT
    time.sleep(1)
    assert postgres_processes(data) == []

    proc = start()
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 90)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/players/{player_id}",
                                         headers={"Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(request, timeout=10) as r:
            assert orjson.loads(r.read())["name"] == "Kept"
        assert wait_ready(f"http://127.0.0.1:{port}/.well-known/banco-house-key",
                          time.monotonic() + 10) == house  # the same key across starts
        stream = open_stream(port, key)
        family = processes_of(proc, data)
        assert len(family) >= 5, family  # the run, gunicorn and its worker, the worker, servers
    finally:
        took = ctrl_c(proc, family)
    # Everything ends within a few seconds, the open stream's connection too.
    assert took < STOP_BOUND_S, took
    assert stream_ended(stream)
    assert postgres_processes(data) == []
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(f"postgresql://postgres@/postgres?host={data / 'postgres'}", connect_timeout=2)


def test_the_operator_key_run_makes_never_begins_with_a_dash(tmp_path, monkeypatch):
    """A URL-safe token begins with "-" once in 64 draws, and `--token -...` is refused by the
    bots' argument parsers: `banco run` draws again until its key does not."""
    from service.cli import runner

    draws = iter(["-first", "-second", "third"])
    monkeypatch.setattr(runner.secrets, "token_urlsafe", lambda n: next(draws))
    assert runner.operator_key(tmp_path / "data", None) == "third"
    assert (tmp_path / "data" / "operator_key").read_text() == "third\n"


def test_jobs_lists_failures_and_requeues_them(env, redis_url):
    from workers.queues import connect, queue

    name = f"banco-jobs-{os.getpid()}"
    q = queue(connect(redis_url), name)
    job = q.enqueue("json.loads", "{not json")  # fails at once
    assert banco("worker", "--burst", env={**env, "BANCO_QUEUE": name}).returncode == 0
    shown = banco("jobs", env={**env, "BANCO_QUEUE": name})
    assert shown.returncode == 0, shown.stderr
    assert "0 queued" in shown.stdout and "1 failed" in shown.stdout and job.id in shown.stdout
    again = banco("jobs", "requeue", env={**env, "BANCO_QUEUE": name})
    assert again.returncode == 0 and "requeued 1 job(s)" in again.stdout
    after = banco("jobs", env={**env, "BANCO_QUEUE": name}).stdout
    # (The burst worker's sweep may also have scheduled deadlines of other tests' tables.)
    assert "1 queued," in after and "0 failed" in after
    q.empty()


def test_jobs_shows_the_webhooks_lane_as_the_metrics_count_it(env, redis_url):
    """A line for each queue `GET /metrics` counts, the webhooks' lane's too, and its failed
    jobs, which `banco jobs requeue` puts back on the lane. (The lane was left out.)"""
    from rq import SimpleWorker

    from workers.queues import connect, queue, webhook_lane

    name = f"banco-lane-{os.getpid()}"
    lane = queue(connect(redis_url), webhook_lane(name))
    try:
        job = lane.enqueue("json.loads", "{not json")
        SimpleWorker([lane], connection=lane.connection).work(burst=True)
        lane.enqueue("json.loads", "[]")
        shown = banco("jobs", env={**env, "BANCO_QUEUE": name})
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        assert [line.split(":")[0] for line in lines if line.startswith("queue ")] == [
            f"queue {name}", f"queue {lane.name}"]
        assert f"queue {lane.name}: 1 queued, 0 scheduled, 0 started, 1 failed" in lines
        assert any(line.startswith(f"failed {job.id} ({lane.name}): ") for line in lines), lines
        again = banco("jobs", "requeue", job.id, env={**env, "BANCO_QUEUE": name})
        assert again.returncode == 0 and "requeued 1 job(s)" in again.stdout, again.stderr
        after = banco("jobs", env={**env, "BANCO_QUEUE": name}).stdout.splitlines()
        assert f"queue {lane.name}: 2 queued, 0 scheduled, 0 started, 0 failed" in after
    finally:
        lane.delete(delete_jobs=True)


def test_jobs_and_readyz_count_both_workers_that_run_starts(env, tmp_path, database_url,
                                                            redis_url):
    """`banco run`'s worker process works the queue and, in a thread, its webhooks' lane: two RQ
    workers, which `/readyz`, `banco jobs` and `GET /v1/jobs` each show with their queue."""
    name = f"banco-run-{secrets.token_hex(4)}"
    lane = f"{name}-webhooks"
    both = f"2 alive ({name}: 1, {lane}: 1)"
    with banco_running(tmp_path / "data", database_url, redis_url, BANCO_QUEUE=name) as (base, key):
        deadline = time.monotonic() + 30
        while wait_ready(f"{base}/readyz", deadline)["checks"]["workers"] != both:
            assert time.monotonic() < deadline, "the workers never registered"
            time.sleep(0.2)
        shown = banco("jobs", env={**env, "BANCO_QUEUE": name})
        assert shown.returncode == 0, shown.stderr
        assert f"workers: {both}" in shown.stdout.splitlines()
        workers = [line for line in shown.stdout.splitlines() if line.startswith("worker ")]
        assert [line.split(" (")[1].split(")")[0] for line in workers] == [name, lane], workers
        request = urllib.request.Request(f"{base}/v1/jobs",
                                         headers={"Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(request, timeout=10) as r:
            listed = orjson.loads(r.read())["workers"]
        assert [w["queues"] for w in listed] == [[name], [lane]]
        assert [w["name"] for w in listed] == [line.split()[1] for line in workers]


def test_run_refuses_bad_settings_before_starting_anything(env, tmp_path):
    """A short operator key (or any bad setting) is one clear error, not a worker's traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "run", "--data-dir", str(tmp_path / "data"),
         "--port", str(free_port())],
        cwd=ROOT, env={**env, "BANCO_OPERATOR_KEY": "too-short"},
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "BANCO_OPERATOR_KEY must be at least 16 characters" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "Banco is running" not in result.stdout


def test_run_exits_with_an_error_when_a_process_of_it_fails(env, tmp_path):
    """gunicorn refusing its arguments (here extra ones from its environment): `banco run` stops
    the rest and fails (exit 1), so that whatever started it can tell."""
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "run", "--data-dir", str(tmp_path / "data"),
         "--port", str(free_port())],
        cwd=ROOT, env={**env, "BANCO_OPERATOR_KEY": "k" * 32, "BANCO_QUEUE": "banco-cli-exit",
                       "GUNICORN_CMD_ARGS": "--no-such-option"},
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "a Banco process exited; stopping the others" in result.stderr


@contextmanager
def port_taken() -> Iterator[int]:
    """A port of 127.0.0.1 that something else listens on."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def test_run_on_a_port_in_use_says_so_and_starts_nothing(tmp_path):
    """Before anything starts (no embedded server, no data folder): one line naming the address
    and how to choose another port, rather than gunicorn's retries and a stop of everything."""
    data = tmp_path / "data"
    with port_taken() as port:
        result = banco("run", "--port", str(port),
                       env={**no_server_env(), "BANCO_DATA_DIR": str(data)})
        by_setting = banco("run", env={**no_server_env(), "BANCO_DATA_DIR": str(data),
                                       "BANCO_PORT": str(port)})
    for refused in (result, by_setting):
        message = one_line_error(refused)
        assert f"127.0.0.1:{port} is already in use" in message, message
        assert "--port or BANCO_PORT" in message and "`./quickstart run --port " in message
        assert refused.stdout == ""  # not "Banco is running"
    assert not data.exists()


def test_run_with_a_house_key_file_that_is_not_there_says_so_and_makes_none(tmp_path):
    """A mistyped BANCO_HOUSE_KEY_FILE made a new key there (and its folders), which then signed
    the house's checkpoints in place of its key; only the data folder's own is generated."""
    data, named = tmp_path / "data", tmp_path / "typo" / "house_key.pem"
    result = banco("run", "--port", str(free_port()),
                   env={**no_server_env(), "BANCO_DATA_DIR": str(data),
                        "BANCO_HOUSE_KEY_FILE": str(named)})
    message = one_line_error(result)
    assert f"BANCO_HOUSE_KEY_FILE names {named}, which does not exist" in message, message
    assert result.stdout == "" and not named.parent.exists() and not data.exists()


def test_serve_on_an_address_in_use_says_so(env):
    with port_taken() as port:
        result = banco("serve", "--bind", f"127.0.0.1:{port}",
                       env={**env, "BANCO_OPERATOR_KEY": "k" * 32})
    message = one_line_error(result)
    assert f"127.0.0.1:{port} is already in use" in message and "--bind HOST:PORT" in message


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """The message of a refused command: non-zero exit, no traceback, one `Error:` line."""
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, result.stderr
    return errors[0]


MISTAKES = {
    "checkpoint to a missing folder": (["checkpoint", "-o", "{tmp}/missing/digest.json"],
                                       "there is no folder {tmp}/missing"),
    # /proc refuses a new file with ENOENT, which read "No such file or directory (/proc)".
    "checkpoint where no file can be made": (["checkpoint", "-o", "/proc/digest.json"],
                                             "no file can be created in /proc"),
    "checkpoint to a folder": (["checkpoint", "-o", "{tmp}"], "is a directory"),
    "export to a missing folder": (["export", "balance-history", "--player", "clitest", "-o",
                                    "{tmp}/missing/ann.csv"], "cannot write"),
    "export of an unknown player": (["export", "balance-history", "--player", "nobody", "-o",
                                     "{tmp}/nobody.csv"], "no player nobody"),
    "export with a bad time": (["export", "balance-history", "--player", "clitest", "--from",
                                "2026-13-01"], "ISO 8601"),
    "export ending before it begins": (["export", "balance-history", "--player", "clitest",
                                        "--from", "2026-02-01", "--to", "2026-01-01"], "is before"),
    "openapi to a missing folder": (["openapi", "write", "{tmp}/missing/openapi.yaml"], "cannot write"),
    "requeue of an unknown job": (["jobs", "requeue", "no-such-job"], "no failed job no-such-job"),
    "replay of an unknown hand": (["replay", "hd_nope"], "no hand hd_nope"),
    "show of an unknown dispute": (["dispute", "show", "dp_nope"], "no dispute dp_nope"),
    "verify of an unknown hand": (["verify", "hd_nope"], "no hand hd_nope"),
    "verify of an unknown table": (["verify", "--table", "tb_nope"], "no table tb_nope"),
    "verify against a missing file": (["verify", "--against", "{tmp}/digest.json"], "does not exist"),
    "verify of nothing": (["verify"], "give one of"),
    "checkpoint to a dash": (["checkpoint", "-o", "-"], "the digest is printed anyway"),
    "an id that is not UTF-8": (["replay", "hd_\udcff"], "hd_\\xff is not valid UTF-8"),
    "a text that is not UTF-8": (["dispute", "open", "hd_x", "--reason", "bad \udcff"],
                                 "bad \\xff is not valid UTF-8"),
    "a correction in other digits": (["dispute", "resolve", "dp_x", "--note", "n", "--pay",
                                      "house:clitest:\u00b2"], "is not FROM:TO:AMOUNT"),
    "a dispute of an unknown hand": (["dispute", "open", "hd_nope", "--reason", "x"], "no hand"),
    # click's own refusals: its usage, hint and error were four lines.
    "a status not offered": (["dispute", "list", "--status", "weird"],
                             "'weird' is not one of 'open', 'resolved', 'rejected' (see 'banco"
                             " dispute list --help')"),
    "a command not there": (["nosuch"], "No such command 'nosuch' (see 'banco --help')"),
    "an option not there": (["verify", "--bogus"], "No such option '--bogus'"),
    "a missing argument": (["dispute", "show"], "Missing argument 'DISPUTE_ID'"),
}


@pytest.mark.parametrize("case", MISTAKES)
def test_a_mistake_is_one_line_and_changes_nothing(env, clitest, database_url, tmp_path, case):
    args, message = MISTAKES[case]
    queue = f"banco-mistakes-{os.getpid()}"

    def state() -> tuple[object, ...]:
        with psycopg.connect(database_url) as conn:
            checkpoints = conn.execute("SELECT count(*) FROM audit_checkpoints").fetchone()
            events = conn.execute("SELECT count(*) FROM events").fetchone()
        return checkpoints, events, sorted(tmp_path.iterdir())

    before = state()
    result = banco(*(a.replace("{tmp}", str(tmp_path)) for a in args),
                   env={**env, "BANCO_QUEUE": queue})
    assert message.replace("{tmp}", str(tmp_path)) in one_line_error(result)
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    if message.startswith(("no hand", "no table", "no player", "no dispute", "no failed job")):
        # What was named does not exist: a usage error's status, whichever command it was.
        assert result.returncode == 2, (case, result.returncode)
    assert state() == before  # nothing recorded, no file written, not even in part


ROOT_HEX = "ab" * 32
UNKNOWN_NAMED = {
    "a table": (["verify", "--table", "tb_nope"], "no table tb_nope"),
    "a table, as JSON": (["verify", "--table", "tb_nope", "--json"], "no table tb_nope"),
    "a table, with a checkpoint": (["verify", "--table", "tb_nope", "--against", "{digest}"],
                                   "no table tb_nope"),
    "a hand, with a checkpoint": (["verify", "hd_nope", "--against", "{digest}"],
                                  "no hand hd_nope"),
    "a hand to replay": (["replay", "hd_nope", "--step"], "no hand hd_nope"),
    "a player to export": (["export", "balance-history", "--player", "nobody", "-o",
                            "{tmp}/nobody.csv"], "no player nobody"),
    "a failed job": (["jobs", "requeue", "no-such-job"],
                     "no failed job no-such-job in queues banco-unknown, banco-unknown-webhooks"),
    "an erasure journal": (["erasures", "list", "--journal", "{tmp}/nowhere.jsonl"],
                           "no erasure journal at {tmp}/nowhere.jsonl"),
}


@pytest.mark.parametrize("case", UNKNOWN_NAMED)
def test_a_hand_table_player_job_or_journal_not_there_is_one_line_before_any_other(env, case, tmp_path):
    """The mistake is the whole output, exit status 2: not after a progress bar's label
    ("verifying hands") nor after the checkpoint's comparison, which were printed before the
    table was looked for, nor after the command's usage, which was given right."""
    args, message = UNKNOWN_NAMED[case]
    digest = tmp_path / "digest.json"
    digest.write_text(orjson.dumps({"txid": 1, "position": 0, "events": 0,
                                    "root": ROOT_HEX}).decode())
    named = [a.replace("{digest}", str(digest)).replace("{tmp}", str(tmp_path)) for a in args]
    result = banco(*named, env={**env, "BANCO_QUEUE": "banco-unknown"})
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [f"Error: {message.replace('{tmp}', str(tmp_path))}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["digest.json"]  # no file written
NOT_CHECKPOINTS = {
    "a field missing": (b'{"position": 3, "events": 2, "root": "%s"}' % ROOT_HEX.encode(),
                        'it has no "txid"'),
    "an empty file": (b"", "it is not JSON ("),
    "no JSON": (b"txid = 12\n", "it is not JSON ("),
    "a JSON list": (b'[{"txid": 1}]', "it holds a JSON list, not an object"),
    "a count in a string": (b'{"txid": 9, "position": 3, "events": "2", "root": "%s"}'
                            % ROOT_HEX.encode(), 'its "events" is not a whole number ("2")'),
    "a negative count": (b'{"txid": 9, "position": -3, "events": 2, "root": "%s"}'
                         % ROOT_HEX.encode(), 'its "position" is not a whole number (-3)'),
    "a count that is true": (b'{"txid": true, "position": 3, "events": 2, "root": "%s"}'
                             % ROOT_HEX.encode(), 'its "txid" is not a whole number (true)'),
    "a count wider than 64 bits": (b'{"txid": 99999999999999999999999, "position": 3, "events": 2,'
                                   b' "root": "%s"}' % ROOT_HEX.encode(),
                                   'its "txid" is larger than any the log holds'
                                   ' (99999999999999999999999)'),
    "a short root": (b'{"txid": 9, "position": 3, "events": 2, "root": "abc"}',
                     'its "root" is not 64 hexadecimal digits'),
}


KEPT_ERASURE = ('{"player_id": "pl_kept", "actor": "operator:operator",'
                ' "recorded_at": "2026-11-27T12:00:00+00:00"}')


@pytest.mark.parametrize("command", ["list", "reapply"])
@pytest.mark.parametrize("field", ["player_id", "actor", "recorded_at"])
@pytest.mark.parametrize("newline", [True, False], ids=["whole line", "last line, no newline"])
def test_an_erasure_journal_line_missing_a_field_names_the_file_line_and_field(
        env, tmp_path, command, field, newline):
    """It was the bare KeyError's text (`not an erasure ('player_id')`); and a whole last line
    without its newline was passed over as a write cut short. Nothing is erased."""
    journal = tmp_path / "erasures.jsonl"
    row = {k: v for k, v in orjson.loads(KEPT_ERASURE).items() if k != field}
    journal.write_text(KEPT_ERASURE + "\n" + orjson.dumps(row).decode()
                       + ("\n" if newline else ""))
    result = banco("erasures", command, "--journal", str(journal), env=env)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f'Error: {journal}, line 2: not an erasure: it has no "{field}"'], result.stderr


@pytest.mark.parametrize("case", NOT_CHECKPOINTS)
def test_verify_against_a_file_that_is_no_checkpoint_says_what_is_wrong(case, tmp_path):
    """In one line, in words, before any server is looked for (there is none here)."""
    content, why = NOT_CHECKPOINTS[case]
    digest = tmp_path / "digest.json"
    digest.write_bytes(content)
    nothing = tmp_path / "nothing"
    result = banco("verify", "--against", str(digest), "--data-dir", str(nothing),
                   env=no_server_env())
    message = one_line_error(result)
    assert message.startswith(f"Error: {digest} is not a checkpoint file: {why}"), message
    assert not nothing.exists()


def test_checkpoint_records_nothing_when_its_file_cannot_be_written(env, database_url, tmp_path):
    """The digest's file is made before the checkpoint is recorded, and written whole."""
    with psycopg.connect(database_url) as conn:
        before = conn.execute("SELECT count(*) FROM audit_checkpoints").fetchone()
    refused = banco("checkpoint", "-o", str(tmp_path / "safe" / "place" / "digest.json"), env=env)
    assert "cannot write" in one_line_error(refused)
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT count(*) FROM audit_checkpoints").fetchone() == before
    done = banco("checkpoint", "-o", str(tmp_path / "digest.json"), env=env)
    assert done.returncode == 0, done.stderr
    assert orjson.loads((tmp_path / "digest.json").read_bytes()) == orjson.loads(done.stdout)
    assert [p.name for p in tmp_path.iterdir()] == ["digest.json"]  # no temporary file left
    # An earlier digest is kept: a second checkpoint does not take its place unasked (it did,
    # silently), and records nothing when refused.
    with psycopg.connect(database_url) as conn:
        before = conn.execute("SELECT count(*) FROM audit_checkpoints").fetchone()
    again = banco("checkpoint", "-o", str(tmp_path / "digest.json"), env=env)
    assert "is there already" in one_line_error(again) and "--replace" in again.stderr
    assert orjson.loads((tmp_path / "digest.json").read_bytes()) == orjson.loads(done.stdout)
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT count(*) FROM audit_checkpoints").fetchone() == before
    replaced = banco("checkpoint", "-o", str(tmp_path / "digest.json"), "--replace", env=env)
    assert replaced.returncode == 0, replaced.stderr
    assert orjson.loads((tmp_path / "digest.json").read_bytes()) == orjson.loads(replaced.stdout)


def no_server_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if k not in ("DATABASE_URL", "REDIS_URL", "BANCO_OPERATOR_KEY", "BANCO_DATA_DIR")}


SERVED = [["replay", "hd_x"], ["verify", "hd_x"], ["checkpoint"], ["projections", "rebuild"],
          ["export", "balance-history", "--player", "x"], ["db", "upgrade"], ["jobs"],
          ["jobs", "requeue"], ["worker", "--burst"], ["dispute", "open", "hd_x", "--reason", "x"]]


@pytest.mark.parametrize("args", SERVED, ids=" ".join)
def test_without_servers_or_data_a_command_says_how_to_start_them(args, tmp_path):
    nothing = tmp_path / "nothing"
    result = banco(*args, "--data-dir", str(nothing), env=no_server_env())
    assert f"no Banco data in {nothing}: start Banco there first" in one_line_error(result)
    assert not nothing.exists()  # no empty database made where none was


def test_the_data_folder_is_an_option_of_each_command_as_the_help_says(tmp_path):
    """`banco --help` says where --data-dir goes; given before the command's name, it is one
    line saying so, and nothing is looked for (no servers, no folder made)."""
    shown = banco("--help", env=no_server_env())
    assert shown.returncode == 0
    assert "own --data-dir, given after its name (`banco jobs --data-dir DIR`)" in " ".join(
        shown.stdout.split())
    nothing = tmp_path / "nothing"
    for misplaced in (["--data-dir", str(nothing)], [f"--data-dir={nothing}"]):
        refused = banco(*misplaced, "jobs", env=no_server_env())
        assert "--data-dir is an option of each command: give it after the command's name" \
            in one_line_error(refused)
        assert refused.returncode == 2
    assert not nothing.exists()


@pytest.mark.parametrize("args", SERVED, ids=" ".join)
def test_servers_that_do_not_answer_are_one_line(args, env, database_url):
    closed = free_port()
    result = banco(*args, env={**env, "DATABASE_URL": f"postgresql://postgres@127.0.0.1:{closed}/x",
                               "REDIS_URL": f"redis://127.0.0.1:{closed}/0"})
    # A dispute's command used to retry through its pool for 30 s first; a worker with --burst
    # to end with status 0.
    server = "Redis" if args[0] == "jobs" else "PostgreSQL"
    assert f"cannot reach {server}" in one_line_error(result)


def test_serve_without_its_database_says_so_and_starts_nothing(env):
    closed = free_port()
    result = banco("serve", "--bind", f"127.0.0.1:{free_port()}",
                   env={**env, "DATABASE_URL": f"postgresql://postgres@127.0.0.1:{closed}/x",
                        "BANCO_OPERATOR_KEY": "k" * 32})
    assert "cannot reach PostgreSQL" in one_line_error(result)
    assert "gunicorn" not in result.stderr.lower()


BAD_URLS = {
    "a database URL that is no URL": ({"DATABASE_URL": "not a url"}, ["replay", "hd_x"],
                                      "DATABASE_URL is not a PostgreSQL URL"),
    "a database URL of the web": ({"DATABASE_URL": "http://x"}, ["dispute", "show", "dp_x"],
                                  "DATABASE_URL is not a PostgreSQL URL"),
    "a Redis URL that is no URL": ({"REDIS_URL": "not a url"}, ["jobs"],
                                   "REDIS_URL is not a Redis URL"),
    "a Redis port that is no number": ({"REDIS_URL": "redis://127.0.0.1:port/0"}, ["jobs"],
                                       "REDIS_URL is not a Redis URL"),
    "a Redis database that is no number": ({"REDIS_URL": "redis://127.0.0.1:6379/abc"},
                                           ["jobs", "requeue"],
                                           "REDIS_URL's database must be a number, got 'abc'"),
    "a Redis database the server has not": ({"REDIS_URL": "redis://127.0.0.1:6379/99999"},
                                            ["jobs"], "Redis refused: DB index is out of range"),
}


@pytest.mark.parametrize("case", BAD_URLS)
def test_a_server_url_that_cannot_be_read_is_one_line(case, env):
    """And not a traceback from the first connection (nor, for a Redis database that is no
    number, database 0 used without a word). The URL itself is not shown: it may hold a
    password."""
    settings, args, message = BAD_URLS[case]
    result = banco(*args, env={**env, **settings, "PGPASSWORD": "", "BANCO_QUEUE": "bad-urls"})
    shown = one_line_error(result)
    assert message in shown
    assert all(value not in shown for value in settings.values() if value != "abc"), shown


def test_an_output_that_is_a_link_or_a_fifo_is_written_through_not_replaced(env, tmp_path):
    """`-o /dev/stdout` and the like: a device, a FIFO or a link is written to, never replaced
    by a plain file."""
    kept = tmp_path / "kept"
    kept.mkdir()
    link = tmp_path / "digest.json"
    link.symlink_to(kept / "digest.json")
    done = banco("checkpoint", "-o", str(link), env=env)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert orjson.loads((kept / "digest.json").read_bytes()) == orjson.loads(done.stdout)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    read: list[bytes] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_bytes()))
    reader.start()
    done = banco("checkpoint", "-o", str(fifo), env=env)
    reader.join(30)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert orjson.loads(read[0]) == orjson.loads(done.stdout)


def test_a_database_without_the_schema_says_to_upgrade_it(env, servers):
    from psycopg.conninfo import make_conninfo

    name = f"banco_empty_{os.getpid()}"
    with psycopg.connect(servers.database_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        result = banco("replay", "hd_x", env={**env, "DATABASE_URL": make_conninfo(
            servers.database_url, dbname=name)})
        assert "run `banco db upgrade`" in one_line_error(result)
    finally:
        with psycopg.connect(servers.database_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_commands_find_the_embedded_servers_of_the_data_folder_or_start_them(tmp_path):
    """While servers run on the data folder (as `banco run` holds them), a command uses them and
    leaves them running; when none does, it starts them for itself and stops them after."""
    from projections import migrate
    from service.runtime import embedded
    from workers.queues import connect

    data = tmp_path / "data"
    env = {**no_server_env(), "BANCO_DATA_DIR": str(data)}
    url, postgres = embedded.start_postgres(data / "postgres")
    redis_url, redis = embedded.start_redis(data / "redis")
    try:
        assert redis_url == f"unix://{data.resolve() / 'redis' / 'redis.sock'}"
        with psycopg.connect(url, autocommit=True) as conn:
            migrate.upgrade(conn)
        recorded = banco("checkpoint", "-o", str(tmp_path / "digest.json"), env=env)
        assert recorded.returncode == 0, recorded.stderr
        shown = banco("jobs", env=env)
        assert shown.returncode == 0 and shown.stdout.startswith("queue banco: 0 queued"), shown.stderr
        with psycopg.connect(url) as conn:  # still running
            assert conn.execute("SELECT count(*) FROM audit_checkpoints").fetchone() == (1,)
        assert connect(redis_url).ping()
    finally:
        redis.shutdown()
        postgres.cleanup()
    assert postgres_processes(data) == []

    for args in (["verify", "--against", str(tmp_path / "digest.json")], ["checkpoint"], ["jobs"]):
        result = banco(*args, env=env)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
    assert postgres_processes(data) == []
    assert not (data / "redis" / "redis.sock").exists()


BAD_STARTS = {
    "a port out of range": (["run", "--port", "99999"], {}, "--port"),
    "a port that is no number": (["run"], {"BANCO_PORT": "eighty"}, "--port"),
    "no gunicorn worker": (["run", "--workers", "0"], {}, "--workers"),
    "no thread": (["serve", "--threads", "0"], {}, "--threads"),
    "a bound port that is no number": (["serve", "--bind", "127.0.0.1:eighty"], {}, "--bind"),
    "a sweep that is no number": (["worker", "--burst"], {"BANCO_SWEEP_EVERY_S": "often"},
                                  "BANCO_SWEEP_EVERY_S"),
    "a webhook range that is no range": (["worker", "--burst"],
                                         {"BANCO_WEBHOOK_ALLOW_NETWORKS": "10.0.0.1/8"},
                                         "BANCO_WEBHOOK_ALLOW_NETWORKS"),
    "a data folder that cannot be made": (["run", "--data-dir", "/proc/banco"], {},
                                          "cannot make the data folder /proc/banco"),
    "a bound port out of range": (["serve", "--bind", "127.0.0.1:99999"], {}, "--bind"),
    "a checkpoint interval beyond all": (["worker", "--burst"],
                                         {"BANCO_CHECKPOINT_EVERY_S": "1e400"},
                                         "BANCO_CHECKPOINT_EVERY_S must be a number of seconds"),
    "a metrics folder under a file": (["worker", "--burst"],
                                      {"PROMETHEUS_MULTIPROC_DIR": "/etc/hostname/metrics"},
                                      "PROMETHEUS_MULTIPROC_DIR: cannot make"),
    # Every erasure failed with a 500 for it, the API otherwise running.
    "an erasure journal that cannot be written": (["serve"], {
        "BANCO_ERASURE_JOURNAL": "/proc/erasures.jsonl", "DATABASE_URL": "postgresql://x/y",
        "REDIS_URL": "redis://x", "BANCO_OPERATOR_KEY": "an-operator-key-0123456789"},
        "BANCO_ERASURE_JOURNAL: cannot write /proc/erasures.jsonl"),
    "an erasure journal under a file": (["run"],
                                        {"BANCO_ERASURE_JOURNAL": "/etc/hostname/erasures.jsonl"},
                                        "BANCO_ERASURE_JOURNAL: cannot write"),
}


@pytest.mark.parametrize("case", BAD_STARTS)
def test_run_serve_and_worker_refuse_bad_settings_in_one_line(case, tmp_path):
    args, settings, message = BAD_STARTS[case]
    result = banco(*args, env={**no_server_env(), "BANCO_DATA_DIR": str(tmp_path / "data"), **settings})
    assert message in one_line_error(result)
    assert "Banco is running" not in result.stdout


def test_ctrl_c_while_the_command_loads_ends_quietly_with_130():
    """The Ctrl-C lands while `service.cli.main` and what it imports still load (the first
    few tenths of a second of any command): here raised by that import itself."""
    interrupted = (
        "import builtins\n"
        "real = builtins.__import__\n"
        "def loading(name, *args, **kwargs):\n"
        "    if name == 'service.cli.main':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = loading\n"
        "from service.cli import entry\n"
        "entry()\n")
    result = subprocess.run([sys.executable, "-c", interrupted], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 130 and "Traceback" not in result.stderr, result.stderr


INTERRUPTED_EXPORT = """
import contextlib, sys
import service.cli.main as main
real = main.written

class Interrupted:
    def write(self, chunk):
        raise KeyboardInterrupt  # Ctrl-C as the export writes its first rows

@contextlib.contextmanager
def written(path):
    with real(path):
        yield Interrupted()

from psycopg import waiting
real_wait, waits = waiting.wait, [0]
at = int(sys.argv[1].partition(":")[2] or 0)

def interrupted_wait(gen, *args, **kwargs):
    # Ctrl-C where a command spends its time: waiting on the server.
    waits[0] += 1
    if waits[0] == at:
        raise KeyboardInterrupt
    return real_wait(gen, *args, **kwargs)

if sys.argv[1].startswith("read"):
    waiting.wait = interrupted_wait
else:
    main.written = written
sys.argv = ["banco", *sys.argv[2:]]
from service.cli import entry
entry()
"""


@pytest.mark.parametrize("fmt", ["csv", "ndjson"])
@pytest.mark.parametrize("where", ["read:2", "read:3", "read:4", "write"])
def test_ctrl_c_during_an_export_ends_quietly_and_leaves_nothing(env, clitest, tmp_path, fmt, where):
    """A Ctrl-C as the export waits on the server (its `where`-th wait: the player's check, the
    count, the transaction's start, its rows) or writes ends it with `Aborted!` and no file.
    Landing inside the export's transaction, it made psycopg's `with` try a rollback there and
    print "error ignored in rollback" (`read:3`, the ndjson reader's transaction starting)."""
    out = tmp_path / f"history.{fmt}"
    result = subprocess.run([sys.executable, "-c", INTERRUPTED_EXPORT, where, "export", "balance-history",
                             "--player", clitest, "--format", fmt, "-o", str(out)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and result.stderr.strip().endswith("Aborted!"), result.stderr
    assert "error ignored" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_verify_json_prints_json_lines_only(env, clitest, tmp_path):
    """`--json` is one JSON report a line on stdout, the log's comparison with a checkpoint
    too; the counts go to stderr, where they do not break a reader of the lines."""
    digest = tmp_path / "digest.json"
    assert banco("checkpoint", "-o", str(digest), env=env).returncode == 0
    result = banco("verify", "--all", "--json", "--against", str(digest), env=env)
    assert result.returncode == 0, result.stderr
    reports = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert reports[0]["against"] == str(digest) and reports[0]["passed"] is True
    assert "hands passed every check" in result.stderr
    assert "disputes' corrections hold" in result.stderr
