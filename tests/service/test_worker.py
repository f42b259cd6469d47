"""A real job end to end: requested over HTTP, run by a real worker process on real Redis."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest

from service.runtime.config import WorkerConfig
from tests.service.conftest import OPERATOR
from workers import context, job_logs, jobs, worker
from workers.queues import connect, queue


def run_worker(config) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": config.database_url, "REDIS_URL": config.redis_url,
           "BANCO_QUEUE": config.queue_name}
    return subprocess.run([sys.executable, "-m", "service.cli", "worker", "--burst"], env=env,
                          capture_output=True, text=True, timeout=120)


def test_ledger_check_runs_in_a_worker_process(client, config, new_player):
    new_player(deposit=25)
    started = client.post("/v1/audit/ledger-checks", headers=OPERATOR)
    assert started.status_code == 202 and started.json["status"] == "queued"
    job_id = started.json["id"]
    assert client.get(f"/v1/audit/ledger-checks/{job_id}", headers=OPERATOR).json["result"] is None
    done = run_worker(config)
    assert done.returncode == 0, done.stderr
    check = client.get(f"/v1/audit/ledger-checks/{job_id}", headers=OPERATOR).json
    assert check["status"] == "finished"
    result = check["result"]
    assert result["ok"] is True and result["total"] == 0 and result["negative_accounts"] == 0
    assert result["drifting_accounts"] == [] and result["accounts"] >= 2
    assert result["stranded_accounts"] == []


def test_the_check_finds_a_drifted_balance(client, config, new_player, app):
    p = new_player(deposit=10)
    pool = app.extensions["banco.pool"]
    with pool.connection() as c:
        c.execute("UPDATE balances SET balance = balance + 1 WHERE account = %s", (f"wallet:{p.id}",))
    try:
        job_id = client.post("/v1/audit/ledger-checks", headers=OPERATOR).json["id"]
        assert run_worker(config).returncode == 0
        result = client.get(f"/v1/audit/ledger-checks/{job_id}", headers=OPERATOR).json["result"]
        assert result["ok"] is False and result["total"] == 1
        assert result["drifting_accounts"] == [{"account": f"wallet:{p.id}", "projected": 11, "from_log": 10}]
    finally:
        with pool.connection() as c:
            c.execute("UPDATE balances SET balance = balance - 1 WHERE account = %s", (f"wallet:{p.id}",))


def test_unknown_job_is_404(client):
    r = client.get("/v1/audit/ledger-checks/no-such-job", headers=OPERATOR)
    assert r.status_code == 404 and r.json["code"] == "job_not_found"


def test_the_worker_builds_what_its_jobs_use_from_its_config_and_closes_it(config):
    """The worker's composition root: its jobs find the pool made from the `WorkerConfig` it was
    given (a database no environment names), installed while it works, closed when it stops."""
    own = replace(WorkerConfig.of(config), queue_name=f"{config.queue_name}-{os.urandom(4).hex()}")
    connection = connect(own.redis_url)
    job = queue(connection, own.queue_name).enqueue(jobs.check_ledger)
    seen: list[context.Resources] = []
    original = jobs.check_ledger

    def spied() -> dict[str, Any]:
        seen.append(context.current())
        return original()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs, "check_ledger", spied)  # RQ finds the job's function by its name
        patch.setattr(job_logs, "configure", lambda: None)  # the session's logging stays pytest's
        assert worker.run(own, burst=True)
    assert job.get_status(refresh=True) == "finished" and job.return_value()["ok"] is True
    [resources] = seen
    assert resources.config == own and resources.pool.closed
    with pytest.raises(RuntimeError, match="no worker resources installed"):
        context.current()


def test_the_check_finds_treasure_left_at_an_ended_table(client, config, new_player, app):
    """An ended table pays everything out, so a seat holding treasure at a table that is over
    is named (the table's row is marked over by hand here, and put back)."""
    p = new_player(deposit=30)
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
    assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": 20},
                       headers=p.auth).status_code == 201
    pool = app.extensions["banco.pool"]
    with pool.connection() as c:
        c.execute("UPDATE tables SET status = 'over' WHERE table_id = %s", (table,))
    try:
        job_id = client.post("/v1/audit/ledger-checks", headers=OPERATOR).json["id"]
        assert run_worker(config).returncode == 0
        result = client.get(f"/v1/audit/ledger-checks/{job_id}", headers=OPERATOR).json["result"]
        assert result["ok"] is False and result["total"] == 0 and result["drifting_accounts"] == []
        assert {"account": f"seat:{table}:{p.id}", "balance": 20} in result["stranded_accounts"]
    finally:
        with pool.connection() as c:
            c.execute("UPDATE tables SET status = 'open' WHERE table_id = %s", (table,))
    job_id = client.post("/v1/audit/ledger-checks", headers=OPERATOR).json["id"]
    assert run_worker(config).returncode == 0
    result = client.get(f"/v1/audit/ledger-checks/{job_id}", headers=OPERATOR).json["result"]
    assert result["stranded_accounts"] == [] and result["ok"] is True
