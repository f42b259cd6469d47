"""Rate limits: one budget per principal (per address without a valid token), counted in Redis
with one round trip a request; 429 problem+json with Retry-After past it; probes unaffected."""

from __future__ import annotations

import contextlib
import secrets
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
import redis
from flask import Flask

from service.http import limits
from service.http.app import create_app
from tests.service.conftest import OPERATOR, OPERATOR_KEY, bearer


@pytest.fixture
def limited(config, lone_redis) -> Iterator[Callable[[str], Flask]]:
    """Apps counting in a Redis of the module's own, emptied for each test: other sessions'
    counts for the same principals (the operator's) never mix with these."""
    redis.Redis.from_url(lone_redis).flushall()
    apps: list[Flask] = []

    def make(rate_limit: str) -> Flask:
        apps.append(create_app(replace(config, redis_url=lone_redis, rate_limit=rate_limit)))
        return apps[-1]

    yield make
    for app in apps:
        app.extensions["banco.pool"].close()


def test_a_token_past_its_limit_gets_429_with_retry_after(limited, new_player):
    client = limited("5/minute").test_client()
    p = new_player()
    statuses = [client.get(f"/v1/players/{p.id}", headers=p.auth).status_code for _ in range(7)]
    assert statuses == [200] * 5 + [429] * 2
    limited_response = client.get(f"/v1/players/{p.id}", headers=p.auth)
    assert limited_response.headers["Content-Type"] == "application/problem+json"
    assert limited_response.json["code"] == "too_many_requests"
    assert 0 < int(limited_response.headers["Retry-After"]) <= 60
    assert client.get(f"/v1/players/{p.id}", headers=OPERATOR).status_code == 200
    assert all(client.get("/healthz").status_code == 200 for _ in range(10))


def test_a_429_says_how_long_is_left_of_the_window(limited, lone_redis, new_player):
    """Retry-After is the time left in the caller's window, not the whole window: a minute was
    longer than either SDK waits on its own, so a client never retried a 429."""
    client = limited("2/minute").test_client()
    p = new_player()
    assert [client.get("/v1/me", headers=p.auth).status_code for _ in range(3)] == [200, 200, 429]
    server = redis.Redis.from_url(lone_redis)
    [window] = [k for k in server.scan_iter("*LIMITER*") if p.id.encode() in k]
    server.expire(window, 7)  # seven seconds left of it
    refused = client.get("/v1/me", headers=p.auth)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "7", refused.headers
    assert "retry in 7s" in refused.json["detail"]


def test_one_budget_covers_all_of_a_callers_endpoints(limited, new_player):
    client = limited("4/minute").test_client()
    p = new_player()
    urls = [f"/v1/players/{p.id}", f"/v1/players/{p.id}/balance"] * 3
    assert [client.get(url, headers=p.auth).status_code for url in urls] == [200] * 4 + [429] * 2


