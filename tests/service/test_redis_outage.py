"""Redis down: what needs it in the request is a 503 with `Retry-After`, as PostgreSQL away is;
the rest is served. On a Redis of the test's own, shut down, so nobody else is disturbed."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from service.http.app import create_app
from service.runtime import embedded
from service.runtime.config import Config
from tests.service.conftest import OPERATOR


def test_with_redis_down_the_ledger_checks_are_503_with_retry_after(config: Config):
    with tempfile.TemporaryDirectory(prefix="banco-redis-") as tmp:
        url, server = embedded.start_redis(Path(tmp))
        app = create_app(replace(config, redis_url=url))
        try:
            client = app.test_client()
            started = client.post("/v1/audit/ledger-checks", headers=OPERATOR)
            assert started.status_code == 202, started.json
            server.shutdown()
            for method, path in (("POST", "/v1/audit/ledger-checks"),
                                 ("GET", f"/v1/audit/ledger-checks/{started.json['id']}")):
                r = client.open(path, method=method, headers=OPERATOR)
                assert r.status_code == 503, (method, r.status_code, r.data)
                assert r.mimetype == "application/problem+json" and r.json["code"] == "unavailable"
                assert int(r.headers["Retry-After"]) > 0
            assert client.get("/v1/audit/checkpoints", headers=OPERATOR).status_code == 200
            ready = client.get("/readyz")
            assert ready.status_code == 503 and ready.json["code"] == "not_ready"
        finally:
            app.extensions["banco.pool"].close()
            app.extensions["banco.export_pool"].close()
