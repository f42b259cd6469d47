"""The restore drill of docs/operations.md, run on a PostgreSQL of its own on loopback with
Debian's pgBackRest (`./quickstart test` installs it as root): play, take a base backup with
its WAL archived, play and erase, restore to a point between, and check what came back.

A restore to a point before an erasure brings the erased player's key back with the database,
and one before a revocation the revoked token; the erasure journal, kept outside it, is what
erases him again and revokes the token again (`banco erasures reapply`)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from projections import migrate
from service.runtime.config import Config
from tests.service.conftest import OPERATOR, ROOT, app_on, register
from tests.service.play import Session
from tests.service.test_timeouts import stop_group
from tests.test_cli import free_port

STANZA = "banco"


def postgres_bin() -> Path:
    """Debian's PostgreSQL programs (initdb, pg_ctl) of the newest version installed."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda p: int(p.parts[-3]))
    assert found, "PostgreSQL's server programs are not installed (Debian's postgresql)"
    return found[-1].parent


class Cluster:
    """A PostgreSQL cluster of the test's own, archiving its WAL to a pgBackRest repository.

    As root, PostgreSQL and pgBackRest run as the `postgres` user (initdb refuses root), which
    must own the folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        self.bin = postgres_bin()
        self.config = root / "pgbackrest.conf"
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/banco"
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def run(self, *command: str | Path) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*self.as_postgres, *map(str, command)], capture_output=True,
                              text=True, timeout=180)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        return done

    def backrest(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run("pgbackrest", f"--config={self.config}", f"--stanza={STANZA}", *args)

    def create(self) -> None:
        assert shutil.which("pgbackrest"), \
            "pgBackRest is not installed: ./quickstart test installs it as root"
        for folder in ("sock", "repo", "log", "lock", "spool"):
            (self.root / folder).mkdir()
        self.config.write_text(
            "[global]\n"
            f"repo1-path={self.root / 'repo'}\nrepo1-retention-full=2\n"
            f"log-path={self.root / 'log'}\nlock-path={self.root / 'lock'}\n"
            f"spool-path={self.root / 'spool'}\n"
            "start-fast=y\ncompress-type=none\nlog-level-console=warn\nlog-level-file=off\n"
            f"[{STANZA}]\npg1-path={self.data}\npg1-port={self.port}\n"
            f"pg1-socket-path={self.root / 'sock'}\npg1-user=postgres\n")
        if self.as_postgres:
            owner = pwd.getpwnam("postgres")
            for path in [self.root, *self.root.rglob("*")]:
                os.chown(path, owner.pw_uid, owner.pw_gid)
        self.run(self.bin / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                f"unix_socket_directories = '{self.root / 'sock'}'\n"
                "wal_level = replica\narchive_mode = on\n"
                f"archive_command = 'pgbackrest --config={self.config} --stanza={STANZA}"
                " archive-push %p'\n"
                "fsync = off\nshared_buffers = 32MB\n")
        self.start()
        with psycopg.connect(self.url.replace("/banco", "/postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE banco")
        with psycopg.connect(self.url, autocommit=True) as conn:
            migrate.upgrade(conn)
        self.backrest("stanza-create")
        self.backrest("check")

    def start(self) -> None:
        self.run(self.bin / "pg_ctl", "-D", self.data, "-l", self.root / "log" / "server.log",
                 "-w", "start")

    def stop(self) -> None:
        self.run(self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    # Not pytest's tmp_path: its folders are root's alone, and PostgreSQL runs as `postgres`.
    root = Path(tempfile.mkdtemp(prefix="banco-drill-"))
    cluster = Cluster(root)
    try:
        cluster.create()
        yield cluster
    finally:
        if cluster.running():
            with contextlib.suppress(AssertionError):
                cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def worker(config: Config) -> Iterator[None]:
    env = {**os.environ, "DATABASE_URL": config.database_url, "REDIS_URL": config.redis_url,
           "BANCO_QUEUE": config.queue_name}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=ROOT, env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        stop_group(proc)


def banco(cluster: Cluster, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=300,
                          env={**os.environ, "DATABASE_URL": cluster.url})


def settled_hand(session: Session) -> str:
    hand_id = session.deal()
    session.play_hand()
    session.wait_settled(hand_id)
    return hand_id


def test_a_restore_to_a_point_before_an_erasure_erases_again_and_checks_clean(
        cluster: Cluster, config: Config) -> None:
    journal = cluster.root / "erasures.jsonl"
    on_cluster = dataclasses.replace(config, database_url=cluster.url, erasure_journal=journal,
                                     queue_name=f"{config.queue_name}-drill")
    with app_on(on_cluster) as app, worker(on_cluster):
        client = app.test_client()
        players = [register(client, name, 500) for name in ("Ann", "Bob", "Cid")]
        ann, bob, cid = players
        session = Session(client, "sette-e-mezzo", players)
        session.open({}, 50)
        first = settled_hand(session)

        cluster.backrest("backup", "--type=full")

        second = settled_hand(session)
        with psycopg.connect(cluster.url, autocommit=True) as conn:
            conn.execute("SELECT pg_create_restore_point('drill')")
        # After the restore point: an erasure, a revocation and a deposit, which the restore
        # takes back.
        r = client.post(f"/v1/players/{ann.id}/erasure", headers=OPERATOR)
        assert r.status_code == 200 and r.json["name"] is None, r.json
        assert client.delete(f"/v1/players/{cid.id}/token", headers=OPERATOR).status_code == 204
        client.post(f"/v1/players/{bob.id}/deposits", json={"amount": 7, "reason": "late"},
                    headers=OPERATOR)
        bob_after = client.get(f"/v1/players/{bob.id}/balance", headers=OPERATOR).json["balance"]
    # The erasure was kept outside the database before it committed.
    assert [line for line in journal.read_text().splitlines() if ann.id in line]
    cluster.backrest("check")  # switches to a new WAL file and waits for its archiving
    cluster.stop()

    cluster.backrest("restore", "--delta", "--type=name", "--target=drill",
                     "--target-action=promote")
    cluster.start()
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        for _ in range(100):
            if not conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
                break
            time.sleep(0.1)
        statuses = dict(conn.execute("SELECT hand_id, status FROM hands").fetchall())
        assert statuses == {first: "settled", second: "settled"}
        # Back to the restore point: Ann's key and name are back, Bob's late deposit is gone.
        assert conn.execute("SELECT count(*) FROM player_keys WHERE player_id = %s",
                            (ann.id,)).fetchone() == (1,)
        assert conn.execute("SELECT erased_at FROM players WHERE player_id = %s",
                            (ann.id,)).fetchone() == (None,)
        [bob_restored] = conn.execute("SELECT balance FROM balances WHERE account = %s",
                                      (f"wallet:{bob.id}",)).fetchone()
        assert bob_restored == bob_after - 7

    done = banco(cluster, "erasures", "reapply", "--journal", str(journal))
    assert done.returncode == 0, done.stderr
    assert f"erased again: {ann.id}" in done.stdout
    assert "1 erased again, 0 already erased, 0 not in the database" in done.stdout
    assert "1 tokens or keys revoked again, 0 keys' secrets replaced" in done.stdout, done.stdout
    with app_on(dataclasses.replace(on_cluster, erasure_journal=None)) as app:
        client = app.test_client()
        erased = client.get(f"/v1/players/{ann.id}", headers=OPERATOR).json
        assert erased["name"] is None and erased["erased"] is True, erased
        assert client.get(f"/v1/players/{bob.id}", headers=OPERATOR).json["name"] == "Bob"
        # His token is revoked again: the restore had brought it back.
        r = client.get(f"/v1/players/{ann.id}/balance", headers=ann.auth)
        assert r.status_code == 401, r.json
        # So is Cid's, revoked after the restore point: the restore had brought it back too.
        r = client.get(f"/v1/players/{cid.id}/balance", headers=cid.auth)
        assert r.status_code == 401, r.json
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM player_keys WHERE player_id = %s",
                            (ann.id,)).fetchone() == (0,)
        [erasures] = conn.execute("SELECT count(*) FROM events WHERE type = 'PlayerErased'"
                                  " AND data->>'player_id' = %s", (ann.id,)).fetchone()
        assert erasures == 1

    again = banco(cluster, "erasures", "reapply", "--journal", str(journal))
    assert "0 erased again, 1 already erased" in again.stdout, again.stdout
    assert "0 tokens or keys revoked again, 0 keys' secrets replaced, 1 not valid" in again.stdout

    verified = banco(cluster, "verify", "--all")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    checked = banco(cluster, "projections", "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "projections agree with the log" in checked.stdout


def test_a_journal_missing_or_not_of_erasures_is_a_plain_error(tmp_path: Path) -> None:
    def reapply(journal: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "service.cli", "erasures", "reapply",
                               "--journal", str(journal)], cwd=ROOT, text=True,
                              capture_output=True, timeout=60)

    missing = reapply(tmp_path / "nowhere.jsonl")
    assert missing.returncode == 2 and "no erasure journal at" in missing.stderr
    assert "Traceback" not in missing.stderr
    garbled = tmp_path / "erasures.jsonl"
    garbled.write_text("not json\n")
    done = reapply(garbled)
    assert done.returncode == 1 and "line 1: not a journal entry" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_with_no_erasure_yet_the_list_is_empty_and_reapply_has_nothing_to_do(tmp_path: Path) -> None:
    """The journal is made by the first erasure: none at its default place is no erasure, not an
    error; one named with --journal must exist."""
    from datetime import UTC, datetime

    from service.application.erasure_journal import Erasure
    from service.application.file_erasure_journal import FileJournal

    data = tmp_path / "data"
    # No servers either: with nothing to reapply, none is needed.
    env = {**{k: v for k, v in os.environ.items()
              if k not in ("BANCO_ERASURE_JOURNAL", "DATABASE_URL", "REDIS_URL")},
           "BANCO_DATA_DIR": str(data)}

    def erasures(*args: str, **settings: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "service.cli", "erasures", *args], cwd=ROOT,
                              text=True, capture_output=True, timeout=60, env={**env, **settings})

    listed = erasures("list")
    assert listed.returncode == 0, listed.stderr
    # The journal keeps retired tokens and keys too: the message says so (it spoke of erasures).
    assert listed.stdout == ""
    assert "no erasure or retired credential journaled in" in listed.stderr
    done = erasures("reapply")
    assert done.returncode == 0, done.stderr
    assert "nothing to reapply: no erasure or retired credential was journaled" in done.stdout
    assert "--journal FILE" in done.stderr and "Traceback" not in done.stderr
    # BANCO_ERASURE_JOURNAL names where the API makes it, at its first erasure.
    named = erasures("list", BANCO_ERASURE_JOURNAL=str(tmp_path / "journal" / "erasures.jsonl"))
    assert named.returncode == 0 and named.stdout == "", named.stderr
    assert not data.exists()

    FileJournal(data / "erasures.jsonl").record(
        Erasure("pl_gone", "op_1", datetime(2026, 11, 27, 14, 5, tzinfo=UTC)))
    listed = erasures("list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == "2026-11-27T14:05:00+00:00  pl_gone  by op_1\n"
    missing = erasures("list", "--journal", str(tmp_path / "nowhere.jsonl"))
    assert missing.returncode == 2 and "no erasure journal at" in missing.stderr
