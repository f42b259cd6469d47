"""What a player (or the clock) asks of a Pirate pairs table: imperative, one dataclass each."""

from __future__ import annotations

from dataclasses import dataclass

from games.deck import Card


@dataclass(frozen=True)
class ChooseOpeningCard:
    """Secretly pick the card of the hand that goes face up when everyone has chosen."""

    seat: int
    now: float
    card: Card


@dataclass(frozen=True)
class Attack:
    """Play `card` face up in front of `target`; it must make no pair with his face-up cards."""

    seat: int
    now: float
    target: int
    card: Card


@dataclass(frozen=True)
class Challenge:
    """Put the top card of the pile, unseen, face up in front of `target`."""

    seat: int
    now: float
    target: int


@dataclass(frozen=True)
class Accuse:
    """Claim that `target` holds a pair among his hand and face-up cards."""

    seat: int
    now: float
    target: int


@dataclass(frozen=True)
class Draw:
    """Take the top card of the pile into the hand, silently."""

    seat: int
    now: float


@dataclass(frozen=True)
class TimeOut:
    """The turn's time ran out: the engine plays the timeout rule for `seat`."""

    seat: int
    now: float


Command = ChooseOpeningCard | Attack | Challenge | Accuse | Draw | TimeOut
