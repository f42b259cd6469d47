"""Cassino plays (RULES.md §3): captures, builds, extensions, reserves, trailing, timeouts."""

from __future__ import annotations

import pytest

from games.cassino import ENGINE
from games.contract import AUDITOR, IllegalMove
from tests.games.cassino_support import (
    act,
    build,
    capture,
    extend,
    opening,
    play,
    reserve,
    state_after,
    trail,
    types,
)


def refused(given, seat, action) -> str:
    with pytest.raises(IllegalMove) as e:
        act(given, seat, action)
    return e.value.code


def table_of(events) -> list:
    return ENGINE.view(state_after(events), AUDITOR)["table"]

MATCHING = opening({1: ["5h", "Kh", "Qh", "Jh"], 0: ["9c", "9d", "Kc", "Kd"]},
                   ["5c", "5d", "2s", "3s"])


def test_matching_takes_every_card_of_that_value():
    """003_37d90c873e067319.txt: two cards like the one played are both taken."""
    assert refused(MATCHING, 1, capture("5h", "5c")) == "must_take_matching"
    [event] = act(MATCHING, 1, capture("5h", "5c", "5d"))
    assert event.type == "CardsCaptured"
    assert event.data["cards"] == ["5h", "5c", "5d"] and not event.data["sweep"]


def test_legal_actions_list_every_capture_set():
    """003_37d90c873e067319.txt: matches, and sets adding up to the card, as choices."""
    actions = ENGINE.legal_actions(state_after(MATCHING), 1)
    assert actions == [capture("5h", "5c", "5d"), capture("5h", "5c", "5d", "2s", "3s")]
    assert ENGINE.legal_actions(state_after(MATCHING), 0) == []


FIGURES = opening({1: ["Kh", "10h", "2c", "3c"], 0: ["9c", "9d", "Qc", "Qd"]},
                  ["Kc", "Kd", "4s", "6s"])


def test_figures_are_captured_only_by_matching_one_at_a_time():
    """003_37d90c873e067319.txt: figures have no value; a figure takes one figure only."""
    assert refused(FIGURES, 1, capture("Kh", "Kc", "Kd")) == "bad_capture"
    assert refused(FIGURES, 1, capture("Kh", "4s")) == "bad_capture"
    assert refused(FIGURES, 1, capture("10h", "4s", "6s", "Kc")) == "bad_capture"
    assert refused(FIGURES, 1, build("Kh", 10, "4s")) == "figure_cannot_build"
    offered = [a for a in ENGINE.legal_actions(state_after(FIGURES), 1) if a["card"] == "Kh"]
    assert offered == [capture("Kh", "Kd"), capture("Kh", "Kc")]  # suits in s, h, d, c order
    [event] = act(FIGURES, 1, capture("Kh", "Kd"))
    assert event.data["cards"] == ["Kh", "Kd"]


SUMS = opening({1: ["10h", "Kh", "Qh", "Jh"], 0: ["9c", "9d", "Kc", "Kd"]},
               ["7c", "3d", "6s", "4h"])


def test_sums_capture_several_sets_at_once_and_a_sweep_scores():
    """003_37d90c873e067319.txt: a ten takes a seven and a three, and a six and a four."""
    assert refused(SUMS, 1, capture("10h", "7c", "4h")) == "bad_capture"
    [event] = act(SUMS, 1, capture("10h", "7c", "3d", "6s", "4h"))
    assert event.data["sweep"] is True
    view = ENGINE.view(state_after([*SUMS, event]), AUDITOR)
    assert view["table"] == [] and view["captured"][1]["sweeps"] == 1
    offered = ENGINE.legal_actions(state_after(SUMS), 1)
    assert capture("10h", "7c", "3d") in offered and capture("10h", "6s", "4h") in offered


BUILD = opening({1: ["3h", "8c", "Kh", "Qh"], 0: ["8d", "2c", "Ks", "Qs"]},
                ["5d", "9s", "Jc", "Jd"])


def test_a_build_needs_another_card_of_its_value():
    """003_37d90c873e067319.txt: to build he must be able to take the build later."""
    no_eight = opening({1: ["3h", "7c", "Kh", "Qh"], 0: ["8d", "2c", "Ks", "Qs"]},
                       ["5d", "9s", "Jc", "Jd"])
    assert refused(no_eight, 1, build("3h", 8, "5d")) == "must_hold_value"
    assert refused(BUILD, 1, build("3h", 9, "5d")) == "wrong_value"
    [event] = act(BUILD, 1, build("3h", 8, "5d"))
    assert event.type == "BuildMade"
    [item] = [i for i in table_of([*BUILD, event]) if i["kind"] == "build"]
    assert item == {"id": "build-1", "kind": "build", "cards": ["5d", "3h"], "value": 8,
                    "owner": 1, "reserved": False}


def test_anyone_holding_the_value_captures_a_build():
    """003_37d90c873e067319.txt: any other player holding an eight may take the build of eight."""
    given = play(BUILD, [(1, build("3h", 8, "5d"))])
    [event] = act(given, 0, capture("8d", "build-1"))
    assert event.data["cards"] == ["8d", "5d", "3h"]


EXTEND = opening({1: ["2h", "5c", "Ac", "6h"], 0: ["Ah", "6c", "Kd", "Qd"]},
                 ["3d", "9s", "Jc", "Jd"])


def test_another_players_build_can_be_extended():
    """003_37d90c873e067319.txt: building sixes, the next player adds a two: building eights."""
    given = play(EXTEND, [(1, build("2h", 5, "3d"))])
    [event] = act(given, 0, extend("Ah", "build-1", 6))
    assert event.type == "BuildExtended"
    [item] = [i for i in table_of([*given, event]) if i["kind"] == "build"]
    assert (item["value"], item["owner"], item["cards"]) == (6, 0, ["3d", "2h", "Ah"])


