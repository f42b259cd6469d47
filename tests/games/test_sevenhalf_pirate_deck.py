"""Casino pirate's deck serves a whole hand (RULES.md §1c, seed 000_1414b0b0fea70c86.txt: the
meneur shuffles the cards once, and a player "peut demander autant de cartes qu'il le
souhaite"); the bound decided in games/sevenhalf/rules.md, "The deck's size"."""

from __future__ import annotations

import random

import pytest
from marshmallow import ValidationError

from games import registry
from games.contract import IllegalMove, SeatInfo
from games.deck import pirate_casino
from games.sevenhalf import ENGINES, cards, pirate_deck
from tests.games.sevenhalf_support import SEED

G = "casino-pirate"
TINY = {"gems": 1, "gold_coins": 0, "pebbles": 0, "skeletons": 0}  # 7 gems, 28 points


def least(hand: list[str]) -> int:
    """A hand's total in half-points, each skeleton at 1: the least it may count, and so the
    total by which it busts."""
    return sum(2 if cards.is_joker(G, c) else cards.value(G, c) or 0 for c in hand)


def runs_dry(deck: list[str], seats: int) -> bool:
    """Whether the deck, in this order, runs out while a hand asks for a card, every hand
    drawing until it busts: one card to each player, then each player in turn, then the meneur."""
    top = iter(deck)
    hands = [[next(top, None)] for _ in range(seats - 1)]
    if None in (h[0] for h in hands):
        return True
    for hand in [*hands, []]:
        while least(hand) <= cards.SEVEN_HALF:
            card = next(top, None)
            if card is None:
                return True
            hand.append(card)
    return False


def test_a_deck_worth_the_bound_serves_every_hand_in_any_order_and_one_worth_less_may_not():
    """Each card at its least value, a hand holds at most 7½ before its last card and that card
    adds at most 7: a deck worth more than (seats - 1) x 14½ + 7½ outlasts every hand drawing
    until it busts. Exactly there it may not: a player draws to 7½ and busts on a 7, and the
    meneur is left at 7½ asking for more."""
    rng = random.Random(7)
    tried = 0
    for _ in range(3000):
        options = {"gems": rng.randint(1, 3), "gold_coins": rng.randint(0, 16),
                   "pebbles": rng.randint(0, 16), "skeletons": rng.randint(0, 8)}
        seats = rng.randint(2, 8)
        if pirate_deck.shortfall(options, seats) is not None:
            continue
        deck = list(pirate_casino(options["gems"], options["gold_coins"], options["pebbles"],
                                  options["skeletons"]))
        for _ in range(5):
            rng.shuffle(deck)
            assert not runs_dry(deck, seats), (options, seats, deck)
            tried += 1
    assert tried > 1000
    assert pirate_deck.needed(2) == 45  # 14½ + 7½ + ½
    dry = ["gem1.1", "gem6.1", "gold.1", "gem7.1", "gem7.2", "gold.2"]  # 44 half-points
    assert sum(least([c]) for c in dry) == pirate_deck.needed(2) - 1 and runs_dry(dry, 2)


def test_the_default_deck_serves_a_full_table_and_a_new_table_refuses_one_that_does_not():
    """Decision, rules version 4: the default 42 cards (118 points at least) serve the 8 seats
    Casino pirate takes (109½ needed); a table asking for a deck that does not is refused when
    it is created, naming what the deck is worth and what it needs."""
    schema = registry.engine(G).options_schema
    assert registry.engine(G).info.version == 4 and ENGINES[G] is registry.engine(G)
    assert ENGINES[G].info.max_players == pirate_deck.SEATS
    assert pirate_deck.worth(schema().load({})) == 236 and pirate_deck.needed(8) == 219
    schema().load({"gems": 4, "gold_coins": 0, "pebbles": 0, "skeletons": 0})  # 112 points
    for options, worth in ((TINY, "28"), ({"gems": 3, "gold_coins": 16, "pebbles": 16,
                                           "skeletons": 8}, "100")):
        with pytest.raises(ValidationError) as refused:
            schema().load(options)
        [said] = refused.value.messages["gems"]
        assert f"is worth {worth} points" in said and "a hand of 8 seats needs a deck worth at" \
            " least 109½" in said, said


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_a_deal_the_deck_cannot_serve_is_refused_at_a_table_of_every_version(version):
    """Versions 1 to 3 took any deck: their tables keep their options (they replay and verify as
    they were), but a hand the deck cannot serve is not dealt. Seven gems serve a meneur and
    one player (22½ points needed), not a meneur and two (37)."""
    engine = registry.engine(G, version)
    options = dict(TINY) if version < 4 else {}
    if version < 4:
        engine.options_schema().load(options)  # taken then, and so still read
    seats = [SeatInfo(i, f"p{i}", 10, 30 - i) for i in range(3)]
    if version == 4:
        engine.start(options, seats, SEED)
        return
    with pytest.raises(IllegalMove) as refused:
        engine.start(options, seats, SEED)
    assert refused.value.code == "deck_too_small"
    assert "a hand of 3 seats needs a deck worth at least 37" in refused.value.message
    assert engine.start(options, seats[:2], SEED)
