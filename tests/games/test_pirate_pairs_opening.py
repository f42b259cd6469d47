"""Pirate pairs, setting up (RULES.md §2): deck, deal, stakes and the simultaneous opening."""

from __future__ import annotations

import pytest

from games import deck
from games.contract import SPECTATOR, Event, IllegalMove, Posting, SeatInfo, Viewer, redact
from games.pirate_pairs import ENGINE
from games.pirate_pairs import events as ev
from games.pirate_pairs.commands import Attack, ChooseOpeningCard, TimeOut
from tests.games import gwt
from tests.games.pirate_pairs_given import MATERIAL, state_of, types


def seats(n: int, ages: list[int | None] | None = None, balance: int = 10) -> list[SeatInfo]:
    return [SeatInfo(i, f"p{i}", balance, age=(ages or [30] * n)[i]) for i in range(n)]


def dealt(hands: dict[int, list[str]], ages: list[int | None] | None = None) -> list[Event]:
    """A started hand whose deal gives each seat `hands[seat]` (the pile order is forced)."""
    cards = [c for s in sorted(hands) for c in hands[s]]
    rest = [c for c in deck.pirate_pairs_55() if c not in cards]
    seat_rows = [{"seat": s, "age": (ages or [30] * len(hands))[s]} for s in sorted(hands)]
    commitment = deck.commitment(MATERIAL.server_seed)
    return [ev.hand_opened(commitment, MATERIAL, cards + rest, seat_rows, 0, 0.0, ()),
            *[ev.cards_dealt(s, hands[s]) for s in sorted(hands)]]


def test_deck_is_one_1_two_2s_to_ten_10s_shuffled_from_the_seeds():
    """002_ae078369b503c97e.txt: 55 cards, a card's value is its number of copies."""
    opened = ENGINE.start({}, seats(3), MATERIAL)[0]
    pile = opened.data["pile"]
    assert len(pile) == 55 and sorted(pile) == sorted(deck.pirate_pairs_55())
    assert tuple(pile) == deck.shuffled(deck.pirate_pairs_55(), MATERIAL, label="deck")
    assert opened.visible_to == frozenset()
    assert "server_seed" not in opened.public and "pile" not in opened.public
    assert opened.public["commitment"] == deck.commitment(MATERIAL.server_seed)


def test_three_cards_are_dealt_to_each_player_seen_by_him_alone():
    """002_ae078369b503c97e.txt: "Distribuez 3 cartes à chaque joueur"."""
    events = ENGINE.start({}, seats(4), MATERIAL)
    deals = [e for e in events if e.type == "CardsDealt"]
    assert [e.data["seat"] for e in deals] == [0, 1, 2, 3]
    for e in deals:
        assert len(e.data["cards"]) == 3 and e.visible_to == frozenset({e.data["seat"]})
        assert redact(e, SPECTATOR).data == {"seat": e.data["seat"], "count": 3}
    pile = events[0].data["pile"]
    assert deals[1].data["cards"] == [pile[1], pile[5], pile[9]]  # one card at a time, clockwise


def test_stake_is_paid_into_the_pot_at_the_start():
    """002_ae078369b503c97e.txt (RULES.md §2 optional stake): every player pays into the pot."""
    events = ENGINE.start({"stake": 3}, seats(3), MATERIAL)
    assert events[0].postings == tuple(Posting(f"seat:{i}", "pot", 3, "stake") for i in range(3))
    assert state_of(events, {"stake": 3}).pot == 9


def test_start_is_refused_when_a_seat_cannot_pay_the_stake():
    """002_ae078369b503c97e.txt (RULES.md §2 optional stake): nobody plays on credit."""
    table = [*seats(2), SeatInfo(2, "p2", 2)]
    with pytest.raises(IllegalMove) as e:
        ENGINE.start({"stake": 3}, table, MATERIAL)
    assert e.value.code == "insufficient_balance"


@pytest.mark.parametrize("n", [1, 9])
def test_two_to_eight_players(n):
    """002_ae078369b503c97e.txt (RULES.md §2): the table takes 2 to 8 players."""
    with pytest.raises(IllegalMove) as e:
        ENGINE.start({}, seats(n, [30] * n), MATERIAL)
    assert e.value.code == "bad_player_count"


