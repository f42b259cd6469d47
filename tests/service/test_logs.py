"""Logs are JSON lines that carry the request id."""

from __future__ import annotations

import hashlib
import io
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.request

import orjson

from service.runtime import logs
from tests.service.conftest import OPERATOR, ROOT, bearer, jobs_on


def test_request_logs_are_json_with_the_request_id(client):
    logs.configure()
    stream = io.StringIO()
    logging.getLogger("banco").handlers[0].setStream(stream)  # type: ignore[attr-defined]
    client.get("/healthz", headers={"X-Request-ID": "log-test-1"})
    entries = [orjson.loads(line) for line in stream.getvalue().splitlines()]
    [entry] = [e for e in entries if e.get("request_id") == "log-test-1"]
    assert entry["path"] == "/healthz" and entry["status"] == 200 and entry["level"] == "INFO"
    assert "code" not in entry
    # A refusal's line says why: a 403 `missing_scope` apart from any other 403.
    key = client.post("/v1/keys", json={"name": "watch", "scopes": ["metrics:read"]},
                      headers=OPERATOR).json
    client.get("/v1/players", headers={"Authorization": f"Bearer {key['secret']}",
                                       "X-Request-ID": "log-test-2"})
    entries = [orjson.loads(line) for line in stream.getvalue().splitlines()]
    [entry] = [e for e in entries if e.get("request_id") == "log-test-2"]
    assert (entry["status"], entry["code"], entry["key_id"]) == (403, "missing_scope",
                                                                 key["key"]["id"])


def test_a_401_for_an_operator_key_that_no_longer_works_names_the_key(app, client):
    """Revoked, expired or rotated away: the refusal's log line names the key by its id (it
    said `key_id: null`), so that a leaked key's later tries are found; `actor` stays null, as
    no one was authenticated, and neither the secret nor its hash is written."""
    from tests.service.test_stream_tickets import ticket_for

    logs.configure()
    stream = io.StringIO()
    logging.getLogger("banco").handlers[0].setStream(stream)  # type: ignore[attr-defined]

    def made(*scopes: str) -> tuple[str, str]:
        issued = client.post("/v1/keys", json={"name": "leaky", "scopes": list(scopes)},
                             headers=OPERATOR).json
        return issued["key"]["id"], issued["secret"]

    revoked, revoked_secret = made("metrics:read")
    expired, expired_secret = made("metrics:read")
    rotated, first_secret = made("metrics:read", "audit:read")
    feed = ticket_for(client, {"Authorization": f"Bearer {first_secret}"}, stream="feed")["url"]
    second_secret = client.post(f"/v1/keys/{rotated}/rotation", headers=OPERATOR).json["secret"]
    assert client.delete(f"/v1/keys/{revoked}", headers=OPERATOR).status_code == 204
    with app.extensions["banco.pool"].connection() as c:  # its expiry passed
        c.execute("UPDATE operator_keys SET expires_at = now() - interval '1 second'"
                  " WHERE key_id = %s", (expired,))
    tried = {"revoked": (revoked, revoked_secret), "expired": (expired, expired_secret),
             "rotated away": (rotated, first_secret)}

    def refused(request_id: str, secret: str) -> None:
        r = client.get("/metrics", headers={"Authorization": f"Bearer {secret}",
                                            "X-Request-ID": request_id})
        assert r.status_code == 401 and r.json["code"] == "unauthorized"

    for why, (_, secret) in tried.items():
        refused(f"dead-key {why}", secret)
    # Rotated, then revoked: each secret it ever had is named, and its stream ticket too.
    assert client.delete(f"/v1/keys/{rotated}", headers=OPERATOR).status_code == 204
    tried["rotated, then revoked"] = (rotated, second_secret)
    refused("dead-key rotated, then revoked", second_secret)
    r = client.get(feed, headers={"X-Request-ID": "dead-key ticket"})
    assert r.status_code == 401 and r.json["code"] == "invalid_ticket"
    refused("dead-key never issued", "bok_" + "x" * 43)

    entries = {e.get("request_id"): e for e in map(orjson.loads, stream.getvalue().splitlines())}
    for why, (key_id, _) in [*tried.items(), ("ticket", (rotated, ""))]:
        entry = entries[f"dead-key {why}"]
        assert (entry["status"], entry["actor"], entry["key_id"]) == (401, None, key_id), why
    assert entries["dead-key never issued"]["key_id"] is None
    written = stream.getvalue()
    for _, secret in tried.values():
        assert secret not in written
        assert hashlib.sha256(secret.encode()).hexdigest() not in written


def test_a_401_for_a_token_revoked_or_replaced_names_the_token(client, new_player):
    """As for an operator's key: a player's token replaced by a new one, an auditor's revoked,
    and a stream ticket issued with the player's old token are refused with their log lines
    naming the token by its id (they said `key_id: null`), never by the token or its hash."""
    from tests.service.test_stream_tickets import ticket_for

    logs.configure()
    stream = io.StringIO()
    logging.getLogger("banco").handlers[0].setStream(stream)  # type: ignore[attr-defined]
    ann = new_player("Ann")
    ann_id = client.get("/v1/me", headers=ann.auth).json["key_id"]
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
    ticket = ticket_for(client, ann.auth, stream="table", table_id=table)["url"]
    assert client.post(f"/v1/players/{ann.id}/token", headers=OPERATOR).status_code == 201
    auditor = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json
    auditor_token_id = client.get("/v1/me", headers=bearer(auditor["token"])).json["key_id"]
    assert client.delete(f"/v1/auditors/{auditor['id']}/token",
                         headers=OPERATOR).status_code == 204
    tried = {"replaced": (ann_id, ann.token), "revoked": (auditor_token_id, auditor["token"])}
    for why, (_, token) in tried.items():
        r = client.get("/v1/me", headers={"Authorization": f"Bearer {token}",
                                          "X-Request-ID": f"dead-token {why}"})
        assert r.status_code == 401 and r.json["code"] == "unauthorized"
    r = client.get(ticket, headers={"X-Request-ID": "dead-token ticket"})
    assert r.status_code == 401 and r.json["code"] == "invalid_ticket"

    entries = {e.get("request_id"): e for e in map(orjson.loads, stream.getvalue().splitlines())}
    for why, (token_id, _) in [*tried.items(), ("ticket", (ann_id, ""))]:
        entry = entries[f"dead-token {why}"]
        assert token_id.startswith("tk_")
        assert (entry["status"], entry["actor"], entry["key_id"]) == (401, None, token_id), why
    written = stream.getvalue()
    for _, token in tried.values():
        assert token not in written and hashlib.sha256(token.encode()).hexdigest() not in written


