"""Reads from a real streaming replica: a primary and a standby of the machine's PostgreSQL 15,
started here on loopback (`initdb`, then `pg_basebackup -R`), each in a folder of its own.

The replica is made to lag by pausing its replay (`pg_wal_replay_pause()`): a reader with no
write of his own then sees the replica's older view, while a writer still reads his write.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient

from projections import migrate
from service.runtime.config import Config
from service.runtime.replica import Replica
from tests.games.test_sevenhalf_properties import concrete
from tests.service.conftest import OPERATOR, OPERATOR_KEY, Player, app_on, bearer

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _as_postgres(*command: str) -> list[str]:
    """PostgreSQL refuses to run as root: the servers run as `postgres` when the tests are root."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else list(command)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(*command: str) -> None:
    subprocess.run(_as_postgres(*command), check=True, capture_output=True)


@dataclass
class Servers:
    primary: str
    standby: str
    standby_data: str


@pytest.fixture(scope="module")
def pair() -> Iterator[Servers]:
    """A primary (`wal_level=replica`) and its streaming standby, each on a free loopback port
    with its socket in the module's temporary folder; stopped and removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="banco-replica-"))
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres", "postgres")
    primary, standby = tmp / "primary", tmp / "standby"
    ports = _free_port(), _free_port()
    started: list[Path] = []
    try:
        _run(str(PG_BIN / "initdb"), "-D", str(primary), "-U", "postgres", "-A", "trust",
             "--no-sync", "-E", "UTF8")
        with open(primary / "postgresql.conf", "a") as conf:
            conf.write(f"listen_addresses = '127.0.0.1'\nport = {ports[0]}\n"
                       f"unix_socket_directories = '{tmp}'\nwal_level = replica\nfsync = off\n")
        with open(primary / "pg_hba.conf", "a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        _run(str(PG_BIN / "pg_ctl"), "-D", str(primary), "-l", str(tmp / "primary.log"), "-w",
             "start")
        started.append(primary)
        primary_url = f"postgresql://postgres@127.0.0.1:{ports[0]}/postgres"
        with psycopg.connect(primary_url, autocommit=True) as conn:
            migrate.upgrade(conn)  # on the primary only: the standby replays them
        _run(str(PG_BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(ports[0]), "-U",
             "postgres", "-D", str(standby), "-R", "-X", "stream", "-c", "fast", "--no-sync")
        with open(standby / "postgresql.conf", "a") as conf:
            conf.write(f"port = {ports[1]}\n")  # the last setting of a name is the one read
        _run(str(PG_BIN / "pg_ctl"), "-D", str(standby), "-l", str(tmp / "standby.log"), "-w",
             "start")
        started.append(standby)
        yield Servers(primary_url, f"postgresql://postgres@127.0.0.1:{ports[1]}/postgres",
                      str(standby))
    finally:
        for data in reversed(started):
            with contextlib.suppress(subprocess.CalledProcessError):
                _run(str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def app(pair: Servers, redis_url: str) -> Iterator[Flask]:
    config = Config(database_url=pair.primary, redis_url=redis_url, operator_key=OPERATOR_KEY,
                    pool_size=4, queue_name=f"banco-test-replica-{os.getpid()}",
                    rate_limit="1000000/minute", replica_url=pair.standby,
                    replica_wait_ms=200)
    with app_on(config) as app:
        yield app
        replica(app).close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def replica(app: Flask) -> Replica:
    return app.extensions["banco.replica"]


@contextlib.contextmanager
def served(app: Flask, replica_reads: int, primary_reads: int) -> Iterator[None]:
    """Check that the block's reads were given to the replica and the primary as many times."""
    before = dict(replica(app).served)
    yield
    after = replica(app).served
    assert (after["replica"] - before["replica"], after["primary"] - before["primary"]) == (
        replica_reads, primary_reads)


def caught_up(pair: Servers) -> None:
    """Wait until the standby has replayed everything the primary has written so far."""
    with psycopg.connect(pair.primary, autocommit=True) as conn:
        row = conn.execute("SELECT pg_current_wal_insert_lsn()").fetchone()
    with psycopg.connect(pair.standby, autocommit=True) as conn:
        for _ in range(1000):
            done = conn.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", row).fetchone()
            if done and done[0]:
                return
            time.sleep(0.01)
    raise AssertionError("the standby did not catch up")


