"""Pirate pairs behind the engine contract: timeouts, options, actions, unknown events."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from games.contract import Event, IllegalMove
from games.pirate_pairs import ENGINE, ENGINES
from games.pirate_pairs.commands import Accuse, Attack, ChooseOpeningCard, Draw, TimeOut
from tests.games.pirate_pairs_given import state_of, table, types


def test_timeout_draws_for_the_player():
    """002_ae078369b503c97e.txt (RULES.md §2 timeout): the player draws."""
    state = state_of(table(hands={0: ["5.1"], 1: ["7.1"]}, rows={0: ["2.1"], 1: ["3.1"]},
                           pile=["9.1"], turn=1))
    then = ENGINE.decide(state, ENGINE.timeout(state, 99.0))
    assert types(then) == ["CardDrawn", "TurnPassed"]
    assert then[0].data == {"seat": 1, "card": "9.1", "timeout": True}
    assert then[0].public == {"seat": 1, "timeout": True}


def test_timeout_with_nothing_to_draw_makes_the_first_legal_attack():
    """002_ae078369b503c97e.txt (RULES.md §2 timeout, our fallback): clockwise, lowest card."""
    state = state_of(table(hands={0: ["9.1", "5.1"], 1: ["7.1"], 2: ["8.1"]},
                           rows={0: ["2.1"], 1: ["3.1", "5.2"], 2: ["4.1"]}, turn=0))
    then = ENGINE.decide(state, TimeOut(0, 99.0))
    assert then[0].data == {"seat": 0, "target": 1, "card": "9.1", "timeout": True}
    assert then[1].data["seat"] == 1


def test_timeout_with_nothing_to_draw_nor_attack_accuses_the_next_player():
    """002_ae078369b503c97e.txt (RULES.md §2 timeout, our fallback): accuse the left player."""
    # Seat 1's only card pairs both other rows, and there is nothing to draw.
    state = state_of(table(hands={0: ["5.1"], 1: ["3.2"], 2: ["4.1"]},
                           rows={0: ["3.1"], 1: ["8.1"], 2: ["3.3"]}, turn=1))
    then = ENGINE.decide(state, ENGINE.timeout(state, 99.0))
    assert then[0].type == "PlayerAccused"
    assert then[0].public == {"seat": 1, "target": 2, "timeout": True}


def test_options_default_and_validate():
    """002_ae078369b503c97e.txt (RULES.md §2): options `stake` (0) and `turn_timeout_s`."""
    assert ENGINE.options_schema().load({}) == {"stake": 0, "turn_timeout_s": 60}
    for bad in ({"stake": -1}, {"turn_timeout_s": 0}, {"stake": "x"}):
        with pytest.raises(ValidationError):
            ENGINE.options_schema().load(bad)
    assert (ENGINE.info.min_players, ENGINE.info.max_players) == (2, 8)
    assert ENGINES == {"pirate-pairs": ENGINE} and ENGINE.info.name == "pirate-pairs"


def test_parse_action_builds_commands_and_refuses_bad_payloads():
    """002_ae078369b503c97e.txt: the four moves and the opening choice, as client payloads."""
    assert ENGINE.parse_action(1, {"type": "choose", "card": "7.3"}, 5.0) == ChooseOpeningCard(
        1, 5.0, "7.3")
    assert ENGINE.parse_action(1, {"type": "attack", "target": 0, "card": "7.3"}, 5.0) == Attack(
        1, 5.0, 0, "7.3")
    assert ENGINE.parse_action(1, {"type": "accuse", "target": 2}, 5.0) == Accuse(1, 5.0, 2)
    assert ENGINE.parse_action(1, {"type": "draw"}, 5.0) == Draw(1, 5.0)
    for bad in ({}, {"type": "fold"}, {"type": "accuse"}, {"type": "accuse", "target": True},
                {"type": "attack", "target": 0, "card": 7}, {"type": "challenge", "target": "1"}):
        with pytest.raises(IllegalMove) as e:
            ENGINE.parse_action(1, bad, 5.0)
        assert e.value.code == "bad_action"


def test_evolve_ignores_events_it_does_not_know():
    """002_ae078369b503c97e.txt: the service adds its own events (SeedRevealed, HandSettled)."""
    state = state_of(table(hands={0: ["5.1"], 1: ["7.1"]}, rows={0: ["2.1"], 1: ["3.1"]}))
    assert ENGINE.evolve(state, Event("SeedRevealed", {"server_seed": "00"})) == state


def test_commands_before_the_hand_opens_are_refused():
    """002_ae078369b503c97e.txt: nothing is played before the deal."""
    with pytest.raises(IllegalMove) as e:
        ENGINE.decide(ENGINE.initial_state({}), Draw(0, 0.0))
    assert e.value.code == "unknown_seat"
    assert ENGINE.turn(ENGINE.initial_state({})) is None


def test_a_finished_game_has_no_timeout_and_an_unfinished_one_does_not_settle():
    """002_ae078369b503c97e.txt: nothing is left to time out once the last pirate wins."""
    given = table(hands={0: ["5.1"], 1: ["6.1", "6.2"]}, rows={0: ["2.1"], 1: ["3.1"]})
    with pytest.raises(IllegalMove) as e:
        ENGINE.settle(state_of(given))
    assert e.value.code == "wrong_phase"
    finished = state_of([*given, *ENGINE.decide(state_of(given), Accuse(0, 1.0, 1))])
    with pytest.raises(IllegalMove) as e:
        ENGINE.timeout(finished, 9.0)
    assert e.value.code == "wrong_phase"
