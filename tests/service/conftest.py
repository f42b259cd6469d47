"""An app on the session's real PostgreSQL and Redis, and helpers to call it as each role."""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient

from events.catalog import default_types
from events.postgres import PostgresEventStore, make_pool
from service.http.app import create_app
from service.runtime import embedded, house_key
from service.runtime.config import Config, WorkerConfig
from tests.service.responses import CheckedClient
from workers import context

OPERATOR_KEY = "test-operator-key-0123456789"
ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def jobs_on(config: Config, **settings: Any) -> Iterator[context.Resources]:
    """The worker's resources installed in this process, on `config`'s database and with
    `settings` changed, so that a test calls the jobs' functions itself."""
    with context.installed(replace(WorkerConfig.of(config), **settings)) as resources:
        yield resources


@contextmanager
def banco_serve(config: Config, *args: str, **settings: str) -> Iterator[int]:
    """`banco serve` on the session's servers, started with `args` and the `settings` (its
    environment's `BANCO_...`) given, until the block ends: its port."""
    from tests.test_cli import free_port, wait_ready

    port = free_port()
    env = {**os.environ, "DATABASE_URL": config.database_url, "REDIS_URL": config.redis_url,
           "BANCO_OPERATOR_KEY": config.operator_key,
           **({"BANCO_HOUSE_KEY_FILE": str(config.house_key_file)} if config.house_key_file else {}),
           **settings}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--bind",
                             f"127.0.0.1:{port}", *args], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/healthz", time.monotonic() + 60)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="session")
def house_key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The house's signing key of the session's apps, generated as `banco run` does."""
    path = tmp_path_factory.mktemp("house") / "house_key.pem"
    house_key.ensure(path)
    return path


@pytest.fixture(scope="session")
def config(database_url: str, redis_url: str, house_key_file: Path) -> Config:
    # A queue of the session's own, so tests never take jobs from (or give jobs to) anyone else.
    return Config(database_url=database_url, redis_url=redis_url, operator_key=OPERATOR_KEY,
                  max_body_bytes=4096, pool_size=20, queue_name=f"banco-test-{os.getpid()}",
                  rate_limit="1000000/minute",  # the limits have tests of their own
                  # Webhook receivers in the tests are on loopback, a range refused unless allowed.
                  webhook_allow_networks=(ipaddress.ip_network("127.0.0.1/32"),),
                  house_key_file=house_key_file)


@contextmanager
def app_on(config: Config) -> Iterator[Flask]:
    """The app on `config`, in testing mode; its pools closed afterwards."""
    app = create_app(config)
    app.config["TESTING"] = True
    app.test_client_class = CheckedClient
    try:
        yield app
    finally:
        app.extensions["banco.export_pool"].close()
        app.extensions["banco.pool"].close()


@pytest.fixture(scope="session")
def app(config: Config) -> Iterator[Flask]:
    with app_on(config) as app:
        yield app


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


OPERATOR = bearer(OPERATOR_KEY)


@dataclass
class Player:
    id: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return bearer(self.token)


def register(client: FlaskClient, name: str = "Ada", deposit: int = 0) -> Player:
    """A player registered by the operator through `client`'s app, with `deposit` in his wallet."""
    r = client.post("/v1/players", json={"name": name}, headers=OPERATOR)
    assert r.status_code == 201, r.json
    player = Player(r.json["player"]["id"], r.json["token"])
    if deposit:
        r = client.post(f"/v1/players/{player.id}/deposits",
                        json={"amount": deposit, "reason": "seed"}, headers=OPERATOR)
        assert r.status_code == 201, r.json
    return player


@pytest.fixture
def new_player(client: FlaskClient) -> Any:
    return lambda name="Ada", deposit=0: register(client, name, deposit)


@pytest.fixture(scope="module")
def lone_redis() -> Iterator[str]:
    """A Redis of the module's own, which its tests may flush without harming anyone."""
    with tempfile.TemporaryDirectory(prefix="banco-redis-") as tmp:
        url, server = embedded.start_redis(Path(tmp))
        try:
            yield url
        finally:
            server.shutdown()


@contextmanager
def running_worker(config: Config, **extra_env: str) -> Iterator[subprocess.Popen[bytes]]:
    """A real worker process on the session's queue, with `extra_env` added to its environment."""
    env = {**os.environ, "DATABASE_URL": config.database_url, "REDIS_URL": config.redis_url,
           "BANCO_QUEUE": config.queue_name, **extra_env}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=ROOT, env=env,
                            start_new_session=True)
    try:
        yield proc
    finally:
        from tests.service.test_timeouts import stop_group

        stop_group(proc)


@pytest.fixture(scope="module")
def worker(config) -> Iterator[subprocess.Popen[bytes]]:
    """A real worker process on the session's queue, for the tests of one module.

    Not for the whole session: the timeout tests start, kill and starve workers of their own.
    """
    with running_worker(config) as proc:
        yield proc


@pytest.fixture(scope="module")
def played(app, worker) -> dict[str, Any]:
    """One settled hand of Sette e mezzo whose settlement moves treasure (the tamper tests edit
    its postings; a hand where every player busted settles with none, so deal again)."""
    from tests.service.play import Session

    client = app.test_client()
    players = []
    for i in range(3):
        r = client.post("/v1/players", json={"name": f"V{i}"}, headers=OPERATOR)
        player = Player(r.json["player"]["id"], r.json["token"])
        client.post(f"/v1/players/{player.id}/deposits", json={"amount": 1000, "reason": "seed"},
                    headers=OPERATOR)
        players.append(player)
    # A table of its own for each try: the tests take the hand to be its table's only one.
    for _ in range(20):
        session = Session(client, "sette-e-mezzo", players)
        session.open({}, 50)
        hand_id = session.deal()
        session.play_hand()
        if session.wait_settled(hand_id)["postings"]:
            break
    return {"hand": hand_id, "stream": f"table-{session.table_id}", "players": players}


# The handlers' tests on PostgreSQL with no app (test_player_commands.py, test_token_commands.py):
# a store on the session's database, and a connection of it.
@pytest.fixture(scope="module")
def store(database_url: str) -> Iterator[PostgresEventStore]:
    pool = make_pool(database_url, max_size=2)
    try:
        yield PostgresEventStore(pool, default_types())
    finally:
        pool.close()


@pytest.fixture
def conn(store: PostgresEventStore) -> Iterator[psycopg.Connection]:
    with store.pool.connection() as c:
        yield c


@pytest.fixture(autouse=True)
def streams_held_to_the_document() -> Iterator[None]:
    """A test whose streams received a message the document does not describe fails, even when
    the stream was read in a thread of its own."""
    CheckedClient.stream_problems.clear()
    yield
    wrong = list(CheckedClient.stream_problems)
    CheckedClient.stream_problems.clear()
    assert not wrong, "a stream's message is not as openapi.yaml says:\n" + "\n".join(wrong[:20])
