"""PostgreSQL restarted under load: 503 problem+json meanwhile, recovery by itself, and no
acknowledged write lost. On an embedded server of the test's own, so nobody else is disturbed.

A request cut off by the shutdown is ambiguous: its COMMIT may have landed just before the
server dropped the connection, so the client saw 503 for a write that was made. The client
settles it as any client should, by sending the request again with the same Idempotency-Key
until it is answered: the write is then made once, whichever attempt made it."""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import psycopg

from projections import migrate
from service.http import db
from service.http.app import create_app
from service.runtime import embedded
from tests.service.conftest import OPERATOR


def test_postgres_restart_gives_503s_then_recovers_and_loses_nothing(config):
    with tempfile.TemporaryDirectory(prefix="banco-pg-") as tmp:
        url, server = embedded.start_postgres(Path(tmp) / "pg", keep=True)
        with psycopg.connect(url, autocommit=True) as conn:
            migrate.upgrade(conn)
        app = create_app(replace(config, database_url=url))
        try:
            client = app.test_client()
            player = client.post("/v1/players", json={"name": "Durable"}, headers=OPERATOR).json
            acknowledged: list[int] = []
            statuses: list[int] = []
            stop = threading.Event()

            def load() -> None:
                c = app.test_client()
                amount = 0
                while not stop.is_set():
                    amount += 1
                    headers = {**OPERATOR, "Idempotency-Key": f"durable-{amount}"}
                    give_up = time.monotonic() + 60
                    while True:  # the same deposit, with the same key, until it is answered
                        r = c.post(f"/v1/players/{player['player']['id']}/deposits",
                                   json={"amount": amount, "reason": "load"}, headers=headers)
                        statuses.append(r.status_code)
                        if r.status_code == 201:
                            acknowledged.append(amount)
                            break
                        if r.status_code != 503:
                            raise AssertionError((r.status_code, r.json))
                        assert r.headers["Content-Type"] == "application/problem+json"
                        assert r.json["code"] == "unavailable"
                        assert time.monotonic() < give_up, "the service never recovered"
                        time.sleep(0.01)
                    time.sleep(0.01)

            worker = threading.Thread(target=load)
            worker.start()
            time.sleep(1)
            server.cleanup()  # stop PostgreSQL under load
            time.sleep(2)
            _, server = embedded.start_postgres(Path(tmp) / "pg", keep=True)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and statuses[-1:] != [201]:
                time.sleep(0.2)
            time.sleep(1)
            stop.set()
            worker.join()
            assert 503 in statuses, "the outage was seen"
            assert statuses[-1] == 201, "and the service recovered by itself"
            balance = client.get(f"/v1/players/{player['player']['id']}/balance", headers=OPERATOR)
            assert balance.json["balance"] == sum(acknowledged)
        finally:
            app.extensions["banco.pool"].close()
            server.cleanup()


def test_a_connection_lost_after_the_view_gives_503_and_writes_nothing(config):
    """The database goes away between the view and the commit, while the Idempotency-Key's
    record is being filled in (an after-request hook): 503 problem+json, not a 500, and a retry
    with the same key makes the write once."""
    app = create_app(config)
    kill = threading.Event()

    @app.after_request  # registered last, so it runs before the app's own hooks
    def cut_the_connection(response):
        if kill.is_set():
            kill.clear()
            pid = db.conn().info.backend_pid
            with psycopg.connect(config.database_url, autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", (pid,))
                while other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s",
                                    (pid,)).fetchone():
                    time.sleep(0.01)
        return response

    try:
        client = app.test_client()
        player = client.post("/v1/players", json={"name": "Cut"}, headers=OPERATOR).json
        path = f"/v1/players/{player['player']['id']}/deposits"
        headers = {**OPERATOR, "Idempotency-Key": "cut-1"}
        kill.set()
        r = client.post(path, json={"amount": 7, "reason": "cut"}, headers=headers)
        assert r.status_code == 503, r.json
        assert r.headers["Content-Type"] == "application/problem+json"
        assert r.json["code"] == "unavailable"
        balance = client.get(f"/v1/players/{player['player']['id']}/balance", headers=OPERATOR)
        assert balance.json["balance"] == 0
        again = client.post(path, json={"amount": 7, "reason": "cut"}, headers=headers)
        assert again.status_code == 201, again.json
        balance = client.get(f"/v1/players/{player['player']['id']}/balance", headers=OPERATOR)
        assert balance.json["balance"] == 7
    finally:
        app.extensions["banco.pool"].close()