@contextlib.contextmanager
def replay_paused(pair: Servers) -> Iterator[None]:
    """The standby replays nothing in the block: it lags behind every write made there."""
    caught_up(pair)
    with psycopg.connect(pair.standby, autocommit=True) as conn:
        conn.execute("SELECT pg_wal_replay_pause()")
        while conn.execute("SELECT pg_get_wal_replay_pause_state()").fetchone() != ("paused",):
            time.sleep(0.01)
        try:
            yield
        finally:
            conn.execute("SELECT pg_wal_replay_resume()")


def new_player(client: FlaskClient, deposit: int) -> Player:
    r = client.post("/v1/players", json={"name": "Ada"}, headers=OPERATOR)
    player = Player(r.json["player"]["id"], r.json["token"])
    deposit_to(client, player, deposit)
    return player


def deposit_to(client: FlaskClient, player: Player, amount: int) -> None:
    r = client.post(f"/v1/players/{player.id}/deposits", json={"amount": amount, "reason": "desk"},
                    headers=OPERATOR)
    assert r.status_code == 201, r.json


def amounts(client: FlaskClient, player: Player, auth: dict[str, str]) -> list[int]:
    r = client.get(f"/v1/players/{player.id}/balance-history", headers=auth)
    assert r.status_code == 200, r.json
    return sorted(item["amount"] for item in r.json["items"])


def csv_rows(client: FlaskClient, player: Player, auth: dict[str, str]) -> int:
    r = client.get(f"/v1/players/{player.id}/balance-history",
                   headers={**auth, "Accept": "text/csv"})
    assert r.status_code == 200
    return len(r.get_data(as_text=True).splitlines()) - 1  # the header line


def test_migrations_ran_on_the_primary_and_reached_the_standby(app: Flask, pair: Servers,
                                                               client: FlaskClient) -> None:
    assert client.get("/readyz").status_code == 200
    with psycopg.connect(pair.standby, autocommit=True) as conn:
        assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,)
        assert conn.execute("SELECT count(*) FROM players").fetchone() is not None


def test_a_reader_sees_the_replicas_view_and_the_writer_his_own_write(
        app: Flask, pair: Servers, client: FlaskClient) -> None:
    player = new_player(client, 100)
    with replay_paused(pair):
        deposit_to(client, player, 7)  # the operator's write: on the primary, the replica paused
        # The player wrote nothing: the balance history, its export and its chart come from the
        # replica at once, which has not replayed the deposit. (The export reads the player from
        # one replica connection and streams from another, of the exports' pool.)
        with served(app, replica_reads=4, primary_reads=0):
            assert amounts(client, player, player.auth) == [100]
            assert csv_rows(client, player, player.auth) == 1
            chart = client.get(f"/v1/players/{player.id}/balance-history.svg", headers=player.auth)
            assert chart.status_code == 200 and "last 100;" in chart.get_data(as_text=True)
        # The operator wrote it: his reads wait for the replica, in vain, then go to the primary.
        with served(app, replica_reads=0, primary_reads=2):
            assert amounts(client, player, OPERATOR) == [7, 100]
            assert csv_rows(client, player, OPERATOR) == 2
    caught_up(pair)
    with served(app, replica_reads=1, primary_reads=0):
        assert amounts(client, player, player.auth) == [7, 100]


