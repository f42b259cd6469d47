"""Leaks and races at a bounded scale (tests/stress runs the same at a larger one)."""

from __future__ import annotations

from tests.service.figures import report
from tests.service.scale import ledger_health, play_many, race


def test_no_player_ever_receives_a_card_he_may_not_know(app, new_player, worker):
    figures = play_many(app, new_player, rounds=1, seed=11)
    report("leak oracle", **figures)
    assert figures["leaks"] == 0 and figures["responses checked"] > 500


def test_racing_clients_lose_nothing_and_apply_nothing_twice(app, new_player, worker):
    counts = race(app, new_player, threads=8, rounds=25, seed=5)
    health = ledger_health(app)
    report("races", **counts, **health)
    assert counts["requests"] == 200 and counts["replayed"] > 0
    assert health == {"treasure lost": 0, "negative balances": 0, "drifting balances": 0,
                      "actions applied twice": 0}
