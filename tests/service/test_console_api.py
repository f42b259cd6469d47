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
from workers.queues import queue


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
    assert listed["failed_jobs"] == [{"id": job.id, "call": job.description,
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
