"""Cassino card values: aces 1, pips at face value, figures without value (matched only)."""

from __future__ import annotations

from games.deck import FRENCH_SUITS, Card, french_52

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FIGURES = frozenset({"J", "Q", "K"})
LITTLE_CASINO = "2s"
BIG_CASINO = "10d"
JACK_OF_SPADES = "Js"
DECK: tuple[Card, ...] = french_52()
CARDS = frozenset(DECK)


def rank(card: Card) -> str:
    """The rank part of a card id (`10` of `10d`)."""
    return card[:-1]


def suit(card: Card) -> str:
    """The suit letter of a card id."""
    return card[-1]


def is_figure(card: Card) -> bool:
    """Jacks, queens and kings: no value, captured only by matching, one at a time."""
    return card[0] in "JQK"


def _value(card: Card) -> int:
    r = rank(card)
    if r in FIGURES:
        return 0
    return 1 if r == "A" else int(r)


# Values and sort keys are looked up on every enumeration step, hence computed once.
_VALUES = {card: _value(card) for card in DECK}
_KEYS = {card: (_VALUES[card], RANKS.index(rank(card)), FRENCH_SUITS.index(suit(card)))
         for card in DECK}


def value(card: Card) -> int:
    """Capture value: ace 1, 2..10 face value, figures 0 (they never enter a sum)."""
    return _VALUES[card]


def draw_rank(card: Card) -> int:
    """Order for drawing the dealer: ace lowest, then 2..10, J, Q, K."""
    return RANKS.index(rank(card)) + 1


def order_key(card: Card) -> tuple[int, int, int]:
    """A fixed total order: by value (figures first, being worth nothing), rank, then suit."""
    return _KEYS[card]


def is_spade(card: Card) -> bool:
    """True for the thirteen spades."""
    return suit(card) == "s"
