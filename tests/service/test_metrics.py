"""`GET /metrics`: what the API and the worker count moves as hands are played, the queue is read
from RQ when scraped, only the operator reads it, and under gunicorn one scrape adds up every
process's counts (two API processes and the worker)."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import requests
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families
from rq import SimpleWorker

from service.cli import metrics_dir
from service.http.app import create_app
from service.runtime import embedded
from tests.conftest import fresh_database
from tests.service.conftest import OPERATOR, Player, bearer, jobs_on
from tests.service.play import Session
from tests.test_cli import free_port, wait_ready
from workers import settlement, timeouts
from workers.queues import queue, webhook_lane

ROOT = Path(__file__).resolve().parents[2]
ACTIONS_ROUTE = "/v1/tables/<table_id>/actions"
REQUEST = "banco_http_request_duration_seconds"
GAME = "sette-e-mezzo"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    """Every sample of a scrape, by name and labels."""
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def scrape(client: Any) -> Samples:
    r = client.get("/metrics", headers=OPERATOR)
    assert r.status_code == 200 and r.mimetype == "text/plain"
    return parse(r.get_data(as_text=True))


def players(client: Any, n: int, prefix: str) -> list[Player]:
    made = []
    for i in range(n):
        r = client.post("/v1/players", json={"name": f"{prefix}{i}"}, headers=OPERATOR)
        assert r.status_code == 201, r.json
        player = Player(r.json["player"]["id"], r.json["token"])
        r = client.post(f"/v1/players/{player.id}/deposits", json={"amount": 100, "reason": "seed"},
                        headers=OPERATOR)
        assert r.status_code == 201, r.json
        made.append(player)
    return made


@pytest.fixture
def jobs_here(config) -> Iterator[None]:
    """This process runs the worker's jobs itself, on the session's database, so their counts
    are this process's."""
    with jobs_on(config):
        yield


def test_a_hand_played_moves_the_counters(client, jobs_here):
    before = scrape(client)
    session = Session(client, GAME, players(client, 3, "M"))
    session.open({}, 20)
    hand_id = session.deal()
    # The operator has no seat: refused, and timed under its status.
    r = client.post(f"/v1/tables/{session.table_id}/actions", json={"type": "stand"},
                    headers={**OPERATOR, "If-Match": '"1"'})
    assert r.status_code == 403
    session.play_hand()
    assert settlement.settle_hand(session.table_id, hand_id)
    after = scrape(client)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    acted = moved("banco_http_request_duration_seconds_count", method="POST", route=ACTIONS_ROUTE,
                  status="200")
    assert acted >= 3  # three players bet at least
    assert moved("banco_actions_total", game=GAME) == acted
    assert moved("banco_http_request_duration_seconds_count", method="POST", route=ACTIONS_ROUTE,
                 status="403") >= 1
    assert moved("banco_hands_dealt_total", game=GAME) == 1
    assert moved("banco_hands_settled_total", game=GAME) == 1
    assert moved("banco_settlement_lag_seconds_count") == 1
    assert moved("banco_settlement_lag_seconds_sum") > 0
    # One series per route: the table's id is not a label.
    assert not any(session.table_id in v for (_, labels) in after for _, v in labels)
    # Streams were opened and closed while the hand was played, and connections taken and
    # given back: none is left counted.
    assert value(after, "banco_open_streams") == 0
    assert value(after, "banco_db_pool_connections_in_use") == 0


def test_a_deadline_fired_late_is_observed(client, jobs_here):
    session = Session(client, GAME, players(client, 3, "L"))
    session.open({"turn_timeout_s": 1, "banker_timeout_s": 1}, 20)
    hand_id = session.deal()
    version = client.get(f"/v1/tables/{session.table_id}", headers=OPERATOR).json["version"]
    before = scrape(client)
    time.sleep(1.2)
    assert timeouts.fire(session.table_id, version) is not None
    after = scrape(client)
    assert value(after, "banco_deadline_lateness_seconds_count") == \
        value(before, "banco_deadline_lateness_seconds_count") + 1
    late = (value(after, "banco_deadline_lateness_seconds_sum")
            - value(before, "banco_deadline_lateness_seconds_sum"))
    assert 0 < late < 60
    # Played out by its timeouts and settled: no overdue turn is left for the workers of other
    # tests to fire. (A move could come after a one-second deadline here: a 409.)
    for _ in range(60):
        table = client.get(f"/v1/tables/{session.table_id}", headers=OPERATOR).json
        if table["status"] != "playing":
            break
        due = datetime.fromisoformat(table["turn"]["deadline"]).timestamp()
        time.sleep(max(0.0, due - time.time()) + 0.05)
        timeouts.fire(session.table_id, table["version"])
    assert settlement.settle_hand(session.table_id, hand_id)