def test_opening_choice_stays_hidden_until_everyone_has_chosen():
    """002_ae078369b503c97e.txt: everyone chooses and plays one card "en même temps"."""
    given = dealt({0: ["5.1", "6.1", "7.1"], 1: ["8.1", "9.1", "10.1"], 2: ["2.1", "3.1", "4.1"]})
    then = gwt.when(ENGINE, {}, given, ChooseOpeningCard(1, 1.0, "9.1"))
    assert types(then) == ["OpeningCardChosen"]
    assert then[0].visible_to == frozenset({1})
    assert redact(then[0], Viewer.at_seat(0)).data == {"seat": 1}
    state = state_of([*given, *then])
    assert "9.1" not in str(ENGINE.view(state, Viewer.at_seat(0)))
    assert ENGINE.view(state, Viewer.at_seat(1))["players"][1]["chosen"] == "9.1"


def test_last_choice_reveals_every_choice_together_and_the_lowest_starts():
    """002_ae078369b503c97e.txt: "la carte de la plus petite valeur commence"."""
    given = dealt({0: ["5.1", "6.1", "7.1"], 1: ["8.1", "9.1", "10.1"], 2: ["2.1", "3.1", "4.1"]})
    given += [*gwt.when(ENGINE, {}, given, ChooseOpeningCard(0, 1.0, "6.1")),
              *gwt.when(ENGINE, {}, given, ChooseOpeningCard(2, 1.0, "4.1"))]
    then = gwt.when(ENGINE, {}, given, ChooseOpeningCard(1, 2.0, "8.1"))
    assert types(then) == ["OpeningCardChosen", "OpeningCardsRevealed"]
    reveal = then[1]
    assert reveal.visible_to is None
    assert reveal.data["choices"] == [{"seat": 0, "card": "6.1"}, {"seat": 1, "card": "8.1"},
                                      {"seat": 2, "card": "4.1"}]
    assert reveal.data["first"] == 2
    state = state_of([*given, *then])
    assert [p.row for p in state.players] == [("6.1",), ("8.1",), ("4.1",)]
    assert ENGINE.turn(state).seat == 2


@pytest.mark.parametrize(("ages", "first"), [([20, 50, 40], 1), ([40, 40, 40], 0),
                                             ([None, 40, 40], 1)])
def test_a_tie_for_lowest_goes_to_the_oldest_then_the_lowest_seat(ages, first):
    """002_ae078369b503c97e.txt: "En cas d'égalité, le joueur le plus âgé commence"."""
    given = dealt({0: ["5.1", "6.1", "7.1"], 1: ["5.2", "9.1", "10.1"], 2: ["5.3", "3.1", "4.1"]},
                  ages)
    for s, c in [(0, "5.1"), (1, "5.2")]:
        given += gwt.when(ENGINE, {}, given, ChooseOpeningCard(s, 1.0, c))
    then = gwt.when(ENGINE, {}, given, ChooseOpeningCard(2, 1.0, "5.3"))
    assert then[-1].data["first"] == first


def test_an_opening_card_is_chosen_once_from_the_hand_before_any_move():
    """002_ae078369b503c97e.txt: each player plays exactly one card of his hand to start."""
    given = dealt({0: ["5.1", "6.1", "7.1"], 1: ["8.1", "9.1", "10.1"]})
    codes = []
    for cmd in (ChooseOpeningCard(0, 1.0, "8.1"), Attack(0, 1.0, 1, "5.1")):
        with pytest.raises(IllegalMove) as e:
            gwt.when(ENGINE, {}, given, cmd)
        codes.append(e.value.code)
    given += gwt.when(ENGINE, {}, given, ChooseOpeningCard(0, 1.0, "5.1"))
    with pytest.raises(IllegalMove) as e:
        gwt.when(ENGINE, {}, given, ChooseOpeningCard(0, 1.0, "6.1"))
    assert [*codes, e.value.code] == ["not_in_hand", "wrong_phase", "already_chosen"]


def test_timeout_while_choosing_plays_each_missing_players_lowest_card():
    """002_ae078369b503c97e.txt (RULES.md §2 timeout): he plays his lowest card."""
    given = dealt({0: ["7.1", "6.1", "6.2"], 1: ["8.1", "9.1", "10.1"], 2: ["4.1", "3.1", "2.2"]})
    given += gwt.when(ENGINE, {}, given, ChooseOpeningCard(1, 1.0, "10.1"))
    state = state_of(given)
    then = ENGINE.decide(state, ENGINE.timeout(state, 61.0))
    assert types(then) == ["OpeningCardChosen", "OpeningCardChosen", "OpeningCardsRevealed"]
    assert all(e.data["timeout"] for e in then[:2])
    assert then[-1].data["choices"] == [{"seat": 0, "card": "6.1"}, {"seat": 1, "card": "10.1"},
                                        {"seat": 2, "card": "2.2"}]
    assert isinstance(ENGINE.timeout(state, 61.0), TimeOut)