def test_an_extension_needs_a_card_of_the_new_value_and_a_hand_card():
    """003_37d90c873e067319.txt: no table card may extend a build."""
    no_six = opening({1: ["2h", "5c", "Ac", "6h"], 0: ["Ah", "7c", "Kd", "Qd"]},
                     ["3d", "9s", "Jc", "Jd"])
    given = play(no_six, [(1, build("2h", 5, "3d"))])
    assert refused(given, 0, extend("Ah", "build-1", 6)) == "must_hold_value"
    assert refused(given, 0, extend("9s", "build-1", 10)) == "card_not_in_hand"
    assert refused(given, 0, build("Ah", 6, "build-1")) == "bad_build"


def test_nobody_extends_his_own_build():
    """003_37d90c873e067319.txt: a player may not extend his own builds."""
    own = opening({1: ["2h", "5c", "Ac", "6h"], 0: ["Ks", "Qs", "Kd", "Qd"]},
                  ["3d", "9s", "Jc", "Jd"])
    given = play(own, [(1, build("2h", 5, "3d")), (0, trail("Qs"))])
    assert refused(given, 1, extend("Ac", "build-1", 6)) == "own_build"
    assert all(a["type"] != "extend" for a in ENGINE.legal_actions(state_after(given), 1))


RESERVE = opening({1: ["8h", "8c", "Kh", "Qh"], 0: ["Ah", "8d", "Kd", "Qd"]},
                  ["5d", "3s", "Jc", "Jd"])


def test_eight_reserved_cannot_be_extended_but_can_be_captured():
    """003_37d90c873e067319.txt: "huit réservé"; another player holding an eight may take it."""
    [event] = act(RESERVE, 1, reserve("8h", 8, "5d", "3s"))
    assert event.type == "BuildReserved"
    given = [*RESERVE, event]
    [item] = [i for i in table_of(given) if i["kind"] == "build"]
    assert (item["value"], item["reserved"], item["cards"]) == (8, True, ["5d", "3s", "8h"])
    assert refused(given, 0, extend("Ah", "build-1", 9)) == "build_reserved"
    [taken] = act(given, 0, capture("8d", "build-1"))
    assert sorted(taken.data["cards"]) == sorted(["8d", "5d", "3s", "8h"])


def test_reserving_needs_another_card_of_the_value():
    """003_37d90c873e067319.txt: he covers the combination while holding a second eight."""
    single = opening({1: ["8h", "7c", "Kh", "Qh"], 0: ["Ah", "8d", "Kd", "Qd"]},
                     ["5d", "3s", "Jc", "Jd"])
    assert refused(single, 1, reserve("8h", 8, "5d", "3s")) == "must_hold_value"
    assert refused(RESERVE, 1, reserve("8h", 8, "5d")) == "bad_reserve"


def test_trailing_only_when_nothing_can_be_taken_or_built():
    """003_37d90c873e067319.txt: a player who can take nothing lays a card face up."""
    assert refused(MATCHING, 1, trail("Kh")) == "trail_not_allowed"
    stuck = opening({1: ["Kh", "Qh", "4c", "4d"], 0: ["9c", "9d", "Kc", "Kd"]},
                    ["Jc", "Jd", "9s", "8s"])
    offered = ENGINE.legal_actions(state_after(stuck), 1)
    assert offered == [trail("Qh"), trail("Kh"), trail("4d"), trail("4c")]
    [event] = act(stuck, 1, trail("4d"))
    assert event.type == "CardTrailed" and "4d" in [i["id"] for i in table_of([*stuck, event])]


def test_an_owner_of_a_build_may_not_trail():
    """003_37d90c873e067319.txt, Decision: a player who owns a build on the table may not trail."""
    own = opening({1: ["2h", "5c", "Kh", "Qh"], 0: ["Ks", "Qs", "Kd", "Qd"]},
                  ["3d", "9s", "Jc", "Jd"])
    given = play(own, [(1, build("2h", 5, "3d")), (0, trail("Kd"))])
    assert refused(given, 1, trail("Qh")) == "owns_build"
    assert capture("5c", "build-1") in ENGINE.legal_actions(state_after(given), 1)


def test_a_timeout_trails_the_lowest_value_card():
    """003_37d90c873e067319.txt: a silent player trails his lowest card (figures are worth 0)."""
    stuck = opening({1: ["Kh", "4c", "Qh", "4d"], 0: ["9c", "9d", "Kc", "Kd"]},
                    ["Jc", "Jd", "9s", "8s"])
    state = state_after(stuck)
    [event] = ENGINE.decide(state, ENGINE.timeout(state, 5.0))
    assert (event.type, event.data["card"], event.data["timeout"]) == ("CardTrailed", "Qh", True)


def test_a_timeout_that_may_not_trail_makes_the_first_capture():
    """003_37d90c873e067319.txt: when trailing is not allowed, the first capture listed."""
    state = state_after(MATCHING)
    [event] = ENGINE.decide(state, ENGINE.timeout(state, 5.0))
    assert event.type == "CardsCaptured" and event.data["take"] == ["5c", "5d"]
    assert event.data["timeout"] is True


def test_plays_out_of_turn_or_unknown_are_refused():
    """003_37d90c873e067319.txt: the player to the dealer's left starts, then clockwise."""
    assert refused(MATCHING, 0, trail("Kc")) == "not_your_turn"
    assert refused(MATCHING, 1, capture("9c", "5c")) == "card_not_in_hand"
    assert refused(MATCHING, 1, capture("5h", "build-9")) == "unknown_item"
    assert types(act(MATCHING, 1, capture("5h", "5c", "5d"))) == ["CardsCaptured"]