PSYCOPG_WARNINGS = """
import logging, sys
import psycopg
from service.runtime import logs
logs.configure()
with psycopg.connect(sys.argv[1]) as conn:
    try:
        with conn.pipeline():
            conn.execute("SELECT 1 / 0")
            # Raised inside the block, as a flush raises the error it has read.
            raise psycopg.errors.DivisionByZero("raised inside the block")
    except psycopg.errors.DivisionByZero:
        conn.rollback()
logging.getLogger("psycopg.pool").warning("a pool's warning")
"""


def test_psycopgs_warnings_are_json_lines_and_a_failed_pipeline_is_not_one(database_url):
    """A shortfall or a lost race raised inside a pipeline made psycopg warn, as plain text
    among the JSON lines, that the pipeline could not close: a line for a request answered
    as it should. Its other warnings (the pool's, say) go out as JSON. In a process of its own,
    whose loggers are as `logs.configure` leaves them (in this one, earlier tests' apps and
    their pools log too)."""
    run = subprocess.run([sys.executable, "-c", PSYCOPG_WARNINGS, database_url],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    [entry] = [orjson.loads(line) for line in run.stderr.splitlines()]
    assert entry["logger"] == "psycopg.pool" and entry["level"] == "WARNING"


def test_no_secret_or_seed_reaches_the_logs(app, config, new_player, monkeypatch):
    """Tokens, the operator key and server seeds never appear in the logs of a whole hand."""
    from tests.service.conftest import OPERATOR_KEY
    from tests.service.play import Session
    from workers import settlement

    logs.configure("DEBUG")
    stream = io.StringIO()
    handler = logging.getLogger("banco").handlers[0]
    handler.setStream(stream)  # type: ignore[attr-defined]
    app.logger.handlers[:] = [handler]
    client = app.test_client()
    session = Session(client, "pirate-pairs", [new_player(f"L{i}", deposit=30) for i in range(2)])
    session.open({"stake": 1}, 10)
    hand_id = session.deal()
    session.play_hand()
    client.post(f"/v1/tables/{session.table_id}/actions", json={"type": "nope"},
                headers={**session.players[0].auth, "If-Match": '"1"'})
    with jobs_on(config):
        assert settlement.settle_hand(session.table_id, hand_id)
    seed = client.get(f"/v1/hands/{hand_id}", headers={"Authorization": f"Bearer {OPERATOR_KEY}"}
                      ).json["server_seed"]
    written = stream.getvalue()
    assert '"path": "/v1/tables' in written or '"path":"/v1/tables' in written
    for secret in (OPERATOR_KEY, seed, *(p.token for p in session.players)):
        assert secret and secret not in written


def test_banco_run_logs_one_line_per_request_and_one_per_job(database_url, redis_url, tmp_path):
    """`banco run` answering N requests writes N request lines (no second access line from
    gunicorn), and its worker writes one line per job: what ran, how long and how it ended, or
    for a failure the error (RQ alone writes four lines for a job that succeeds)."""
    from tests.test_cli import free_port, wait_ready
    from workers.queues import connect, queue

    port, name = free_port(), f"banco-logs-{os.getpid()}"
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "BANCO_OPERATOR_KEY": "k" * 32, "BANCO_QUEUE": name}
    with (tmp_path / "out").open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "run", "--data-dir", str(tmp_path),
                                 "--port", str(port), "--workers", "1"],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    q = queue(connect(redis_url), name)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 60)
        request_ids = [f"count-{n}-{os.getpid()}" for n in range(5)]
        for request_id in request_ids:
            urllib.request.urlopen(urllib.request.Request(
                f"http://127.0.0.1:{port}/healthz", headers={"X-Request-ID": request_id}), timeout=10).close()
        ok = q.enqueue("json.loads", '"logged-ok"')
        bad = q.enqueue("json.loads", "{logged-bad")
        deadline = time.monotonic() + 30
        while not (ok.is_finished and bad.is_failed) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert ok.is_finished and bad.is_failed
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        q.delete(delete_jobs=True)
    lines = (tmp_path / "out").read_text().splitlines()
    served = [line for line in lines if "/healthz" in line]
    assert len(served) == len(request_ids), served
    assert sorted(orjson.loads(line)["request_id"] for line in served) == sorted(request_ids)
    [ok_line] = [line for line in lines if ok.id in line or "logged-ok" in line]
    assert "Successfully completed json.loads" in orjson.loads(ok_line)["message"]
    [bad_line] = [line for line in lines if bad.id in line or "logged-bad" in line]
    failure = orjson.loads(bad_line)
    assert failure["level"] == "ERROR" and "JSONDecodeError" in failure["message"]
