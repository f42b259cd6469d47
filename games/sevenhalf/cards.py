"""Card values of the 7½ family, counted in integer half-points (7½ = 15)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from games import deck

SEVEN_HALF = 15
JOKER_MIN, JOKER_MAX = 1, 7  # a skeleton is worth a whole 1..7 points


def value(game: str, card: str) -> int | None:
    """The half-point value of `card`, or None for a joker (the pirate skeleton)."""
    if game == "casino-pirate":
        kind = card.split(".")[0]
        if kind.startswith("gem"):
            return 2 * int(kind[3:])
        return {"gold": 1, "pebble": 0}.get(kind)
    rank = card[:-1]
    if rank in ("J", "Q", "K", "10", "11", "12"):
        return 1
    return 2 if rank == "A" else 2 * int(rank)


def is_half(game: str, card: str) -> bool:
    """True for a card worth exactly ½ (a figure)."""
    return value(game, card) == 1


def is_joker(game: str, card: str) -> bool:
    """True for a card whose holder chooses its value."""
    return value(game, card) is None


def best_values(game: str, cards: Iterable[str], declared: Mapping[str, int]) -> dict[str, int]:
    """Point values for every undeclared joker giving the best total not over 7½ (else lowest)."""
    fixed = 0
    free: list[str] = []
    for card in cards:
        v = value(game, card)
        if v is not None:
            fixed += v
        elif card in declared:
            fixed += 2 * declared[card]
        else:
            free.append(card)
    if not free:
        return {}
    k = len(free)
    points = max(k * JOKER_MIN, min(k * JOKER_MAX, (SEVEN_HALF - fixed) // 2))
    out = {}
    for card in free:
        share = min(JOKER_MAX, points - (k - 1) * JOKER_MIN)
        out[card] = share
        points -= share
        k -= 1
    return out


def total(game: str, cards: Sequence[str], declared: Mapping[str, int] | None = None) -> int:
    """The hand's total in half-points, jokers valued as declared or at their best."""
    declared = dict(declared or {})
    chosen = {**best_values(game, cards, declared), **declared}
    return sum(2 * chosen[c] if is_joker(game, c) else value(game, c) or 0 for c in cards)


def composition(game: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """The unshuffled deck the game is played with."""
    if game == "sette-e-mezzo":
        return deck.italian_40()
    if game == "siete-y-media":
        return deck.spanish_40()
    return deck.pirate_casino(
        gems=int(options["gems"]),
        gold=int(options["gold_coins"]),
        pebbles=int(options["pebbles"]),
        skeletons=int(options["skeletons"]),
    )
