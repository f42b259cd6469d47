"""The decider: which events a command produces in each phase, or `IllegalMove`."""

from __future__ import annotations

from typing import assert_never

from games.contract import Event, IllegalMove
from games.pirate_pairs import opening, play
from games.pirate_pairs.commands import (
    Accuse,
    Attack,
    Challenge,
    ChooseOpeningCard,
    Command,
    Draw,
    TimeOut,
)
from games.pirate_pairs.state import Choosing, Finished, NotOpened, Playing, State


def decide(state: State, command: Command) -> list[Event]:
    """The events `command` produces in `state`."""
    state.player(command.seat)  # unknown seats are refused before anything else
    match state.phase:
        case NotOpened() | Finished():
            raise IllegalMove("wrong_phase", "no hand is in play")
        case Choosing() as phase:
            return _decide_choosing(state, phase, command)
        case Playing() as phase:
            return _decide_playing(state, phase, command)
        case _:
            assert_never(state.phase)


def _decide_choosing(state: State, phase: Choosing, command: Command) -> list[Event]:
    match command:
        case ChooseOpeningCard(seat=seat, card=card, now=now):
            return opening.choose(state, phase, seat, card, now)
        case TimeOut(now=now):
            # The opening choice is one shared clock: everyone still choosing is timed out.
            return opening.choose_on_timeout(state, phase, now)
        case Attack() | Challenge() | Accuse() | Draw():
            raise IllegalMove("wrong_phase", "every player must first choose an opening card")
        case _:
            assert_never(command)


def _decide_playing(state: State, phase: Playing, command: Command) -> list[Event]:
    if command.seat != phase.seat:
        raise IllegalMove("not_your_turn", f"seat {phase.seat} is to play")
    match command:
        case Attack(seat=seat, target=target, card=card, now=now):
            return play.attack(state, seat, target, card, now)
        case Challenge(seat=seat, target=target, now=now):
            return play.challenge(state, seat, target, now)
        case Accuse(seat=seat, target=target, now=now):
            return play.accuse(state, seat, target, now)
        case Draw(seat=seat, now=now):
            return play.draw(state, seat, now)
        case TimeOut(seat=seat, now=now):
            return _timeout_move(state, seat, now)
        case ChooseOpeningCard():
            raise IllegalMove("wrong_phase", "the opening cards are already face up")
        case _:
            assert_never(command)


def _timeout_move(state: State, seat: int, now: float) -> list[Event]:
    """Draw; with nothing to draw, the first legal attack; else accuse the player to the left."""
    if state.can_draw():
        return play.draw(state, seat, now, timeout=True)
    fallback = play.first_legal_attack(state, seat)
    if fallback is not None:
        target, card = fallback
        return play.attack(state, seat, target, card, now, timeout=True)
    return play.accuse(state, seat, state.left_of(seat), now, timeout=True)
