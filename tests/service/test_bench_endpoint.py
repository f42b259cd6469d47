"""The benchmark's ceiling endpoint exists only when asked for, and does one INSERT per POST."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.http import bench_endpoint
from service.http.app import create_app
from service.runtime.config import Config, ConfigError
from tests.service.conftest import OPERATOR, bearer
from tests.service.test_config import GOOD


def test_the_flag_is_off_unless_set_to_1():
    assert Config.from_env(GOOD).bench_endpoints is False
    assert Config.from_env({**GOOD, "BANCO_BENCH_ENDPOINTS": "0"}).bench_endpoints is False
    assert Config.from_env({**GOOD, "BANCO_BENCH_ENDPOINTS": "1"}).bench_endpoints is True
    with pytest.raises(ConfigError, match="BANCO_BENCH_ENDPOINTS"):
        Config.from_env({**GOOD, "BANCO_BENCH_ENDPOINTS": "yes"})


def test_the_default_app_has_no_bench_route(app):
    assert not any(str(r).startswith("/v1/bench") for r in app.url_map.iter_rules())


def test_each_post_inserts_one_row_as_the_caller(app, config, new_player):
    pool = app.extensions["banco.pool"]
    bench_app = create_app(replace(config, bench_endpoints=True), pool=pool,
                           redis_client=app.extensions["banco.redis"])
    with pool.connection() as conn:
        bench_endpoint.create_table(conn)
        before = conn.execute(f"SELECT count(*) FROM {bench_endpoint.TABLE}").fetchone()[0]
    client = bench_app.test_client()
    player = new_player("Bench")

    assert client.post("/v1/bench/inserts").status_code == 401
    r = client.post("/v1/bench/inserts", headers=bearer(player.token))
    assert r.status_code == 201 and isinstance(r.json["id"], int)
    assert client.post("/v1/bench/inserts", headers=OPERATOR).status_code == 201
    with pool.connection() as conn:
        rows = conn.execute(f"SELECT actor FROM {bench_endpoint.TABLE} ORDER BY id").fetchall()
    assert [a for (a,) in rows[before:]] == [f"player:{player.id}", "operator:operator"]
