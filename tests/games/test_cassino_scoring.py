"""Cassino scoring, variants and the pot (RULES.md §3)."""

from __future__ import annotations

import pytest

from games.cassino import ENGINE
from games.cassino.cards import DECK
from games.cassino.scoring import side_points
from games.contract import SPECTATOR, IllegalMove, Posting, SeatInfo, SeedMaterial
from tests.games.cassino_support import opening_from_deck, play, state_after
from tests.games.gwt import replay
from tests.games.test_cassino_round import DECK as ROUND_DECK
from tests.games.test_cassino_round import SCRIPT

SPADES = [c for c in DECK if c.endswith("s")]


def test_round_points_by_category():
    """003_37d90c873e067319.txt: sweep 1, ace 1, little casino 1, big casino 2."""
    points = side_points(["As", "Ah", "2s", "10d", "Kc"], 2, "classic")
    assert points == {"sweeps": 2, "aces": 2, "little_casino": 1, "big_casino": 2,
                      "most_cards": 0, "most_spades": 0, "total": 7}


def test_most_cards_needs_27_and_most_spades_7():
    """003_37d90c873e067319.txt: majority of cards (27 or more) 3, of spades (7 or more) 1."""
    hearts_clubs = [c for c in DECK if c[-1] in "hc"]
    assert side_points(hearts_clubs[:26], 0, "classic")["most_cards"] == 0
    assert side_points([*hearts_clubs[:26], "Kd"], 0, "classic")["most_cards"] == 3
    assert side_points(SPADES[:6], 0, "classic")["most_spades"] == 0
    assert side_points(SPADES[:7], 0, "classic")["most_spades"] == 1


def test_spades_cassino_counts_every_spade():
    """003_37d90c873e067319.txt: jack of spades 2, two of spades 2, other spades 1 each."""
    points = side_points(SPADES, 0, "spades")
    assert points["spade_bonus"] == 2 + 2 + 11
    assert points["total"] == 1 + 1 + 1 + 15  # ace, little casino, most spades, bonus
    assert "spade_bonus" not in side_points(SPADES, 0, "classic")


def test_spades_cassino_plays_to_61():
    """003_37d90c873e067319.txt: with spades counted the game goes to 61."""
    events = play(opening_from_deck(ROUND_DECK, variant="spades", scores=[40, 50]), SCRIPT,
                  variant="spades")
    scored = events[-1].data
    # By hand: seat 0 holds 8s 5s 9s As (4 bonus), seat 1 nine spades including Js and 2s
    # (2 + 2 + 7 = 11 bonus), on top of the classic 2 and 7 points of the same round.
    assert [s["points"]["total"] for s in scored["sides"]] == [6, 18]
    assert scored["totals"] == [46, 68] and scored["winner"] == 1
    view = ENGINE.view(state_after(events, "spades"), SPECTATOR)
    assert view["target"] == 61


def seats(n: int, balance: int = 20) -> list[SeatInfo]:
    return [SeatInfo(i, f"p{i}", balance) for i in range(n)]


def test_every_player_stakes_into_the_pot_at_the_first_round():
    """003_37d90c873e067319.txt (RULES.md §3, stake as in Pirate pairs): paid in at the opening."""
    events = ENGINE.start({"stake": 5}, seats(3), SeedMaterial("00" * 32))
    [paid] = [e for e in events if e.type == "StakesPaid"]
    assert paid.postings == tuple(Posting(f"seat:{s}", "pot", 5, "stake") for s in range(3))
    state = replay(ENGINE, {"stake": 5}, events)
    assert ENGINE.view(state, SPECTATOR)["pot"] == 15


def test_a_deal_a_seat_cannot_pay_the_stake_for_is_refused_as_in_pirate_pairs():
    """003_37d90c873e067319.txt (RULES.md §3: "optional stake as in 2"): a seat that cannot pay
    the stake is refused with Pirate pairs' code, one code for the one condition."""
    with pytest.raises(IllegalMove) as e:
        ENGINE.start({"stake": 5}, seats(3, balance=4), SeedMaterial("00" * 32))
    assert e.value.code == "insufficient_balance"


def test_only_the_round_that_ends_the_game_settles_the_pot():
    """003_37d90c873e067319.txt: the winner takes the pot; other rounds post nothing."""
    going_on = state_after(play(opening_from_deck(ROUND_DECK, stake=5, pot=10), SCRIPT))
    assert ENGINE.is_terminal(going_on) and ENGINE.settle(going_on) == []
    won = state_after(play(opening_from_deck(ROUND_DECK, stake=5, pot=10, scores=[19, 13]),
                           SCRIPT))
    assert ENGINE.settle(won) == [Posting("pot", "seat:0", 10, "pot_won")]
    with pytest.raises(IllegalMove) as e:
        ENGINE.start({"stake": 5}, seats(2), SeedMaterial("00" * 32), previous=won)
    assert e.value.code == "table_over"


def test_a_game_closed_before_it_is_won_gives_each_stake_back():
    """003_37d90c873e067319.txt pays the pot to the game's winner only: a table closed between
    rounds, with no winner, returns each player the stake he paid (RULES.md §3, stake as in 2)."""
    going_on = state_after(play(opening_from_deck(ROUND_DECK, stake=5, pot=10), SCRIPT))
    assert ENGINE.refund(going_on) == [Posting("pot", "seat:0", 5, "stake_returned"),
                                       Posting("pot", "seat:1", 5, "stake_returned")]
    won = state_after(play(opening_from_deck(ROUND_DECK, stake=5, pot=10, scores=[19, 13]),
                           SCRIPT))
    assert ENGINE.refund(won) == []  # the winner's, by settle
    unstaked = state_after(play(opening_from_deck(ROUND_DECK), SCRIPT))
    assert ENGINE.refund(unstaked) == []
    # Nothing is made or lost: what is returned is the pot, to the unit.
    four = state_after(opening_from_deck(DECK, players=4, stake=3, pot=14))
    assert sum(p.amount for p in ENGINE.refund(four)) == 14
    assert [p.amount for p in ENGINE.refund(four)] == [5, 3, 3, 3]


def test_four_players_score_as_teams_and_split_the_pot():
    """003_37d90c873e067319.txt: with four, partners opposite; the lower seat gets an odd unit."""
    events = opening_from_deck(DECK, players=4, stake=3, pot=7, scores=[30, 0])
    state = state_after(events)
    while not ENGINE.is_terminal(state):
        for e in ENGINE.decide(state, ENGINE.timeout(state, 0.0)):
            state = ENGINE.evolve(state, e)
    view = ENGINE.view(state, SPECTATOR)
    assert view["teams"] == [[0, 2], [1, 3]]
    assert len(view["scores"]) == 2 and view["phase"]["winning_seats"] == [0, 2]
    taken = [c["count"] for c in view["captured"]]
    assert [view["round_points"][0]["total"] + 30, view["round_points"][1]["total"]] == \
        view["scores"]
    assert sum(taken) == 52
    assert ENGINE.settle(state) == [Posting("pot", "seat:0", 4, "pot_won"),
                                    Posting("pot", "seat:2", 3, "pot_won")]
