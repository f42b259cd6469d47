"""Commands of the 7½ family (imperative); each carries the acting seat and the time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class AnnounceStake:
    """The banker fixes the stake of the hand (Siete y media)."""

    seat: int
    now: float
    amount: int


@dataclass(frozen=True)
class PlaceBet:
    """Put a stake into escrow; `seed`: the player's own text for the shuffle (Sette e mezzo)."""

    seat: int
    now: float
    amount: int
    seed: str | None = None


@dataclass(frozen=True)
class SitOut:
    """Take no part in this hand (Siete y media)."""

    seat: int
    now: float


@dataclass(frozen=True)
class Hit:
    """Ask for a card (the banker draws one)."""

    seat: int
    now: float


@dataclass(frozen=True)
class Stand:
    """Stop drawing; in Casino pirate, optionally fix skeleton values."""

    seat: int
    now: float
    declare: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Split:
    """Play the figure just received as a new bet (Siete y media)."""

    seat: int
    now: float


@dataclass(frozen=True)
class Hide:
    """Choose which of the two face-down cards stays hidden (Casino pirate)."""

    seat: int
    now: float
    card: str


@dataclass(frozen=True)
class Call:
    """The meneur calls a player to reveal (Casino pirate)."""

    seat: int
    now: float
    target: int


@dataclass(frozen=True)
class Reveal:
    """A called player shows his cards, optionally fixing skeleton values."""

    seat: int
    now: float
    declare: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Concede:
    """A called player gives his stake without showing his cards."""

    seat: int
    now: float


@dataclass(frozen=True)
class Declare:
    """The meneur fixes the value of a skeleton he turned up."""

    seat: int
    now: float
    card: str
    value: int


@dataclass(frozen=True)
class Volunteer:
    """Offer to be meneur for the next hand (Casino pirate, between hands)."""

    seat: int
    now: float


@dataclass(frozen=True)
class TimeOut:
    """The turn in play ran out of time."""

    seat: int
    now: float


Command = (AnnounceStake | PlaceBet | SitOut | Hit | Stand | Split | Hide | Call | Reveal
           | Concede | Declare | Volunteer | TimeOut)