def test_the_queue_and_its_failed_jobs_are_read_from_rq(config, tmp_path):
    app = create_app(replace(config, queue_name=f"banco-metrics-{uuid.uuid4().hex[:8]}"))
    try:
        name = app.config["BANCO"].queue_name
        q = queue(app.extensions["banco.redis"], name)
        q.enqueue(os.remove, str(tmp_path / "absent"))  # fails: the file is absent
        q.enqueue(os.remove, str(tmp_path / "absent-too"))
        client = app.test_client()
        waiting = scrape(client)
        assert value(waiting, "banco_queue_up", queue=name) == 1
        assert value(waiting, "banco_queue_jobs", queue=name, state="queued") == 2
        assert value(waiting, "banco_queue_jobs", queue=name, state="failed") == 0
        SimpleWorker([q], connection=q.connection).work(burst=True)
        done = scrape(client)
        assert value(done, "banco_queue_jobs", queue=name, state="queued") == 0
        assert value(done, "banco_queue_jobs", queue=name, state="failed") == 2
    finally:
        app.extensions["banco.pool"].close()


def test_only_the_operator_reads_the_metrics(client, new_player):
    anonymous = client.get("/metrics")
    assert anonymous.status_code == 401 and anonymous.mimetype == "application/problem+json"
    player = client.get("/metrics", headers=bearer(new_player("Nosy").token))
    assert player.status_code == 403 and player.json["code"] == "forbidden"
    auditor = client.post("/v1/auditors", json={"name": "m"}, headers=OPERATOR).json["token"]
    assert client.get("/metrics", headers=bearer(auditor)).status_code == 403
    # What Prometheus asks for: OpenMetrics first, the text format too, which it is given.
    prometheus = client.get("/metrics", headers={**OPERATOR, "Accept": (
        "application/openmetrics-text;version=1.0.0;escaping=underscores;q=0.6,"
        "text/plain;version=0.0.4;q=0.3,*/*;q=0.2")})
    assert prometheus.status_code == 200
    assert prometheus.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert "# TYPE banco_actions_total counter" in prometheus.get_data(as_text=True)


def test_methods_and_paths_a_client_makes_up_add_no_series(client):
    """Prometheus keeps a series for every value a label takes: `curl -X ZZPROBE1 /v1/tables`,
    no token needed, made a new one for each method a client made up. A method not of the usual
    seven is `other`, a path no rule matches `unmatched`: however many are sent, they land in
    the one series each status has."""
    def series(samples: Samples) -> set[frozenset[tuple[str, str]]]:
        return {labels for name, labels in samples if name == f"{REQUEST}_count"}

    made_up = [(f"ZZPROBE{i}", "/v1/tables") for i in range(5)]
    made_up += [(f"ZZPROBE{i}", f"/v1/nowhere-{i}") for i in range(5, 10)]
    made_up += [("GET", f"/v1/nowhere-{i}/{i}") for i in range(10, 15)]
    for method, path in [("ZZWARM", "/v1/tables"), ("ZZWARM", "/v1/nowhere"), ("GET", "/v1/nowhere")]:
        client.open(path, method=method)  # each kind's series made once
    scrape(client)  # and the scrape's own, timed once it has answered
    before = scrape(client)
    answered = [client.open(path, method=method).status_code for method, path in made_up]
    assert answered == [405] * 5 + [404] * 10
    after = scrape(client)
    assert series(after) == series(before)
    assert not any("nowhere" in v or "ZZ" in v for labels in series(after) for _, v in labels)

    def moved(method: str, status: str) -> float:
        labels = {"method": method, "route": "unmatched", "status": status}
        return value(after, f"{REQUEST}_count", **labels) - value(before, f"{REQUEST}_count", **labels)

    assert (moved("other", "405"), moved("other", "404"), moved("GET", "404")) == (5, 5, 5)


class Answer:
    """A `requests` response read as `tests.service.play.Session` reads a test client's."""

    def __init__(self, response: requests.Response) -> None:
        self.status_code = response.status_code
        self.headers = response.headers
        self.data = response.content
        self.mimetype = response.headers.get("Content-Type", "").split(";")[0]
        self.json = response.json() if response.content and "json" in self.mimetype else None

    def get_data(self, as_text: bool = False) -> Any:
        return self.data.decode() if as_text else self.data


