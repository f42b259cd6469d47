"""Headers: nosniff everywhere, no-store on what is private or an error, Retry-After only with
429 and 503, Allow with 405; and gunicorn's own refusals in problem+json."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from dataclasses import replace

import orjson
import pytest
import redis
from werkzeug.test import TestResponse

from service.http.app import create_app
from service.runtime.config import Config
from tests.service.conftest import OPERATOR, OPERATOR_KEY, banco_serve


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
              client.get("/v1/players/pl_missing", headers=OPERATOR),
              # Not redirected (an HTML 308 no error handler saw) to the route it resembles.
              client.get("/v1//tables", headers=OPERATOR),
              client.get(f"/v1/players//{p.id}", headers=OPERATOR)]
    assert [r.status_code for r in errors] == [404, 401, 422, 404, 404, 404]
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
    ("DELETE", "/v1/players", {"GET", "HEAD", "POST", "OPTIONS"}),
    ("PUT", "/v1/games", {"GET", "HEAD", "OPTIONS"}),
    ("DELETE", "/v1/players/pl_1/deposits", {"POST", "OPTIONS"}),
    ("PATCH", "/v1/tables", {"GET", "HEAD", "POST", "OPTIONS"}),
])
def test_a_405_says_what_is_allowed(client, method, path, allowed):
    r = client.open(path, method=method, headers=OPERATOR)
    assert r.status_code == 405 and r.mimetype == "application/problem+json"
    assert set(r.headers["Allow"].split(", ")) == allowed
    secure(r)


@pytest.mark.parametrize(("path", "allowed"), [("/v1/players", {"GET", "HEAD", "POST", "OPTIONS"}),
                                              ("/v1/players/pl_1/deposits", {"POST", "OPTIONS"})])
def test_options_says_what_is_allowed_and_nothing_else(client, path, allowed):
    """OPTIONS answered 200 with an empty text/html body."""
    r = client.options(path)
    assert r.status_code == 204 and r.data == b"" and "Content-Type" not in r.headers
    assert set(r.headers["Allow"].split(", ")) == allowed


@pytest.fixture(scope="module")
def served(config: Config) -> Iterator[int]:
    """`banco serve` on the session's servers: its port."""
    with banco_serve(config, "--workers", "1", "--threads", "4") as port:
        yield port


def raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), {k.lower(): v for k, v in headers.items()}, body


@pytest.mark.parametrize(("request_bytes", "status", "code"), [
    (b"GET /healthz?" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request_line_too_long"),
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Note: a\x01b\r\n\r\n", 400, "bad_request"),
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(120))
     + b"\r\n", 431, "headers_too_large"),
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431,
     "headers_too_large"),
    # Each header within gunicorn's limits, the head over Banco's 64 KiB in all.
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: %s\r\n" % (i, b"h" * 1000)
                                                         for i in range(70)) + b"\r\n", 431,
     "headers_too_large"),
], ids=["request-line", "control-character", "too-many-headers", "header-too-large",
        "head-too-large"])
def test_gunicorn_refuses_in_problem_json(served, request_bytes, status, code):
    got, headers, body = raw(served, request_bytes)
    assert got == status, body
    assert headers["content-type"] == "application/problem+json"
    assert headers["x-content-type-options"] == "nosniff" and headers["cache-control"] == "no-store"
    problem = orjson.loads(body)
    assert (problem["status"], problem["code"]) == (status, code) and problem["detail"]


def test_the_app_behind_gunicorn_answers_with_its_headers(served):
    got, headers, _ = raw(served, b"GET /v1/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                          b"Authorization: Bearer " + OPERATOR_KEY.encode() + b"\r\n\r\n")
    assert got == 200
    assert headers["x-content-type-options"] == "nosniff" and headers["cache-control"] == "no-store"
    assert "retry-after" not in headers


def test_a_connection_is_kept_alive_from_request_to_request(served):
    """gunicorn keeps a client's connection for his next request (it keeps none when its
    connections do not outnumber its threads, as `banco serve` once set them)."""
    conn = http.client.HTTPConnection("127.0.0.1", served, timeout=10)
    try:
        sockets = []
        for _ in range(3):
            conn.request("GET", "/v1/games", headers={"Authorization": f"Bearer {OPERATOR_KEY}"})
            r = conn.getresponse()
            r.read()
            assert r.status == 200 and r.getheader("Connection", "").lower() != "close"
            sockets.append(conn.sock)
        assert sockets[0] is not None and sockets[0] is sockets[1] is sockets[2]
    finally:
        conn.close()
