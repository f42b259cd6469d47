"""Commands (imperative) a seat sends, and parsing them from client JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.contract import IllegalMove
from games.deck import Card


@dataclass(frozen=True)
class Capture:
    """Play `card` and take the table items `take` (loose card ids, build ids)."""

    seat: int
    now: float
    card: Card
    take: tuple[str, ...]


@dataclass(frozen=True)
class MakeBuild:
    """Play `card` onto loose table cards, announcing the build's `value`."""

    seat: int
    now: float
    card: Card
    onto: tuple[str, ...]
    value: int


@dataclass(frozen=True)
class Reserve:
    """Cover sets (and builds) of the card's value with `card`: "eight reserved"."""

    seat: int
    now: float
    card: Card
    onto: tuple[str, ...]
    value: int


@dataclass(frozen=True)
class Extend:
    """Add `card` to another player's build, announcing its new `value`."""

    seat: int
    now: float
    card: Card
    build: str
    value: int


@dataclass(frozen=True)
class Trail:
    """Lay `card` face up on the table."""

    seat: int
    now: float
    card: Card


@dataclass(frozen=True)
class TimeOut:
    """The seat to play let its time run out."""

    seat: int
    now: float


Command = Capture | MakeBuild | Reserve | Extend | Trail | TimeOut


def _str(payload: Mapping[str, Any], key: str) -> str:
    v = payload.get(key)
    if not isinstance(v, str) or not v:
        raise IllegalMove("bad_action", f"`{key}` must be a non-empty string")
    return v


def _ids(payload: Mapping[str, Any], key: str) -> tuple[str, ...]:
    v = payload.get(key)
    if not isinstance(v, list) or not v or not all(isinstance(i, str) for i in v):
        raise IllegalMove("bad_action", f"`{key}` must be a non-empty list of ids")
    return tuple(v)


def _int(payload: Mapping[str, Any], key: str) -> int:
    v = payload.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise IllegalMove("bad_action", f"`{key}` must be an integer")
    return v


def parse_action(seat: int, payload: Mapping[str, Any], now: float) -> Command:
    """The command for a client action as `legal_actions` lists it."""
    if not isinstance(payload, Mapping):
        raise IllegalMove("bad_action", "an action is a JSON object")
    match payload.get("type"):
        case "capture":
            return Capture(seat, now, _str(payload, "card"), _ids(payload, "take"))
        case "build":
            return MakeBuild(seat, now, _str(payload, "card"), _ids(payload, "onto"),
                             _int(payload, "value"))
        case "reserve":
            return Reserve(seat, now, _str(payload, "card"), _ids(payload, "onto"),
                           _int(payload, "value"))
        case "extend":
            return Extend(seat, now, _str(payload, "card"), _str(payload, "build"),
                          _int(payload, "value"))
        case "trail":
            return Trail(seat, now, _str(payload, "card"))
        case _:
            raise IllegalMove("bad_action", "type must be capture, build, reserve, extend or trail")
