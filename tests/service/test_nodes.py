"""Two API nodes and two workers on one PostgreSQL and one Redis, as a deployment runs them
(docs/scaling.md): separate `banco serve` processes on ports of their own and separate
`banco worker`s, on a database and queue of the module's own. Whatever one node does, the other
sees: the nodes share no memory, only the servers."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import groupby, pairwise
from typing import Any

import httpx
import psycopg
import pytest

from service.runtime import embedded
from service.runtime.config import Config
from tests.conftest import fresh_database
from tests.service.conftest import OPERATOR, ROOT
from tests.service.test_timeouts import FAST, wait_for, worker_process
from tests.test_cli import free_port, wait_ready
from workers.queues import webhook_lane

LIMIT = 240  # each caller's requests a minute, counted once for both nodes


@dataclass
class Cluster:
    config: Config
    nodes: list[httpx.Client]

    def player(self, name: str, deposit: int = 0) -> tuple[str, dict[str, str]]:
        """A new player (made on the first node): his id and his Authorization header."""
        r = self.nodes[0].post("/v1/players", json={"name": name}, headers=OPERATOR)
        assert r.status_code == 201, r.text
        player_id, token = r.json()["player"]["id"], r.json()["token"]
        if deposit:
            r = self.nodes[1].post(f"/v1/players/{player_id}/deposits",
                                   json={"amount": deposit, "reason": "seed"}, headers=OPERATOR)
            assert r.status_code == 201, r.text
        return player_id, {"Authorization": f"Bearer {token}"}

    def table(self, players: list[dict[str, str]], options: dict[str, Any]) -> str:
        """A Sette e mezzo table with `players` seated, each through a node in turn."""
        r = self.nodes[1].post("/v1/tables", json={"game": "sette-e-mezzo", "options": options},
                               headers=OPERATOR)
        assert r.status_code == 201, r.text
        table_id = str(r.json()["id"])
        for i, auth in enumerate(players):
            r = self.nodes[i % 2].post(f"/v1/tables/{table_id}/seats", headers=auth,
                                       json={"age": 20 + 7 * i, "seed": f"seed-{i}", "buy_in": 20})
            assert r.status_code == 201, r.text
        return table_id

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.config.database_url) as conn:
            return conn.execute(sql, args).fetchall()


@contextlib.contextmanager
def serve(config: Config, port: int) -> Iterator[subprocess.Popen[bytes]]:
    """`banco serve` on `config`'s servers and queue, on `port`."""
    env = {**os.environ, "DATABASE_URL": config.database_url, "REDIS_URL": config.redis_url,
           "BANCO_OPERATOR_KEY": config.operator_key, "BANCO_QUEUE": config.queue_name,
           "BANCO_RATE_LIMIT": f"{LIMIT}/minute"}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--bind",
                             f"127.0.0.1:{port}", "--workers", "1", "--threads", "16"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def cluster(config: Config, servers: embedded.EmbeddedServers) -> Iterator[Cluster]:
    # A database of the module's own: the hands left in play here must not be timed out by
    # other modules' workers, whose sweepers read every table of their database.
    with fresh_database(servers.database_url, "banco_nodes") as url, contextlib.ExitStack() as stack:
        own = replace(config, database_url=url, queue_name=f"{config.queue_name}-nodes")
        ports = [free_port(), free_port()]
        for port in ports:
            stack.enter_context(serve(own, port))
        for _ in range(2):
            stack.enter_context(worker_process(own))
        nodes = [stack.enter_context(httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=20))
                 for port in ports]
        for port in ports:
            wait_ready(f"http://127.0.0.1:{port}/healthz", time.monotonic() + 60)
        # Both worker processes listed in Redis, as each node reports them: each runs a worker
        # on the queue and one on its webhooks' lane.
        for node in nodes:
            wait_for(lambda n=node: n.get("/readyz").json().get("checks", {}).get("workers")
                     == f"4 alive ({own.queue_name}: 2, {webhook_lane(own.queue_name)}: 2)",
                     timeout=60)
        yield Cluster(own, nodes)


def stream_until(node: httpx.Client, table_id: str, auth: dict[str, str], after: int,
                 event: str, opened: threading.Event, got: list[str]) -> None:
    """Follow the table's stream on `node` until `event` comes (its name lands in `got`)."""
    with node.stream("GET", f"/v1/tables/{table_id}/stream", headers=auth,
                     params={"after": after, "timeout": 15}) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if line == ": connected":
                opened.set()
            if line == f"event: {event}":
                got.append(event)
                return


def test_a_move_on_one_node_reaches_streams_on_both(cluster):
    a, b = cluster.nodes
    seated = [cluster.player(f"S{i}", deposit=50)[1] for i in range(2)]
    table_id = cluster.table(seated, {"turn_timeout_s": 60})
    version = a.get(f"/v1/tables/{table_id}", headers=OPERATOR).json()["version"]
    got: dict[int, list[str]] = {0: [], 1: []}
    opened = [threading.Event(), threading.Event()]
    followers = [threading.Thread(target=stream_until, args=(node, table_id, seated[i], version,
                                                              "HandBegan", opened[i], got[i]))
                 for i, node in enumerate((a, b))]
    for follower in followers:
        follower.start()
    assert all(o.wait(15) for o in opened)
    r = a.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)  # the deal, on the first node
    assert r.status_code == 201, r.text
    for follower in followers:
        follower.join(20)
    assert got == {0: ["HandBegan"], 1: ["HandBegan"]}


