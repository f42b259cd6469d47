"""`/v1/audit/ledger-checks/{id}` finds ledger checks and nothing else the queue holds.

A settled hand (the `played` fixture, settled by a real worker) leaves its settlement job in
Redis, and a table's turn leaves a timeout job: both share the queue's job ids with the checks.
"""

from __future__ import annotations

import subprocess
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from rq.job import Job

from service.runtime.config import Config
from tests.service.conftest import OPERATOR, running_worker
from workers import settlement, timeouts


@pytest.fixture(scope="module")
def worker(config: Config) -> Iterator[subprocess.Popen[bytes]]:
    """The worker's sweeper never settles the hand itself: on a busy machine the worker could
    start more than the grace (10 s) after the hand ended, sweep first and settle it, and the
    job, coming after, would find it settled and return False instead of the True under test."""
    with running_worker(config, BANCO_SETTLE_GRACE_S="3600") as proc:
        yield proc


def _finished_check(client: FlaskClient) -> dict[str, Any]:
    started = client.post("/v1/audit/ledger-checks", headers=OPERATOR)
    assert started.status_code == 202, started.json
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        r = client.get(f"/v1/audit/ledger-checks/{started.json['id']}", headers=OPERATOR)
        assert r.status_code == 200, r.json
        if r.json["status"] == "finished":
            return dict(r.json)
        time.sleep(0.1)
    raise AssertionError("the worker did not run the ledger check")


def test_a_ledger_check_is_found_with_its_result(client: FlaskClient, played: dict[str, Any]):
    check = _finished_check(client)
    assert check["result"]["ok"] is True and check["result"]["total"] == 0


def test_a_settled_hand_s_job_and_its_result_leave_redis_within_minutes(app: Flask,
                                                                       played: dict[str, Any]):
    """Both are kept `settlement.RESULT_TTL_S` (five minutes), not an hour: at 40 hands a second
    an hour of them held some 950 MB of Redis that nothing read."""
    redis = app.extensions["banco.redis"]
    job = Job.fetch(f"settle-{played['hand']}", connection=redis)
    assert job.get_status() == "finished" and job.latest_result() is not None
    for key in (job.key, f"rq:results:{job.id}"):
        assert 0 < redis.ttl(key) <= settlement.RESULT_TTL_S == 300, key


def test_other_jobs_and_unknown_ids_are_not_ledger_checks(app: Flask, client: FlaskClient,
                                                           config: Config, played: dict[str, Any]):
    """A settlement's job (its result `True` was a 500) and a turn's timeout job (a 200 posing as
    a ledger check) are 404, as are ids no job has and ids that are not a ledger check's form."""
    redis = app.extensions["banco.redis"]
    settlement = f"settle-{played['hand']}"
    assert Job.fetch(settlement, connection=redis).return_value() is True
    unworked = f"{config.queue_name}-unworked"  # no worker takes this timeout
    timeouts.schedule(redis, unworked, "tb_nowhere", 3, datetime.now(UTC) + timedelta(hours=1))
    timeout = timeouts.job_id("tb_nowhere", 3)
    check = _finished_check(client)["id"]
    try:
        assert Job.fetch(timeout, connection=redis).get_status() is not None
        for job_id in (settlement, timeout, str(uuid.uuid4()), "no-such-job",
                       f"{settlement}:1", f"{check}:1", "x" * 500):
            r = client.get(f"/v1/audit/ledger-checks/{job_id}", headers=OPERATOR)
            assert r.status_code == 404, (job_id, r.status_code, r.json)
            assert r.json["code"] == "job_not_found" and r.mimetype == "application/problem+json"
    finally:
        timeouts.cancel(redis, unworked, "tb_nowhere", 3)
