"""Every registered engine honours the shared contract the REST layer relies on."""

from __future__ import annotations

import json
import secrets

import pytest

from games.contract import AUDITOR, SPECTATOR, SeatInfo, SeedMaterial, Viewer
from games.registry import engines
from tests.games.gwt import replay

SERVED = [(name, version) for name, versions in engines().items() for version in versions]


@pytest.mark.parametrize(("name", "version"), SERVED)
def test_engine_opens_a_hand_that_every_viewer_can_see_as_json(name, version):
    engine = engines()[name][version]
    assert (engine.info.name, engine.info.version) == (name, version)
    options = engine.options_schema().load({})
    players = max(engine.info.min_players, 2)
    seats = [SeatInfo(i, f"p{i}", 100, age=30 + i) for i in range(players)]
    events = engine.start(options, seats, SeedMaterial(secrets.token_hex(32)))
    assert events
    for event in events:
        json.dumps(event.data)
        json.dumps(event.public or {})
    state = replay(engine, options, events)
    for viewer in [AUDITOR, SPECTATOR, *(Viewer.at_seat(i) for i in range(players))]:
        json.dumps(engine.view(state, viewer))
    actions = [a for i in range(players) for a in engine.legal_actions(state, i)]
    assert actions and all(isinstance(a["type"], str) for a in actions)
    assert not engine.is_terminal(state)
