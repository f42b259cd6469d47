"""Builds: making one, reserving one ("eight reserved") and extending another player's."""

from __future__ import annotations

from collections.abc import Iterable

from games.cassino.captures import loose_cards
from games.cassino.cards import is_figure, order_key, value
from games.cassino.combos import (
    bits,
    disjoint_unions,
    partitions_into,
    subsets_up_to,
    subsets_with_sum,
)
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

MAX_VALUE = 10


def pip_cards(cards: Iterable[Card]) -> list[Card]:
    """The cards that have a value (aces to tens)."""
    return [c for c in cards if not is_figure(c)]


def build_moves(state: State, seat: int) -> list[Move]:
    """Every build of one hand card on loose table cards, worth at most ten, that the seat can
    take later."""
    loose = pip_cards(loose_cards(state))
    values = [value(c) for c in loose]
    moves = []
    for card in sorted(pip_cards(state.hands[seat]), key=order_key):
        rest = hand_of(state, seat, card)
        for mask, total in subsets_up_to(values, MAX_VALUE - value(card)):
            v = value(card) + total
            if keeps_build_cards(state, seat, rest, (), v):
                onto = in_table_order(state, (loose[i] for i in bits(mask)))
                moves.append(Move("build", card, onto, v))
    return moves


def reserve_moves(state: State, seat: int) -> list[Move]:
    """Every way to cover sets of the card's value (loose sets, builds of that value) with it."""
    loose = pip_cards(loose_cards(state))
    moves = []
    for card in sorted(pip_cards(state.hands[seat]), key=order_key):
        rest = hand_of(state, seat, card)
        v = value(card)
        small = [c for c in loose if value(c) <= v]
        unions = disjoint_unions(subsets_with_sum([value(c) for c in small], v))
        builds = [b for b in state.table if isinstance(b, Build) and b.value == v]
        for chosen in range(1 << len(builds)):
            covered = [builds[i].id for i in bits(chosen)]
            if not keeps_build_cards(state, seat, rest, covered, v):
                continue
            for union in unions:
                onto = [small[i] for i in bits(union)] + covered
                if onto:
                    moves.append(Move("reserve", card, in_table_order(state, onto), v))
    return moves


def extend_moves(state: State, seat: int) -> list[Move]:
    """Every extension of another player's unreserved build with a hand card."""
    moves = []
    for card in sorted(pip_cards(state.hands[seat]), key=order_key):
        rest = hand_of(state, seat, card)
        for b in state.table:
            if isinstance(b, Build) and not b.reserved and b.owner != seat:
                v = b.value + value(card)
                if v <= MAX_VALUE and keeps_build_cards(state, seat, rest, (b.id,), v):
                    moves.append(Move("extend", card, (b.id,), v))
    return moves


def _pip(card: Card) -> int:
    if is_figure(card):
        raise IllegalMove("figure_cannot_build", "figures have no value and cannot build")
    return value(card)


def check_build(state: State, seat: int, card: Card, onto: Iterable[str], announced: int) -> Move:
    """The build as a move, or `IllegalMove`."""
    rest = hand_of(state, seat, card)
    items = resolve(state, onto)
    loose = [i for i in items if isinstance(i, str) and not is_figure(i)]
    if not items or len(loose) != len(items):
        raise IllegalMove("bad_build", "a build puts a hand card on loose cards of the table")
    v = _pip(card) + sum(value(c) for c in loose)
    if v > MAX_VALUE:
        raise IllegalMove("bad_build", "a build is worth at most ten")
    if v != announced:
        raise IllegalMove("wrong_value", "the announced value is not the build's value")
    require_keeps(state, seat, rest, (), v)
    return Move("build", card, in_table_order(state, loose), v)


def check_reserve(state: State, seat: int, card: Card, onto: Iterable[str], announced: int) -> Move:
    """The reservation as a move, or `IllegalMove`."""
    rest = hand_of(state, seat, card)
    v = _pip(card)
    if announced != v:
        raise IllegalMove("wrong_value", "a reserved build has the value of the covering card")
    items = resolve(state, onto)
    builds = [i for i in items if isinstance(i, Build)]
    loose = [i for i in items if isinstance(i, str)]
    if not items or any(b.value != v for b in builds) or any(is_figure(c) for c in loose):
        raise IllegalMove("bad_reserve", "only sets and builds of the card's value can be covered")
    if not partitions_into([value(c) for c in loose], v):
        raise IllegalMove("bad_reserve", "the covered cards must form sets of the card's value")
    require_keeps(state, seat, rest, (b.id for b in builds), v)
    ids = [i if isinstance(i, str) else i.id for i in items]
    return Move("reserve", card, in_table_order(state, ids), v)


def check_extend(state: State, seat: int, card: Card, build: str, announced: int) -> Move:
    """The extension as a move, or `IllegalMove`."""
    rest = hand_of(state, seat, card)
    [target] = resolve(state, [build])
    if not isinstance(target, Build):
        raise IllegalMove("bad_extend", "only a build can be extended")
    if target.reserved:
        raise IllegalMove("build_reserved", "a reserved build cannot be extended")
    if target.owner == seat:
        raise IllegalMove("own_build", "you may not extend your own build")
    v = target.value + _pip(card)
    if v > MAX_VALUE:
        raise IllegalMove("bad_extend", "a build is worth at most ten")
    if v != announced:
        raise IllegalMove("wrong_value", "the announced value is not the build's new value")
    require_keeps(state, seat, rest, (target.id,), v)
    return Move("extend", card, (target.id,), v)
