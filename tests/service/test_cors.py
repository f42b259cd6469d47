"""Browsers' cross-origin calls: none allowed by default; an origin the operator lists
(`BANCO_CORS_ORIGINS`) may send what the API reads and read what it answers, any other gets no
`Access-Control-Allow-Origin`, and no response ever allows credentials."""

from __future__ import annotations

from dataclasses import replace

import pytest
from flask import Flask

from service.runtime.config import Config, ConfigError, cors_origins
from tests.service.conftest import OPERATOR, app_on

ALLOWED = "https://play.example.com"
OTHER = "https://evil.example.net"


@pytest.fixture(scope="module")
def allowing(config: Config):
    with app_on(replace(config, cors_origins=(ALLOWED, "http://localhost:5173"))) as app:
        yield app


def test_no_origin_is_allowed_by_default(app: Flask):
    client = app.test_client()
    r = client.get("/v1/games", headers={"Origin": ALLOWED})
    assert r.status_code == 200 and "Access-Control-Allow-Origin" not in r.headers
    pre = client.options("/v1/tables", headers={"Origin": ALLOWED,
                                                "Access-Control-Request-Method": "POST"})
    assert "Access-Control-Allow-Origin" not in pre.headers


def test_a_listed_origin_may_send_what_the_api_reads(allowing: Flask):
    pre = allowing.test_client().options("/v1/tables/tb_any/actions", headers={
        "Origin": ALLOWED, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, if-match, idempotency-key"})
    assert pre.status_code == 204  # an "ok status", which is all a preflight needs
    assert pre.headers["Access-Control-Allow-Origin"] == ALLOWED
    sent = {h.strip().lower() for h in pre.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "if-match", "idempotency-key"} <= sent
    assert "POST" in pre.headers["Access-Control-Allow-Methods"]
    assert pre.headers["Access-Control-Max-Age"] == "600"
    assert "Access-Control-Allow-Credentials" not in pre.headers


def test_a_listed_origin_reads_the_answer_and_its_version_and_any_other_does_not(
        allowing: Flask):
    client = allowing.test_client()
    created = client.post("/v1/tables", json={"game": "cassino"},
                          headers={**OPERATOR, "Origin": ALLOWED})
    assert created.status_code == 201
    assert created.headers["Access-Control-Allow-Origin"] == ALLOWED
    exposed = {h.strip() for h in created.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"ETag", "Retry-After", "Idempotent-Replayed"} <= exposed
    assert "Origin" in created.headers.get("Vary", "")
    for origin in (OTHER, ALLOWED + ".evil.example.net", "null"):
        r = client.get(f"/v1/tables/{created.json['id']}", headers={**OPERATOR, "Origin": origin})
        assert r.status_code == 200 and "Access-Control-Allow-Origin" not in r.headers
        pre = client.options("/v1/tables", headers={"Origin": origin,
                                                    "Access-Control-Request-Method": "POST"})
        assert "Access-Control-Allow-Origin" not in pre.headers


def test_the_origins_are_read_from_the_environment_and_a_wrong_one_is_refused():
    assert cors_origins({}) == ()
    assert cors_origins({"BANCO_CORS_ORIGINS": " https://A.example , http://localhost:5173,"}) == (
        "https://a.example", "http://localhost:5173")
    for bad in ("*", "https://*.example.com", "https://play.example.com/app", "play.example.com",
                "ftp://play.example.com", "https://"):
        with pytest.raises(ConfigError, match="BANCO_CORS_ORIGINS"):
            cors_origins({"BANCO_CORS_ORIGINS": bad})
