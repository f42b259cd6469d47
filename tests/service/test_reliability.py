"""Leaks and races at a bounded scale (tests/stress runs the same at a larger one)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from flask import Flask

from service.runtime import embedded
from service.runtime.config import Config
from tests.conftest import fresh_database
from tests.service.conftest import app_on
from tests.service.figures import report
from tests.service.scale import ledger_health, play_many, race


# The ledger's health is read over the whole log: on a database of the module's own, so that what
# other tests wrote by design (a key used again after its retention, a new request) is not counted,
# whichever of them ran before on the same worker.
@pytest.fixture(scope="module")
def config(servers: embedded.EmbeddedServers, config: Config) -> Iterator[Config]:
    with fresh_database(servers.database_url, "banco_reliability") as url:
        yield replace(config, database_url=url, queue_name=f"{config.queue_name}-reliability")


@pytest.fixture(scope="module")
def app(config: Config) -> Iterator[Flask]:
    with app_on(config) as app:
        yield app


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
