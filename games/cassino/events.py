"""The events of a Cassino round (past tense) and the constructors that shape their data."""

from __future__ import annotations

from collections.abc import Sequence

from games.cassino.moves import Move
from games.cassino.state import State, item_cards
from games.contract import Event
from games.deck import Card

ROUND_STARTED = "RoundStarted"
STAKES_PAID = "StakesPaid"
DEALER_CARDS_DRAWN = "DealerCardsDrawn"
DEALER_CHOSEN = "DealerChosen"
CARDS_DEALT = "CardsDealt"
TABLE_DEALT = "TableDealt"
CARDS_CAPTURED = "CardsCaptured"
BUILD_MADE = "BuildMade"
BUILD_RESERVED = "BuildReserved"
BUILD_EXTENDED = "BuildExtended"
CARD_TRAILED = "CardTrailed"
CARD_DRAWN = "CardDrawn"
LEFTOVERS_TAKEN = "LeftoversTaken"
ROUND_SCORED = "RoundScored"


def cards_dealt(seat: int, cards: Sequence[Card]) -> Event:
    """A packet dealt face down: only its receiver sees the cards."""
    return Event(CARDS_DEALT, {"seat": seat, "cards": list(cards)}, frozenset({seat}),
                 {"seat": seat, "count": len(cards)})


def card_drawn(seat: int, card: Card) -> Event:
    """At draw cassino, the stock's top card taken after a play, seen by the drawer only."""
    return Event(CARD_DRAWN, {"seat": seat, "card": card}, frozenset({seat}), {"seat": seat})


def table_dealt(cards: Sequence[Card]) -> Event:
    """The four cards turned face up on the table."""
    return Event(TABLE_DEALT, {"cards": list(cards)})


def move_event(state: State, seat: int, move: Move, timeout: bool) -> Event:
    """The public event of a play; the played card is shown to everyone."""
    base = {"seat": seat, "card": move.card, "timeout": timeout}
    match move.kind:
        case "capture":
            taken = [c for ident in move.items for c in _cards_of(state, ident)]
            sweep = len(move.items) == len(state.table)
            return Event(CARDS_CAPTURED, {**base, "take": list(move.items),
                                          "cards": [move.card, *taken], "sweep": sweep})
        case "build" | "reserve":
            kind = BUILD_MADE if move.kind == "build" else BUILD_RESERVED
            cards = [c for ident in move.items for c in _cards_of(state, ident)] + [move.card]
            return Event(kind, {**base, "onto": list(move.items), "value": move.value,
                                "build": f"build-{state.next_build}", "cards": cards})
        case "extend":
            return Event(BUILD_EXTENDED, {**base, "build": move.items[0], "value": move.value})
        case "trail":
            return Event(CARD_TRAILED, base)


def _cards_of(state: State, ident: str) -> tuple[Card, ...]:
    item = state.find(ident)
    assert item is not None, "moves are checked before they become events"
    return item_cards(item)


def leftovers_taken(seat: int, cards: Sequence[Card]) -> Event:
    """After the last play the last capturer takes what is left, without a sweep."""
    return Event(LEFTOVERS_TAKEN, {"seat": seat, "cards": list(cards)})
