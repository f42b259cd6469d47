"""The decider: a command against the state gives the events of the play and what follows it
(the draw or the next deal, and at the end of the round the leftovers and the scores)."""

from __future__ import annotations

from typing import assert_never

from games.cassino.builds import check_build, check_extend, check_reserve
from games.cassino.captures import check_capture
from games.cassino.commands import Capture, Command, Extend, MakeBuild, Reserve, TimeOut, Trail
from games.cassino.events import ROUND_SCORED, card_drawn, leftovers_taken, move_event
from games.cassino.evolve import evolve
from games.cassino.legal import check_trail, timeout_move
from games.cassino.moves import Move
from games.cassino.opening import deal
from games.cassino.scoring import round_scored
from games.cassino.state import NotStarted, Opening, Playing, RoundOver, State, item_cards
from games.contract import Event, IllegalMove


def to_move(state: State) -> int:
    """The seat whose turn it is; refuses when nobody is to play."""
    match state.phase:
        case Playing(to_move=seat):
            return seat
        case NotStarted() | Opening() | RoundOver():
            raise IllegalMove("wrong_phase", "nobody is to play now")
        case _:
            assert_never(state.phase)


def checked_move(state: State, command: Command) -> Move:
    """The move a command asks for, once the rules accept it."""
    seat = command.seat
    match command:
        case Capture(card=card, take=take):
            return check_capture(state, seat, card, take)
        case MakeBuild(card=card, onto=onto, value=v):
            return check_build(state, seat, card, onto, v)
        case Reserve(card=card, onto=onto, value=v):
            return check_reserve(state, seat, card, onto, v)
        case Extend(card=card, build=build, value=v):
            return check_extend(state, seat, card, build, v)
        case Trail(card=card):
            return check_trail(state, seat, card)
        case TimeOut():
            return timeout_move(state, seat)
        case _:
            assert_never(command)


def decide(state: State, command: Command) -> list[Event]:
    """The events of a play and of everything it sets off."""
    seat = to_move(state)
    if not 0 <= command.seat < state.players:
        raise IllegalMove("unknown_seat", "no such seat at this table")
    if command.seat != seat:
        raise IllegalMove("not_your_turn", "it is not your turn")
    move = checked_move(state, command)
    events = [move_event(state, seat, move, isinstance(command, TimeOut))]
    after = evolve(state, events[0])
    follow: list[Event] = []
    if state.options.variant == "draw" and after.stock:
        follow.append(card_drawn(seat, after.stock[0]))
    elif not any(after.hands) and after.stock:
        follow += deal(after.stock, after.dealer or 0, after.players, to_table=False)
    elif not any(after.hands):
        follow += end_of_round(after)
    return events + follow


def end_of_round(state: State) -> list[Event]:
    """The last capturer takes the leftovers (no sweep), then the round is scored."""
    events = []
    if state.table and state.last_capturer is not None:
        cards = [c for item in state.table for c in item_cards(item)]
        events.append(leftovers_taken(state.last_capturer, cards))
        state = evolve(state, events[-1])
    return [*events, Event(ROUND_SCORED, round_scored(state))]
