"""All legal moves of the seat to play, trailing last, and what a timeout plays."""

from __future__ import annotations

from games.cassino.builds import build_moves, extend_moves, reserve_moves
from games.cassino.captures import capture_moves
from games.cassino.cards import order_key
from games.cassino.moves import Move, hand_of
from games.cassino.state import Build, State
from games.contract import IllegalMove
from games.deck import Card


def table_moves(state: State, seat: int) -> list[Move]:
    """Captures, builds, reservations and extensions, in that order."""
    return (capture_moves(state, seat) + build_moves(state, seat) + reserve_moves(state, seat)
            + extend_moves(state, seat))


def owns_build(state: State, seat: int) -> bool:
    """True when a build on the table belongs to the seat."""
    return any(isinstance(i, Build) and i.owner == seat for i in state.table)


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every legal move; trailing (any hand card) only when nothing else is possible."""
    moves = table_moves(state, seat)
    if moves or owns_build(state, seat):
        return moves
    return [Move("trail", card) for card in sorted(state.hands[seat], key=order_key)]


def check_trail(state: State, seat: int, card: Card) -> Move:
    """The trail as a move, or `IllegalMove` when the seat owns a build or could do more."""
    hand_of(state, seat, card)
    if owns_build(state, seat):
        raise IllegalMove("owns_build", "a player who owns a build may not trail")
    if table_moves(state, seat):
        raise IllegalMove("trail_not_allowed", "trail only when you can take or build nothing")
    return Move("trail", card)


def timeout_move(state: State, seat: int) -> Move:
    """Trail the lowest-value card (figures first); else the first legal move in listed order.

    The listed order is captures, builds, reservations, extensions; within each, hand cards
    by `order_key` and the smallest set of table items first.
    """
    moves = legal_moves(state, seat)
    return moves[0]
