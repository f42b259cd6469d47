"""Headers: nosniff everywhere, no-store on what is private or an error, Retry-After only with
429 and 503, Allow with 405."""

from __future__ import annotations

from dataclasses import replace

import pytest
import redis
from werkzeug.test import TestResponse

from service.app import create_app
from tests.service.conftest import OPERATOR


def secure(r: TestResponse, private: bool = True) -> None:
    assert r.headers["X-Content-Type-Options"] == "nosniff", r.headers
    if private:
        assert r.headers["Cache-Control"] == "no-store", r.headers


def test_successes_are_not_sniffed_cached_or_told_to_retry(client, new_player):
    created = client.post("/v1/players", json={"name": "Hd"}, headers=OPERATOR)
    assert created.status_code == 201
    p = created.json
    read = client.get(f"/v1/players/{p['player']['id']}", headers={"Authorization": f"Bearer {p['token']}"})
    assert read.status_code == 200
    health = client.get("/healthz")
    for r in (created, read):
        secure(r)
    secure(health, private=False)
    for r in (created, read, health):
        assert "Retry-After" not in r.headers and "X-RateLimit-Limit" not in r.headers


def test_errors_are_not_sniffed_cached_or_told_to_retry(client, new_player):
    p = new_player()
    errors = [client.get("/v1/nowhere"), client.get(f"/v1/players/{p.id}"),
              client.post("/v1/players", json={"name": 7}, headers=OPERATOR),
              client.get("/v1/players/pl_missing", headers=OPERATOR)]
    assert [r.status_code for r in errors] == [404, 401, 422, 404]
    for r in errors:
        secure(r)
        assert r.mimetype == "application/problem+json" and "Retry-After" not in r.headers


def test_a_server_error_is_not_sniffed_cached_or_told_to_retry(config):
    app = create_app(config)
    app.add_url_rule("/v1/boom", "boom", lambda: 1 / 0)
    try:
        r = app.test_client().get("/v1/boom", headers=OPERATOR)
        assert r.status_code == 500 and r.json["code"] == "internal_error"
        secure(r)
        assert "Retry-After" not in r.headers
    finally:
        app.extensions["banco.pool"].close()


def test_a_429_says_when_to_retry(config, lone_redis):
    redis.Redis.from_url(lone_redis).flushall()
    app = create_app(replace(config, redis_url=lone_redis, rate_limit="1/minute"))
    try:
        client = app.test_client()
        assert client.get("/v1/games", headers=OPERATOR).status_code == 200
        r = client.get("/v1/games", headers=OPERATOR)
        assert r.status_code == 429
        secure(r)
        assert int(r.headers["Retry-After"]) == 60
    finally:
        app.extensions["banco.pool"].close()


@pytest.mark.parametrize(("method", "path", "allowed"), [
    ("POST", "/healthz", {"GET", "HEAD", "OPTIONS"}),
    ("DELETE", "/v1/players", {"POST", "OPTIONS"}),
    ("PUT", "/v1/games", {"GET", "HEAD", "OPTIONS"}),
    ("DELETE", "/v1/players/pl_1/deposits", {"POST", "OPTIONS"}),
    ("PATCH", "/v1/tables", {"GET", "HEAD", "POST", "OPTIONS"}),
])
def test_a_405_says_what_is_allowed(client, method, path, allowed):
    r = client.open(path, method=method, headers=OPERATOR)
    assert r.status_code == 405 and r.mimetype == "application/problem+json"
    assert set(r.headers["Allow"].split(", ")) == allowed
    secure(r)
