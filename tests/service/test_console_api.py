"""What the console reads and does over the API: players listed in pages, and the worker's queue
(`banco jobs`) with its failed jobs put back on it."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from flask import Flask
from rq import SimpleWorker

from service.http.app import create_app
from tests.service.conftest import OPERATOR, bearer
from tests.service.test_metrics import scrape, value
from workers.queues import queue, webhook_lane


def test_players_are_listed_newest_first_in_pages_with_balances(client, new_player):
    made = [new_player(f"L{i}", deposit=i + 1) for i in range(3)]
    first = client.get("/v1/players?limit=2", headers=OPERATOR).json
    assert [(p["id"], p["balance"]) for p in first["items"]] == [(made[2].id, 3), (made[1].id, 2)]
    rest = client.get(f"/v1/players?limit=2&cursor={first['next_cursor']}", headers=OPERATOR).json
    assert rest["items"][0]["id"] == made[0].id and rest["items"][0]["name"] == "L0"
    r = client.get("/v1/players?cursor=pl_nobody", headers=OPERATOR)
    assert r.status_code == 422 and r.json["code"] == "invalid_cursor"


@pytest.fixture
def own_queue(config) -> Iterator[Flask]:
    """An app on a queue of the test's own, which no worker takes jobs from."""
    app = create_app(replace(config, queue_name=f"banco-jobs-{uuid.uuid4().hex[:8]}"))
    try:
        yield app
    finally:
        app.extensions["banco.pool"].close()


def test_a_failed_job_is_listed_and_requeued_by_the_operator(own_queue, client, tmp_path: Path):
    q = queue(own_queue.extensions["banco.redis"], own_queue.config["BANCO"].queue_name)
    target = tmp_path / "absent"
    job = q.enqueue(os.remove, str(target))  # fails while the file is absent
    SimpleWorker([q], connection=q.connection).work(burst=True)
    api = own_queue.test_client()
    listed = api.get("/v1/jobs", headers=OPERATOR).json
    assert listed["failed"] == 1
    assert listed["failed_jobs"] == [{"id": job.id, "queue": q.name, "call": job.description,
                                      "error": listed["failed_jobs"][0]["error"]}]
    assert "FileNotFoundError" in listed["failed_jobs"][0]["error"]
    auditor = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"]
    assert api.get("/v1/jobs", headers=bearer(auditor)).json == listed
    assert api.post(f"/v1/jobs/{job.id}/requeue", headers=bearer(auditor)).status_code == 403
    target.write_text("")
    r = api.post(f"/v1/jobs/{job.id}/requeue", headers=OPERATOR)
    assert r.status_code == 200 and r.json == {"id": job.id, "status": "queued"}
    SimpleWorker([q], connection=q.connection).work(burst=True)
    assert not target.exists()
    assert api.get("/v1/jobs", headers=OPERATOR).json["failed"] == 0
    # Not failed any more, or never a job.
    again = api.post(f"/v1/jobs/{job.id}/requeue", headers=OPERATOR)
    assert again.status_code == 409 and again.json["code"] == "job_not_failed"
    assert api.post("/v1/jobs/nope/requeue", headers=OPERATOR).status_code == 404


def test_the_jobs_list_every_queue_the_metrics_do_with_their_failures(own_queue):
    """The webhooks' lane has jobs of its own (deliveries), counted by `GET /metrics`:
    `GET /v1/jobs` counts the same queues, lists their failed jobs and requeues them. (It
    counted the queue's own alone.)"""
    name = own_queue.config["BANCO"].queue_name
    lane = queue(own_queue.extensions["banco.redis"], webhook_lane(name))
    failing = lane.enqueue("json.loads", "{not json")
    SimpleWorker([lane], connection=lane.connection).work(burst=True)
    lane.enqueue("json.loads", "[]")  # waits: no worker takes the lane's jobs here
    api = own_queue.test_client()
    listed = api.get("/v1/jobs", headers=OPERATOR).json
    scraped = scrape(api)
    metered = {dict(labels)["queue"] for (metric, labels) in scraped if metric == "banco_queue_up"}
    assert [q["name"] for q in listed["queues"]] == [name, lane.name]
    assert set(q["name"] for q in listed["queues"]) == metered
    for q in listed["queues"]:
        for state in ("queued", "scheduled", "started", "failed"):
            assert q[state] == value(scraped, "banco_queue_jobs", queue=q["name"], state=state)
        assert q["workers"] == value(scraped, "banco_queue_workers", queue=q["name"]) == 0
    assert {k: listed["queues"][1][k] for k in ("queued", "failed")} == {"queued": 1, "failed": 1}
    assert (listed["queued"], listed["failed"]) == (0, 0)  # the queue's own, as before
    [failed] = listed["failed_jobs"]
    assert (failed["id"], failed["queue"]) == (failing.id, lane.name)
    assert "JSONDecodeError" in failed["error"]
    r = api.post(f"/v1/jobs/{failing.id}/requeue", headers=OPERATOR)
    assert r.status_code == 200 and r.json == {"id": failing.id, "status": "queued"}
    after = api.get("/v1/jobs", headers=OPERATOR).json["queues"][1]
    assert (after["queued"], after["failed"]) == (2, 0)
    lane.delete(delete_jobs=True)
