"""Per-token rate limits: 429 problem+json with Retry-After; probes and other tokens unaffected."""

from __future__ import annotations

from dataclasses import replace

from service.app import create_app
from tests.service.conftest import OPERATOR


def test_a_token_past_its_limit_gets_429_with_retry_after(config, new_player):
    strict = replace(config, rate_limit="5/minute")
    app = create_app(strict)
    try:
        client = app.test_client()
        p = new_player()
        statuses = [client.get(f"/v1/players/{p.id}", headers=p.auth).status_code for _ in range(7)]
        assert statuses == [200] * 5 + [429] * 2
        limited = client.get(f"/v1/players/{p.id}", headers=p.auth)
        assert limited.headers["Content-Type"] == "application/problem+json"
        assert limited.json["code"] == "too_many_requests"
        assert 0 < int(limited.headers["Retry-After"]) <= 60
        assert client.get(f"/v1/players/{p.id}", headers=OPERATOR).status_code == 200
        assert all(client.get("/healthz").status_code == 200 for _ in range(10))
    finally:
        app.extensions["banco.pool"].close()


def test_limits_step_aside_when_redis_is_down(config, new_player):
    app = create_app(replace(config, redis_url="redis://127.0.0.1:1/0", rate_limit="2/minute"))
    try:
        client = app.test_client()
        p = new_player()
        assert [client.get(f"/v1/players/{p.id}", headers=p.auth).status_code
                for _ in range(4)] == [200] * 4
    finally:
        app.extensions["banco.pool"].close()
