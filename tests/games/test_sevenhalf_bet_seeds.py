"""Seeds given with a bet (RULES.md, "Fair decks": players may add their own seed text when they
join or bet). Sette e mezzo (001_6b5bbd2473d5c47f.txt) bets before the deal, so a bet's seed
takes part in the shuffle; Siete y media and Casino pirate deal first and refuse one."""

from __future__ import annotations

import pytest

from games import deck
from games.contract import AUDITOR, SPECTATOR, IllegalMove, SeatInfo, SeedMaterial, Viewer, redact
from games.sevenhalf import ENGINES, cards
from games.sevenhalf.commands import AnnounceStake, PlaceBet, TimeOut
from tests.games.sevenhalf_support import Table, only, types

SETTE, SIETE, PIRATE = (ENGINES[g] for g in ("sette-e-mezzo", "siete-y-media", "casino-pirate"))
SERVER = "00" * 31 + "2a"
JOINED = ("alice", "", "carol")


def opened(engine=SETTE, balances=(50, 50, 50)):
    seats = [SeatInfo(i, f"p{i}", b, None, JOINED[i] or None) for i, b in enumerate(balances)]
    return Table(engine, {}, list(engine.start({}, seats, SeedMaterial(SERVER, JOINED))))


def recipe(*seeds: str) -> tuple[str, ...]:
    """The deck the recipe gives for these player seeds (games/deck.py, computed apart)."""
    return deck.shuffled(cards.composition("sette-e-mezzo", {}), SeedMaterial(SERVER, seeds))


def test_a_bet_seed_shuffles_the_deck_again_with_the_join_seeds_then_the_bet_seeds():
    """The join seeds in seat order, then the bet seeds in the order the bets were placed (seat
    2 bets before seat 1: counter-clockwise from the banker, seat 0)."""
    t = opened()
    assert t.state.order == (2, 1)
    t.when(PlaceBet(2, 1.0, 5, "second to bet? no: first"))
    events = t.when(PlaceBet(1, 2.0, 5, "bob's bet"))
    assert types(events)[:2] == ["BetPlaced", "DeckShuffled"]
    full = recipe(*JOINED, "second to bet? no: first", "bob's bet")
    shuffled = only(events, "DeckShuffled")[0]
    assert shuffled == {"player_seeds": [*JOINED, "second to bet? no: first", "bob's bet"],
                        "deck": list(full)}
    assert [d["card"] for d in only(events, "CardDealt")] == list(full[:3])
    assert full != recipe(*JOINED)


def test_only_the_bets_that_carry_a_seed_count_and_a_timeout_closes_the_betting():
    t = opened()
    t.when(PlaceBet(2, 1.0, 5, "only mine"))
    events = t.when(TimeOut(1, 1000.0))
    assert types(events)[:2] == ["SatOut", "DeckShuffled"]
    full = recipe(*JOINED, "only mine")
    assert [d["card"] for d in only(events, "CardDealt")] == list(full[:2])


def test_the_new_deck_is_the_auditors_as_the_opening_deck_is_and_the_bet_seed_is_public():
    t = opened()
    placed = t.when(PlaceBet(2, 1.0, 5, "public text"))[0]
    shuffled = next(e for e in t.when(PlaceBet(1, 2.0, 5)) if e.type == "DeckShuffled")
    for viewer in (SPECTATOR, Viewer.at_seat(0), Viewer.at_seat(1), Viewer.at_seat(2)):
        assert redact(shuffled, viewer).data == {}
        assert redact(placed, viewer).data["seed"] == "public text"
    assert redact(shuffled, AUDITOR).data["deck"] == list(recipe(*JOINED, "public text"))


def test_a_hand_with_no_bet_seed_has_exactly_the_old_events():
    t, seeded = opened(), opened()
    plain = [*t.when(PlaceBet(2, 1.0, 5)), *t.when(PlaceBet(1, 2.0, 5, None))]
    blank = [*seeded.when(PlaceBet(2, 1.0, 5, "")), *seeded.when(PlaceBet(1, 2.0, 5))]
    assert "DeckShuffled" not in types(plain)
    assert [(e.type, dict(e.data)) for e in plain] == [(e.type, dict(e.data)) for e in blank]
    assert only(plain, "BetPlaced") == [{"seat": 2, "index": 0, "amount": 5},
                                        {"seat": 1, "index": 1, "amount": 5}]
    assert [d["card"] for d in only(plain, "CardDealt")] == list(recipe(*JOINED)[:3])


def test_a_bet_seed_is_parsed_and_limited_as_a_join_seed():
    assert SETTE.parse_action(1, {"type": "bet", "amount": 5, "seed": "x" * 200}, 1.0).seed == "x" * 200
    for bad in ("x" * 201, 7, ["x"]):
        with pytest.raises(IllegalMove) as e:
            SETTE.parse_action(1, {"type": "bet", "amount": 5, "seed": bad}, 1.0)
        assert e.value.code == "bad_action"


@pytest.mark.parametrize("engine", [SIETE, PIRATE], ids=["siete-y-media", "casino-pirate"])
def test_a_game_that_deals_before_the_bets_refuses_a_bet_seed_and_says_why(engine):
    with pytest.raises(IllegalMove) as e:
        engine.parse_action(1, {"type": "bet", "amount": 1, "seed": "late"}, 1.0)
    assert e.value.code == "bad_action"
    assert e.value.message == (f"a bet takes no seed in {engine.info.title}: its cards are dealt"
                               " before the bets, and a seed given after the deal cannot take"
                               " part in their shuffle; give yours when you join")
    assert engine.parse_action(1, {"type": "bet", "amount": 1, "seed": None}, 1.0).seed is None


def test_siete_y_media_builds_on_sette_e_mezzo_and_still_refuses_it_in_decide():
    t = opened(SIETE)
    t.when(AnnounceStake(0, 1.0, 2))
    with pytest.raises(IllegalMove) as e:
        t.when(PlaceBet(t.state.phase.seat, 2.0, 2, "late"))
    assert "cards are dealt before the bets" in e.value.message