def test_each_deadline_fires_once_and_each_hand_settles_once(cluster):
    """Hands where nobody acts: every turn times out, fired by whichever worker's scheduler or
    sweeper comes first, and each finished hand is settled by one of the two workers."""
    hands = []
    for t in range(4):
        seated = [cluster.player(f"T{t}{i}", deposit=50)[1] for i in range(2)]
        table_id = cluster.table(seated, FAST)
        r = cluster.nodes[t % 2].post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
        assert r.status_code == 201, r.text
        hands.append((table_id, r.json()["hand"]["id"]))
    ids = [hand for _, hand in hands]
    wait_for(lambda: cluster.rows("SELECT count(*) FROM hands WHERE hand_id = ANY(%s)"
                                  " AND status = 'settled'", ids)[0][0] == len(ids), timeout=60)
    settled = cluster.rows("SELECT data->>'hand_id', count(*) FROM events WHERE type = 'HandSettled'"
                           " AND data->>'hand_id' = ANY(%s) GROUP BY 1", ids)
    assert sorted(settled) == sorted((hand, 1) for hand in ids)
    for table_id, _ in hands:
        events = cluster.rows("SELECT type, data, metadata, txid::text FROM events"
                              " WHERE stream_id = %s ORDER BY version", f"table-{table_id}")
        batches = [list(batch) for _, batch in groupby(events, key=lambda e: e[3])]
        deadlines = sum(1 for e in events if e[0] == "DeadlineSet")
        fired = 0
        for before, batch in pairwise(batches):
            command = batch[0][2].get("command")
            if not isinstance(command, dict) or command.get("name") != "TimeOut":
                continue
            fired += 1
            # The turn it ended is the one the batch before it set, and its time had come.
            kind, deadline, _, _ = before[-1]
            assert kind == "DeadlineSet"
            assert command["seat"] == deadline["seat"]
            assert command["now"] >= deadline["deadline"]
        assert deadlines > 0 and fired == deadlines  # nobody acted: every deadline fired, once


def test_an_idempotency_key_replays_across_nodes(cluster):
    player_id, _ = cluster.player("Idem")
    path, body = f"/v1/players/{player_id}/deposits", {"amount": 70, "reason": "twice sent"}
    headers = {**OPERATOR, "Idempotency-Key": f"nodes-{os.urandom(4).hex()}"}
    barrier, answers = threading.Barrier(2), [None, None]

    def send(i: int) -> None:
        barrier.wait()
        answers[i] = cluster.nodes[i].post(path, json=body, headers=headers)

    senders = [threading.Thread(target=send, args=(i,)) for i in range(2)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(30)
    later = cluster.nodes[0].post(path, json=body, headers=headers)
    responses = [*answers, later]
    assert [r.status_code for r in responses] == [201, 201, 201]
    assert sorted(r.headers.get("Idempotent-Replayed", "") for r in responses) == ["", "true", "true"]
    assert len({r.content for r in responses}) == 1
    balance = cluster.nodes[1].get(f"/v1/players/{player_id}/balance", headers=OPERATOR).json()
    assert balance["balance"] == 70


def test_the_rate_limit_is_shared_by_the_nodes(cluster):
    _, auth = cluster.player("Hasty")
    statuses = [cluster.nodes[i % 2].get("/v1/me", headers=auth).status_code
                for i in range(LIMIT + 10)]
    # Counted per node, each would take LIMIT: together they took LIMIT, not twice as many.
    assert statuses.count(200) == LIMIT
    assert set(statuses[LIMIT:]) == {429}
    assert [node.get("/v1/me", headers=auth).status_code for node in cluster.nodes] == [429, 429]


def test_a_revoked_token_stops_on_both_nodes(cluster):
    """Its requests are refused by both nodes, and the streams it opened on either end."""
    player_id, auth = cluster.player("Gone", deposit=50)
    other = cluster.player("Stays", deposit=50)[1]
    table_id = cluster.table([auth, other], {"turn_timeout_s": 60})
    assert [node.get("/v1/me", headers=auth).status_code for node in cluster.nodes] == [200, 200]
    ended: list[int] = []
    opened = [threading.Event(), threading.Event()]

    def follow(i: int) -> None:
        with cluster.nodes[i].stream("GET", f"/v1/tables/{table_id}/stream", headers=auth,
                                     params={"timeout": 600}) as r:
            for line in r.iter_lines():
                if line == ": connected":
                    opened[i].set()
        ended.append(i)

    followers = [threading.Thread(target=follow, args=(i,)) for i in range(2)]
    for follower in followers:
        follower.start()
    assert all(o.wait(15) for o in opened)
    r = cluster.nodes[0].delete(f"/v1/players/{player_id}/token", headers=OPERATOR)
    assert r.status_code == 204
    assert [node.get("/v1/me", headers=auth).status_code for node in cluster.nodes] == [401, 401]
    for follower in followers:
        follower.join(30)
    # Both streams ended, which they would not have for the ten minutes they were asked for.
    assert sorted(ended) == [0, 1]
