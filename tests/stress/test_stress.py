"""Longer runs of the reliability tests, excluded from the default suite.

Run: `./quickstart stress` (about 30 minutes on two cores). Set
`BANCO_STRESS_ROUNDS` to scale it. The summary table at the end reports requests sent,
responses checked, conflicts seen, faults injected, treasure lost (must be 0), leaks (must be 0).
"""

from __future__ import annotations

import os

import pytest

from tests.service import test_faults
from tests.service.figures import report
from tests.service.scale import ledger_health, play_many, race

ROUNDS = int(os.environ.get("BANCO_STRESS_ROUNDS", "30"))

pytestmark = pytest.mark.stress


def test_stress_leaks(app, new_player, worker):
    figures = play_many(app, new_player, rounds=ROUNDS, seed=2026)
    report("stress: leak oracle", **figures)
    assert figures["leaks"] == 0


def test_stress_races(app, new_player, worker):
    counts = race(app, new_player, threads=16, rounds=ROUNDS * 4, seed=99)
    health = ledger_health(app)
    report("stress: races", **counts, **health)
    assert health == {"treasure lost": 0, "negative balances": 0, "drifting balances": 0,
                      "actions applied twice": 0}


@pytest.mark.parametrize("attempt", range(3))
def test_stress_postgres_restarts(config, attempt):
    test_faults.test_postgres_restart_gives_503s_then_recovers_and_loses_nothing(config)
    report("stress: faults", **{"postgres restarts": attempt + 1})
