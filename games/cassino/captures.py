"""Captures: a figure takes one figure of its rank; a pip card takes every loose card of its
value, and any builds of that value and sets of loose cards adding up to it that the player
chooses."""

from __future__ import annotations

from collections.abc import Iterable

from games.cassino.cards import is_figure, order_key, rank, value
from games.cassino.combos import bits, disjoint_unions, partitions_into, subsets_with_sum
from games.cassino.moves import (
    Move,
    hand_of,
    in_table_order,
    keeps_build_cards,
    require_keeps,
    resolve,
)
from games.cassino.state import Build, State
from games.contract import IllegalMove
from games.deck import Card


def loose_cards(state: State) -> list[Card]:
    """The single cards lying on the table, in table order."""
    return [item for item in state.table if isinstance(item, str)]


def capture_moves(state: State, seat: int) -> list[Move]:
    """Every legal capture for the seat, hand cards in `order_key` order."""
    moves: list[Move] = []
    for card in sorted(state.hands[seat], key=order_key):
        moves.extend(captures_with(state, seat, card))
    return moves


def captures_with(state: State, seat: int, card: Card) -> list[Move]:
    """Every legal capture made by playing `card`, smallest take first."""
    rest = hand_of(state, seat, card)
    loose = loose_cards(state)
    if is_figure(card):
        if not keeps_build_cards(state, seat, rest, (), None):
            return []
        same = sorted((c for c in loose if rank(c) == rank(card)), key=order_key)
        return [Move("capture", card, (c,)) for c in same]
    v = value(card)
    matching = [c for c in loose if not is_figure(c) and value(c) == v]
    smaller = [c for c in loose if not is_figure(c) and value(c) < v]
    unions = disjoint_unions(subsets_with_sum([value(c) for c in smaller], v))
    builds = [b for b in state.table if isinstance(b, Build) and b.value == v]
    moves = []
    for chosen in range(1 << len(builds)):
        taken_builds = [builds[i].id for i in bits(chosen)]
        if not keeps_build_cards(state, seat, rest, taken_builds, None):
            continue
        for union in unions:
            take = matching + [smaller[i] for i in bits(union)] + taken_builds
            if take:
                moves.append(Move("capture", card, in_table_order(state, take)))
    return moves


def check_capture(state: State, seat: int, card: Card, take: Iterable[str]) -> Move:
    """The capture as a move, or `IllegalMove` saying which rule it breaks."""
    rest = hand_of(state, seat, card)
    items = resolve(state, take)
    if not items:
        raise IllegalMove("nothing_to_capture", "name the table items to take")
    builds = [i for i in items if isinstance(i, Build)]
    loose = [i for i in items if isinstance(i, str)]
    if is_figure(card):
        if builds or len(loose) != 1 or rank(loose[0]) != rank(card):
            raise IllegalMove("bad_capture", "a figure takes exactly one figure of its rank")
    else:
        v = value(card)
        if any(b.value != v for b in builds):
            raise IllegalMove("bad_capture", "a build is taken only by a card of its value")
        if any(is_figure(c) for c in loose):
            raise IllegalMove("bad_capture", "figures are taken only by matching")
        if any(value(c) == v and c not in loose for c in loose_cards(state) if not is_figure(c)):
            raise IllegalMove("must_take_matching", "a capture takes every loose card of its value")
        if not partitions_into([value(c) for c in loose if value(c) != v], v):
            raise IllegalMove("bad_capture", "the cards taken must form sets adding up to the card")
    require_keeps(state, seat, rest, (b.id for b in builds), None)
    return Move("capture", card, in_table_order(state, (s if isinstance(s, str) else s.id
                                                        for s in items)))
