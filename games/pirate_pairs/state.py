"""The state of a Pirate pairs hand: frozen values, phases as a tagged union, small queries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

import msgspec

from games.contract import IllegalMove, SeedMaterial
from games.deck import Card
from games.frozen import replace
from games.pirate_pairs.options import Options


def value(card: Card) -> int:
    """The value of a card id: `7.3` is a 7."""
    return int(card.split(".", 1)[0])


def rank(card: Card) -> tuple[int, int]:
    """A card's place from lowest to highest: by value, then by copy number."""
    number, copy = card.split(".", 1)
    return int(number), int(copy)


def has_pair(cards: Iterable[Card]) -> bool:
    """True when two of `cards` share a value."""
    return any(n > 1 for n in Counter(value(c) for c in cards).values())


def makes_pair(card: Card, row: Iterable[Card]) -> bool:
    """True when `card` has the value of one of `row`."""
    return value(card) in {value(c) for c in row}


@dataclass(frozen=True)
class Player:
    """A seat in the hand: his hidden hand, his face-up row, whether he is still in."""

    seat: int
    age: int | None
    hand: tuple[Card, ...] = ()
    row: tuple[Card, ...] = ()
    out: bool = False


class NotOpened(msgspec.Struct, frozen=True, tag="not_opened"):
    """Before the hand-opening event."""


class Choosing(msgspec.Struct, frozen=True, tag="choosing"):
    """Everyone secretly picks an opening card; `chosen` maps seat to card (hidden)."""

    chosen: tuple[tuple[int, Card], ...] = ()

    def choice(self, seat: int) -> Card | None:
        """The card `seat` chose, if any."""
        return dict(self.chosen).get(seat)


class Playing(msgspec.Struct, frozen=True, tag="playing"):
    """`seat` is to play."""

    seat: int


class Finished(msgspec.Struct, frozen=True, tag="finished"):
    """`winner` is the last player in."""

    winner: int


# Phases are tagged Structs: a table's stored snapshot (projections/snapshots.py) names a phase
# by its tag, never by its class, so renaming a class here leaves every stored table readable.
Phase = NotOpened | Choosing | Playing | Finished


@dataclass(frozen=True)
class State:
    """A whole hand; `material` is kept for reshuffles and is never shown by `view`."""

    # The version of this shape in stored snapshots (projections/snapshots.py): raised by a change
    # that older snapshots do not decode to (a field renamed or retyped), which a migration then
    # re-derives from the tables' events (events/migrate.py).
    SCHEMA: ClassVar[int] = 1

    options: Options
    phase: Phase = field(default_factory=NotOpened)
    players: tuple[Player, ...] = ()
    pile: tuple[Card, ...] = ()
    discards: tuple[Card, ...] = ()
    pot: int = 0
    reshuffles: int = 0
    commitment: str = ""
    material: SeedMaterial | None = None
    turn_started_at: float = 0.0

    def player(self, seat: int) -> Player:
        """The player at `seat`, or `IllegalMove("unknown_seat")`."""
        for p in self.players:
            if p.seat == seat:
                return p
        raise IllegalMove("unknown_seat", f"no player at seat {seat}")

    def has_seat(self, seat: int) -> bool:
        """True when `seat` plays in this hand."""
        return any(p.seat == seat for p in self.players)

    def with_player(self, player: Player) -> State:
        """The state with `player` replacing the one at his seat."""
        players = tuple(player if p.seat == player.seat else p for p in self.players)
        return replace(self, players=players)

    def still_in(self) -> list[int]:
        """Seats not eliminated, in seat order."""
        return [p.seat for p in self.players if not p.out]

    def left_of(self, seat: int) -> int:
        """The next seat clockwise from `seat` among players still in (`seat` may be out)."""
        seats = self.still_in()
        later = [s for s in seats if s > seat]
        return later[0] if later else seats[0]

    def can_draw(self) -> bool:
        """True when a card can be drawn: the pile, or discards to reshuffle into one."""
        return bool(self.pile or self.discards)
