"""The worker through Redis outages: it keeps its process, its sweeper settles from PostgreSQL
while Redis is away, and it is listed again as soon as Redis is back, even empty; a killed
worker is soon no longer listed. Against a Redis of the module's own, killed and started again
at the same address (never the machine's)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from service.config import Config
from tests.service.play import Session
from tests.service.test_timeouts import app_on, events_of, hand_status
from workers import settlement, sweeper
from workers.queues import connect


@pytest.fixture
def own(config) -> Config:
    """The session's database with a queue of this test's own (no other worker listens)."""
    return replace(config, queue_name=f"{config.queue_name}-{time.time_ns()}")


def test_a_sweep_goes_on_from_postgresql_when_redis_fails_it(own, new_player, monkeypatch):
    """Every overdue deadline fires and every stuck hand settles in the one sweep, though each
    fired deadline's follow-up fails to reach Redis."""
    monkeypatch.setenv("DATABASE_URL", own.database_url)
    monkeypatch.setenv("BANCO_SETTLE_GRACE_S", "0")
    settlement._pool.cache_clear()
    down = replace(own, redis_url="redis://127.0.0.1:1/0")
    try:
        with app_on(down) as app:
            client = app.test_client()
            finished = Session(client, "pirate-pairs", [new_player(f"S{i}", deposit=40) for i in range(3)])
            finished.open({"stake": 5, "turn_timeout_s": 30}, 20)
            hand_id = finished.deal()
            finished.play_hand()
            late = []
            for n in range(2):
                table = Session(client, "pirate-pairs", [new_player(f"L{n}{i}", deposit=30)
                                                         for i in range(2)])
                table.open({"turn_timeout_s": 1}, 10)
                table.deal()
                late.append(table)
            time.sleep(1.2)  # the deadlines pass
            swept = sweeper.sweep(connect(down.redis_url), own.queue_name)
            assert swept.deadlines >= 2 and swept.settled >= 1
            assert hand_status(client, hand_id) == "settled"
            for table in late:
                assert any(e.data["data"].get("timeout") for e in events_of(app, table.table_id)
                           if e.type.startswith("game."))
    finally:
        settlement._pool().close()
        settlement._pool.cache_clear()