def test_bad_tokens_from_one_address_share_its_budget(limited):
    client = limited("5/minute").test_client()
    statuses = [client.get("/v1/players/pl_x", headers=bearer(secrets.token_urlsafe(16))).status_code
                for _ in range(30)]
    assert statuses == [401] * 5 + [429] * 25
    # Without a header, or with another scheme, the same address and the same budget.
    assert client.get("/v1/players/pl_x").status_code == 429
    assert client.get("/v1/players/pl_x", headers={"Authorization": "Basic eDp5"}).status_code == 429
    # Another address has its own.
    other = client.get("/v1/players/pl_x", environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 401


def test_the_spelling_of_the_scheme_does_not_give_a_fresh_budget(limited):
    client = limited("5/minute").test_client()
    statuses = [client.get("/v1/games", headers={"Authorization": f"{scheme} {OPERATOR_KEY}"}).status_code
                for scheme in ("Bearer", "bearer", "BEARER") * 3]
    assert statuses == [200] * 5 + [429] * 4


def test_players_and_the_address_have_budgets_of_their_own(limited, new_player):
    client = limited("3/minute").test_client()
    p1, p2 = new_player("P1"), new_player("P2")
    assert [client.get(f"/v1/players/{p1.id}", headers=p1.auth).status_code
            for _ in range(4)] == [200] * 3 + [429]
    assert [client.get(f"/v1/players/{p2.id}", headers=p2.auth).status_code
            for _ in range(4)] == [200] * 3 + [429]
    assert client.get(f"/v1/players/{p1.id}").status_code == 401  # the address: untouched


def test_a_request_costs_one_redis_round_trip_for_its_limit(limited, lone_redis, new_player,
                                                             monkeypatch):
    """The limit's whole cost in Redis is one command a request let in: no X-RateLimit headers.
    A 429 costs a second, the window's expiry, read back for its Retry-After."""
    app = limited("3/minute")
    client = app.test_client()
    p = new_player()
    client.get("/v1/players/pl_x")  # connects, and loads the limit's script into this Redis
    sends = []
    send = redis.connection.AbstractConnection.send_packed_command

    def counted(conn, command, *args, **kwargs):  # every round trip to any Redis starts here
        sends.append(command)
        return send(conn, command, *args, **kwargs)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counted)
    server = redis.Redis.from_url(lone_redis)
    server.config_resetstat()
    sends.clear()
    requests = [(f"/v1/players/{p.id}", p.auth)] * 4 + [("/v1/players/pl_x", bearer("bad"))] * 3
    statuses = [client.get(url, headers=headers).status_code for url, headers in requests]
    assert statuses == [200, 200, 200, 429, 401, 401, 429]
    assert len(sends) == len(requests) + statuses.count(429), sends
    # What reached the server: one script call each (the commands it ran inside are counted too),
    # and one TTL for each 429.
    stats = server.info("commandstats")
    assert stats["cmdstat_evalsha"]["calls"] == len(requests)
    assert stats["cmdstat_ttl"]["calls"] == statuses.count(429)


def test_limits_step_aside_when_redis_is_down(config, new_player):
    app = create_app(replace(config, redis_url="redis://127.0.0.1:1/0", rate_limit="2/minute"))
    try:
        client = app.test_client()
        p = new_player()
        assert [client.get(f"/v1/players/{p.id}", headers=p.auth).status_code
                for _ in range(4)] == [200] * 4
    finally:
        app.extensions["banco.pool"].close()


class Hanging:
    """A Redis that hangs: it takes connections and never answers (as a frozen server, or one
    behind a network that drops its replies, does). Counts the connections made to it."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}/0"
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                self.accepted.append(self.listener.accept()[0])

    def close(self) -> None:
        self.listener.close()
        for s in self.accepted:
            s.close()


def test_a_redis_that_hangs_holds_one_request_not_every_one(config, new_player, monkeypatch):
    """A fault probe froze Redis: every request waited out the limit's read timeout, and a move
    sent in the last seconds of its turn came back `turn_timed_out`. After one failure the limit
    is not counted for `PAUSE_S`: the requests after it do not ask Redis at all."""
    monkeypatch.setattr(limits, "PAUSE_S", 60.0)
    hanging = Hanging()
    app = create_app(replace(config, redis_url=hanging.url, rate_limit="2/minute"))
    try:
        client = app.test_client()
        p = new_player()
        assert [client.get(f"/v1/players/{p.id}", headers=p.auth).status_code
                for _ in range(6)] == [200] * 6
        assert len(hanging.accepted) == 1
    finally:
        app.extensions["banco.pool"].close()
        hanging.close()


def test_the_api_reference_and_the_pages_are_not_limited(limited):
    """Reading the reference (a page, its assets, the contract), the house's public key or
    loading the pages and their files spends none of the budget its address has for requests
    without a valid token. (The house key answered 429, which its operation did not list.)"""
    client = limited("3/minute").test_client()
    reference = ["/docs", "/docs/assets/swagger-ui.css", "/openapi.json", "/openapi.yaml",
                 "/.well-known/banco-house-key"] * 4
    pages = ["/", "/tables/tb_1", "/hands/hd_1", "/players/pl_1", "/console", "/static/banco.js",
             "/static/banco.css", "/static/pages/home.js"] * 4
    statuses = set()
    for path in reference + pages:
        with client.get(path) as r:  # an asset is a file the response holds open
            statuses.add(r.status_code)
    assert statuses == {200}
    assert [client.get("/v1/games").status_code for _ in range(4)] == [200] * 3 + [429]
