"""What happened at a Pirate pairs table: past-tense events, with who may read what."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.contract import Event, Posting, SeedMaterial
from games.deck import Card

HAND_OPENED = "HandOpened"
CARDS_DEALT = "CardsDealt"
OPENING_CARD_CHOSEN = "OpeningCardChosen"
OPENING_CARDS_REVEALED = "OpeningCardsRevealed"
PLAYER_ATTACKED = "PlayerAttacked"
PLAYER_CHALLENGED = "PlayerChallenged"
PLAYER_ACCUSED = "PlayerAccused"
CARD_DRAWN = "CardDrawn"
DISCARDS_RESHUFFLED = "DiscardsReshuffled"
PLAYER_ELIMINATED = "PlayerEliminated"
TURN_PASSED = "TurnPassed"
GAME_WON = "GameWon"

NOBODY: frozenset[int] = frozenset()


def _flag(data: dict[str, Any], timeout: bool) -> dict[str, Any]:
    # Only timeout-driven events carry the flag, so ordinary events stay small.
    return {**data, "timeout": True} if timeout else data


def hand_opened(commitment: str, material: SeedMaterial, pile: Sequence[Card],
                seats: list[dict[str, Any]], stake: int, now: float,
                postings: tuple[Posting, ...]) -> Event:
    """The hand opens: commitment and seats for all; seeds and deck order for auditors only."""
    public = {"commitment": commitment, "seats": seats, "stake": stake, "at": now}
    data = {**public, "server_seed": material.server_seed,
            "player_seeds": list(material.player_seeds), "pile": list(pile)}
    return Event(HAND_OPENED, data, NOBODY, public, postings)


def cards_dealt(seat: int, cards: Sequence[Card]) -> Event:
    """`seat` receives `cards`, seen by him alone."""
    return Event(CARDS_DEALT, {"seat": seat, "cards": list(cards)}, frozenset({seat}),
                 {"seat": seat, "count": len(cards)})


def opening_card_chosen(seat: int, card: Card, timeout: bool = False) -> Event:
    """`seat` picked his opening card; the others only learn that he has chosen."""
    return Event(OPENING_CARD_CHOSEN, _flag({"seat": seat, "card": card}, timeout),
                 frozenset({seat}), _flag({"seat": seat}, timeout))


def opening_cards_revealed(choices: Sequence[tuple[int, Card]], first: int, now: float) -> Event:
    """Every opening card turns face up together; `first` plays first."""
    data = {"choices": [{"seat": s, "card": c} for s, c in choices], "first": first, "at": now}
    return Event(OPENING_CARDS_REVEALED, data)


def player_attacked(seat: int, target: int, card: Card, timeout: bool = False) -> Event:
    """`seat` played `card` face up in front of `target`."""
    return Event(PLAYER_ATTACKED,
                 _flag({"seat": seat, "target": target, "card": card}, timeout))


def player_challenged(seat: int, target: int, card: Card, paired: bool) -> Event:
    """The unseen top card landed face up before `target`; `paired` sends it to the discards."""
    return Event(PLAYER_CHALLENGED,
                 {"seat": seat, "target": target, "card": card, "paired": paired})


def player_accused(seat: int, target: int, hand: Sequence[Card], row: Sequence[Card],
                   paired: bool, timeout: bool = False) -> Event:
    """`target` showed his hand to the accuser alone; everyone else learns only who accused whom."""
    public = _flag({"seat": seat, "target": target}, timeout)
    data = {**public, "hand": list(hand), "row": list(row), "paired": paired}
    return Event(PLAYER_ACCUSED, data, frozenset({seat, target}), public)


def card_drawn(seat: int, card: Card, timeout: bool = False) -> Event:
    """`seat` took `card` into his hand, saying nothing."""
    return Event(CARD_DRAWN, _flag({"seat": seat, "card": card}, timeout), frozenset({seat}),
                 _flag({"seat": seat}, timeout))


def discards_reshuffled(number: int, pile: Sequence[Card]) -> Event:
    """The discards became a new pile, in an order only auditors may read."""
    public = {"reshuffle": number, "count": len(pile)}
    return Event(DISCARDS_RESHUFFLED, {**public, "pile": list(pile)}, NOBODY, public)


def player_eliminated(seat: int, reason: str, cards: Sequence[Card]) -> Event:
    """`seat` is out; his `cards` (hand and face-up row) are discarded face up."""
    return Event(PLAYER_ELIMINATED, {"seat": seat, "reason": reason, "cards": list(cards)})


def turn_passed(seat: int, now: float) -> Event:
    """`seat` is to play."""
    return Event(TURN_PASSED, {"seat": seat, "at": now})


def game_won(seat: int, pot: int) -> Event:
    """`seat` is the last player in and wins `pot` at settlement."""
    return Event(GAME_WON, {"seat": seat, "pot": pot})
