"""The benchmark's ceiling endpoints exist only when asked for: one INSERT per POST, and the
minimal move (a locked row, two events, the row written back)."""

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


def test_each_minimal_move_appends_two_events_after_the_callers_row_and_moves_it_on(
        app, config, new_player):
    pool = app.extensions["banco.pool"]
    bench_app = create_app(replace(config, bench_endpoints=True), pool=pool,
                           redis_client=app.extensions["banco.redis"])
    with pool.connection() as conn:
        bench_endpoint.create_table(conn)
    client = bench_app.test_client()
    player = new_player("Mover")

    assert client.post("/v1/bench/moves").status_code == 401
    versions = [client.post("/v1/bench/moves", headers=bearer(player.token)) for _ in range(3)]
    assert [(r.status_code, r.json["version"]) for r in versions] == [(201, 2), (201, 4), (201, 6)]
    with pool.connection() as conn:
        row = conn.execute(f"SELECT version FROM {bench_endpoint.MOVE_ROWS} WHERE actor = %s",
                           (f"player:{player.id}",)).fetchone()
        events = conn.execute(f"SELECT version, type FROM {bench_endpoint.MOVE_EVENTS}"
                              " WHERE stream_id = %s ORDER BY version",
                              (f"bench-player:{player.id}",)).fetchall()
        logged = conn.execute("SELECT count(*) FROM events WHERE stream_id = %s",
                              (f"bench-player:{player.id}",)).fetchone()
    assert row == (6,)
    assert events == [(v, t) for n in (1, 3, 5) for v, t in ((n, "game.Moved"),
                                                            (n + 1, "DeadlineSet"))]
    assert logged == (0,)  # the log itself is untouched