def test_the_writer_waits_for_the_replica_to_replay_his_write(
        app: Flask, pair: Servers, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    player = new_player(client, 100)
    monkeypatch.setattr(replica(app), "wait_s", 30.0)
    seen: list[list[int]] = []
    with served(app, replica_reads=1, primary_reads=0):
        with replay_paused(pair):
            deposit_to(client, player, 5)
            reader = threading.Thread(
                target=lambda: seen.append(amounts(app.test_client(), player, OPERATOR)))
            reader.start()
            time.sleep(0.3)  # the read is waiting for the replica, which replays nothing yet
            assert reader.is_alive()
        reader.join()  # replay resumed: the replica has his deposit, and serves the read
    assert seen == [[5, 100]]


def test_a_new_player_is_read_from_the_primary_until_the_replica_has_him(
        app: Flask, pair: Servers, client: FlaskClient) -> None:
    with replay_paused(pair):
        player = new_player(client, 30)
        # He wrote nothing, but the replica does not know him yet: not a 404, the primary's view.
        with served(app, replica_reads=1, primary_reads=0):
            assert amounts(client, player, player.auth) == [30]


def _sette(client: FlaskClient) -> tuple[str, str, list[Player]]:
    players = [new_player(client, 100) for _ in range(2)]
    r = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {"max_bet": 20}},
                    headers=OPERATOR)
    table_id = r.json["id"]
    for p in players:
        assert client.post(f"/v1/tables/{table_id}/seats", json={"buy_in": 50},
                           headers=p.auth).status_code == 201
    r = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
    return table_id, r.json["hand"]["id"], players


def _act(client: FlaskClient, table_id: str, players: list[Player]) -> tuple[Player, int]:
    """Someone with a legal action takes it; who, and the table's version after it."""
    for p in players:
        table = client.get(f"/v1/tables/{table_id}", headers=p.auth).json
        if table["legal_actions"]:
            action = concrete(table["legal_actions"][0], random.Random(1))
            r = client.post(f"/v1/tables/{table_id}/actions", json=action, headers={
                **p.auth, "If-Match": f'"{table["version"]}"'})
            assert r.status_code == 200, r.json
            return p, int(r.json["version"])
    raise AssertionError("nobody may act")


def test_events_replays_and_verification_read_the_replica_while_notices_come_from_the_primary(
        app: Flask, pair: Servers, client: FlaskClient) -> None:
    auditor = bearer(client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"])
    table_id, hand_id, players = _sette(client)
    events = f"/v1/tables/{table_id}/events"
    caught_up(pair)
    before = client.get(f"/v1/hands/{hand_id}/replay", headers=auditor).json["steps"]
    with replay_paused(pair):
        actor, version = _act(client, table_id, players)  # a write while the replica is paused
        # The auditor wrote nothing: the replica's view, without the action.
        with served(app, replica_reads=3, primary_reads=0):
            page = client.get(events, headers=auditor).json
            assert page["version"] < version
            assert client.get(f"/v1/hands/{hand_id}/replay", headers=auditor).json[
                "steps"] == before
            assert client.get(f"/v1/hands/{hand_id}/verification", headers=auditor).status_code == 200
        # The actor reads his action, from the primary once the wait is over.
        with served(app, replica_reads=0, primary_reads=1):
            assert client.get(events, headers=actor.auth).json["version"] == version
        # A version the replica has not reached, a long poll for what follows it: the page is the
        # primary's, and the news comes by the primary's notices.
        got: list[dict[str, Any]] = []
        poll = threading.Thread(target=lambda: got.append(app.test_client().get(
            events, query_string={"after": version, "wait": 20}, headers=auditor).json))
        poll.start()
        time.sleep(0.3)
        _, latest = _act(client, table_id, players)
        poll.join()
        news = [e["version"] for e in got[0]["items"]]
        assert news and news[-1] == latest and min(news) > version
    caught_up(pair)
    after = client.get(f"/v1/hands/{hand_id}/replay", headers=auditor).json["steps"]
    assert len(after) > len(before)


def test_reads_go_to_the_primary_while_the_replica_is_away(app: Flask, pair: Servers,
                                                           client: FlaskClient) -> None:
    """Last in the module: it stops the standby."""
    player = new_player(client, 40)
    caught_up(pair)
    assert amounts(client, player, player.auth) == [40]  # a replica connection, kept by its pool
    _run(str(PG_BIN / "pg_ctl"), "-D", pair.standby_data, "-m", "fast", "-w", "stop")
    with served(app, replica_reads=0, primary_reads=3):
        assert amounts(client, player, player.auth) == [40]  # the kept connection is broken
        assert csv_rows(client, player, player.auth) == 1  # and none can be made: away for a while
        assert amounts(client, player, player.auth) == [40]
