"""A whole Cassino round played from a fixed deal and scored by hand (RULES.md §3)."""

from __future__ import annotations

import pytest

from games.cassino import ENGINE
from games.contract import SPECTATOR
from tests.games.cassino_support import (
    build,
    capture,
    extend,
    opening_from_deck,
    play,
    state_after,
    trail,
    types,
)

# Seat 0 deals; seat 1 (on the dealer's left) gets Ac 10s Qh 10c, seat 0 gets 3s Kh 9h 10h,
# the table shows Jh 7s 7d 4s; the other 40 cards follow in this order, 8 per re-deal.
DECK = ['Ac', '10s', '3s', 'Kh', 'Qh', '10c', '9h', '10h', 'Jh', '7s', '7d', '4s',
        '6s', '6c', '5h', '8s', '4c', '4d', '2h', '9d',
        'Qs', 'Js', '2d', '9c', '10d', '2c', 'Ad', '8c',
        'Ah', '4h', '3d', '2s', 'Ks', 'Jd', '9s', '3h',
        '8d', 'Kd', '8h', '3c', '5d', '6d', 'Kc', '5s',
        'Jc', '7h', '7c', 'Qc', '6h', 'As', 'Qd', '5c']

SCRIPT = [
    (1, trail('Qh')),                 # nothing to take or build: trail (a figure, worth nothing)
    (0, build('3s', 10, '7s')),       # "building tens", holding 9h and 10h
    (1, capture('10s', 'build-1')),   # anyone holding a ten takes a build of ten
    (0, trail('Kh')),
    (1, trail('Ac')),
    (0, build('9h', 10, 'Ac')),
    (1, capture('10c', 'build-2')),
    (0, trail('10h')),
    # second deal: seat 1 6s 6c 4c 4d, seat 0 5h 8s 2h 9d
    (1, capture('4d', '4s')),
    (0, build('2h', 9, '7d')),
    (1, trail('4c')),
    (0, capture('9d', 'build-3')),
    (1, trail('6s')),
    (0, trail('5h')),
    (1, capture('6c', '6s')),
    (0, trail('8s')),
    # third deal: seat 1 Qs Js 10d 2c, seat 0 2d 9c Ad 8c
    (1, capture('Js', 'Jh')),         # a figure takes one figure of its rank
    (0, capture('8c', '8s')),
    (1, capture('Qs', 'Qh')),
    (0, capture('9c', '4c', '5h')),   # a set adding up to nine
    (1, capture('10d', '10h')),       # big casino
    (0, trail('Ad')),
    (1, trail('2c')),
    (0, capture('2d', '2c')),
    # fourth deal: seat 1 Ah 4h Ks Jd, seat 0 3d 2s 9s 3h
    (1, capture('Ks', 'Kh')),
    (0, build('2s', 3, 'Ad')),        # building threes, holding 3d and 3h
    (1, extend('Ah', 'build-4', 4)),  # seat 1 makes it a four with his ace, holding 4h
    (0, trail('3h')),
    (1, capture('4h', 'build-4')),    # little casino and two aces go to seat 1
    (0, capture('3d', '3h')),         # the table is empty: a sweep for seat 0
    (1, trail('Jd')),
    (0, trail('9s')),
    # fifth deal: seat 1 8d Kd 5d 6d, seat 0 8h 3c Kc 5s
    (1, trail('Kd')),
    (0, capture('Kc', 'Kd')),
    (1, trail('5d')),
    (0, capture('5s', '5d')),
    (1, trail('6d')),
    (0, trail('3c')),
    (1, trail('8d')),
    (0, capture('8h', '8d')),
    # sixth and last deal: seat 1 Jc 7h 6h As, seat 0 7c Qc Qd 5c
    (1, capture('Jc', 'Jd')),
    (0, trail('Qd')),
    (1, capture('6h', '6d')),
    (0, capture('Qc', 'Qd')),
    (1, trail('As')),
    (0, trail('5c')),
    (1, trail('7h')),
    (0, capture('7c', '7h')),         # last capture: seat 0 also takes 9s 3c As 5c, no sweep
]

# Scored by hand from the piles above:
# seat 0 took 26 cards: 9d 7d 2h 8c 8s 9c 4c 5h 2d 2c 3d 3h Kc Kd 5s 5d 8h 8d Qc Qd 7c 7h
#   and the leftovers 9s 3c As 5c; one ace (As), spades 8s 5s 9s As = 4, one sweep -> 2 points.
# seat 1 took 26 cards: 10s 7s 3s 10c Ac 9h 4d 4s 6c 6s Js Jh Qs Qh 10d 10h Ks Kh 4h Ad 2s Ah
#   Jc Jd 6h 6d; aces Ac Ad Ah = 3, big casino 2, little casino 1, nine spades -> 1: 7 points.
# 26 cards each: nobody has 27, so nobody scores the 3 for cards.
SEAT_0 = {"sweeps": 1, "aces": 1, "little_casino": 0, "big_casino": 0, "most_cards": 0,
          "most_spades": 0, "total": 2}
SEAT_1 = {"sweeps": 0, "aces": 3, "little_casino": 1, "big_casino": 2, "most_cards": 0,
          "most_spades": 1, "total": 7}


def round_events(scores: list[int]) -> list:
    return play(opening_from_deck(DECK, scores=scores), SCRIPT)


def test_a_round_played_out_scores_as_counted_by_hand():
    """003_37d90c873e067319.txt: the whole round, with a 26-26 split of the cards."""
    events = round_events([0, 0])
    scored = events[-1]
    assert types(events)[-2:] == ["LeftoversTaken", "RoundScored"]
    assert events[-2].data == {"seat": 0, "cards": ["9s", "3c", "As", "5c"]}
    assert [s["points"] for s in scored.data["sides"]] == [SEAT_0, SEAT_1]
    assert [s["cards"] for s in scored.data["sides"]] == [26, 26]
    assert scored.data["totals"] == [2, 7]
    assert scored.data["winner"] is None
    state = state_after(events)
    assert ENGINE.is_terminal(state) and not ENGINE.table_over(state, 0.0)
    assert ENGINE.view(state, SPECTATOR)["round_points"] == [SEAT_0, SEAT_1]


@pytest.mark.parametrize(("before", "totals", "winner"), [
    ([19, 13], [21, 20], 0),      # one side reaches 21
    ([19, 15], [21, 22], 1),      # both reach it: the highest total wins
    ([19, 14], [21, 21], None),   # equal top total: another round
    ([10, 10], [12, 17], None),   # nobody reached 21
])
def test_game_to_21_highest_total_wins_and_equal_tops_play_again(before, totals, winner):
    """003_37d90c873e067319.txt: rounds until 21; Decision on several reaching it and ties."""
    state = state_after(round_events(before))
    scored = ENGINE.view(state, SPECTATOR)
    assert scored["scores"] == totals
    assert scored["phase"]["winner"] == winner
    assert ENGINE.table_over(state, 0.0) is (winner is not None)


def test_the_last_capturer_takes_the_leftovers_without_a_sweep():
    """003_37d90c873e067319.txt: after the last deal the last to take gets the rest, no sweep."""
    events = round_events([0, 0])
    last_play, leftovers = events[-3], events[-2]
    assert last_play.data["seat"] == 0 and last_play.data["sweep"] is False
    assert leftovers.type == "LeftoversTaken" and leftovers.data["seat"] == 0
    view = ENGINE.view(state_after(events), SPECTATOR)
    assert view["table"] == [] and [c["sweeps"] for c in view["captured"]] == [1, 0]