class Http:
    """The parts of Flask's test client that a `Session` uses, over HTTP; every request on a
    connection of its own, so that gunicorn's processes share them."""

    def __init__(self, base: str) -> None:
        self.base = base

    def open(self, method: str, path: str, query_string: Any = None, **kwargs: Any) -> Answer:
        return Answer(requests.request(method, self.base + path, params=query_string, timeout=30,
                                       headers={"Connection": "close", **kwargs.pop("headers", {})},
                                       **kwargs))

    def get(self, path: str, **kwargs: Any) -> Answer:
        return self.open("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Answer:
        return self.open("POST", path, **kwargs)


@pytest.fixture(scope="module")
def running(servers: embedded.EmbeddedServers, redis_url: str,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Http, Path]]:
    """`banco run` with two gunicorn processes and a worker, on a database of its own (its
    sweeper settles only its hands): a client, and the folder their metrics are written to."""
    with fresh_database(servers.database_url, "banco_metrics") as database_url:
        yield from _running(database_url, redis_url, tmp_path_factory)


def _running(database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[tuple[Http, Path]]:
    data = tmp_path_factory.mktemp("metrics") / "data"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(DATABASE_URL=database_url, REDIS_URL=redis_url,
               BANCO_OPERATOR_KEY=OPERATOR["Authorization"].removeprefix("Bearer "),
               BANCO_QUEUE=f"banco-metrics-{secrets.token_hex(4)}", BANCO_POOL_SIZE="7")
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "run", "--data-dir", str(data),
                             "--port", str(port), "--workers", "2"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 60)
        yield Http(f"http://127.0.0.1:{port}"), data / "metrics"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def per_process(folder: Path, name: str, **labels: str) -> dict[str, float]:
    """A counter's value in each process's own file, by the pid the file is named after."""
    found = {}
    for file in folder.glob("histogram_*.db"):
        samples = {(s.name, frozenset(s.labels.items())): s.value
                   for m in MultiProcessCollector.merge([str(file)]) for s in m.samples}
        found[file.stem.rsplit("_", 1)[-1]] = value(samples, name, **labels)
    return found


def test_under_gunicorn_one_scrape_adds_up_every_process(running):
    http, folder = running
    count = "banco_http_request_duration_seconds_count"
    healthz = {"method": "GET", "route": "/healthz", "status": "200"}
    # Connections fall to either process as they come: send them until both took some.
    sent = 0
    while sent < 400:
        for _ in range(20):
            assert http.get("/healthz").status_code == 200
        sent += 20
        if sum(1 for n in per_process(folder, count, **healthz).values() if n) >= 2:
            break
    served = {pid: n for pid, n in per_process(folder, count, **healthz).items() if n}
    assert len(served) == 2, served
    assert value(scrape(http), count, **healthz) == sent == sum(served.values())

    # The worker is a third process: the hand it settles is counted in the API's scrape.
    before = scrape(http)
    session = Session(http, GAME, players(http, 3, "G"))  # type: ignore[arg-type]
    session.open({}, 20)
    hand_id = session.deal()
    session.play_hand()
    session.wait_settled(hand_id)
    settled = value(before, "banco_hands_settled_total", game=GAME) + 1
    # The worker counts the hand just after its settlement commits, which the API may show first.
    deadline = time.monotonic() + 10
    while value(after := scrape(http), "banco_hands_settled_total", game=GAME) < settled:
        assert time.monotonic() < deadline, "the worker's settlement never reached the scrape"
        time.sleep(0.1)
    assert value(after, "banco_hands_settled_total", game=GAME) == settled
    assert value(after, "banco_settlement_lag_seconds_count") == \
        value(before, "banco_settlement_lag_seconds_count") + 1
    assert value(after, "banco_actions_total", game=GAME) > value(before, "banco_actions_total", game=GAME)
    assert value(after, "banco_queue_workers", queue=after_queue(after)) == 1
    # The worker's webhook lane is a worker of its own, on the deliveries' queue.
    assert value(after, "banco_queue_workers", queue=webhook_lane(after_queue(after))) == 1
    assert value(after, "banco_db_pool_max_connections") == 2 * 7  # both processes' pools


def after_queue(samples: Samples) -> str:
    """The worker's queue, of the two the scrape names: it and its webhooks' lane."""
    names = {dict(labels)["queue"] for (metric, labels) in samples if metric == "banco_queue_up"}
    [name] = {n for n in names if webhook_lane(n) in names}
    return name


def test_a_start_removes_the_counts_of_processes_no_longer_running(tmp_path):
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    folder = tmp_path / "metrics"
    folder.mkdir()
    for name in (f"counter_{ended.pid}.db", f"gauge_livesum_{ended.pid}.db", f"counter_{os.getpid()}.db"):
        (folder / name).write_bytes(b"")
    metrics_dir.prepare(folder)
    # A worker still running (this process, here) keeps what it counted.
    assert sorted(p.name for p in folder.iterdir()) == [f"counter_{os.getpid()}.db"]
