"""The state of a Cassino round: hands, stock, table items, captured piles and phase."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import msgspec

from games.cassino.options import Options
from games.deck import Card


@dataclass(frozen=True)
class Build:
    """Cards stacked into one item of `value`; `reserved` ones hold several sets of that value."""

    id: str
    cards: tuple[Card, ...]
    value: int
    owner: int
    reserved: bool = False


Item = Card | Build


def item_id(item: Item) -> str:
    """A table item's id: the card id of a loose card, `build-<n>` for a build."""
    return item.id if isinstance(item, Build) else item


def item_cards(item: Item) -> tuple[Card, ...]:
    """Every card an item is made of."""
    return item.cards if isinstance(item, Build) else (item,)


class NotStarted(msgspec.Struct, frozen=True, tag="not_started"):
    """Before the round's opening event."""


class Opening(msgspec.Struct, frozen=True, tag="opening"):
    """The dealer is being chosen and the cards dealt."""


class Playing(msgspec.Struct, frozen=True, tag="playing"):
    """`to_move` plays one card."""

    to_move: int


class RoundOver(msgspec.Struct, frozen=True, tag="round_over"):
    """The round is scored; `winner` is the winning side once the game is won."""

    winner: int | None


# Phases are tagged Structs: a table's stored snapshot (projections/snapshots.py) names a phase
# by its tag, never by its class, so renaming a class here leaves every stored table readable.
Phase = NotStarted | Opening | Playing | RoundOver


@dataclass(frozen=True)
class State:
    """Everything the rules need; scores and pot are carried from round to round."""

    # The version of this shape in stored snapshots (projections/snapshots.py): raised by a change
    # that older snapshots do not decode to (a field renamed or retyped), which a migration then
    # re-derives from the tables' events (events/migrate.py).
    SCHEMA: ClassVar[int] = 1

    options: Options
    phase: Phase = field(default_factory=NotStarted)
    players: int = 0
    round: int = 0
    dealer: int | None = None
    hands: tuple[tuple[Card, ...], ...] = ()
    stock: tuple[Card, ...] = ()
    table: tuple[Item, ...] = ()
    captured: tuple[tuple[Card, ...], ...] = ()
    sweeps: tuple[int, ...] = ()
    last_capturer: int | None = None
    scores: tuple[int, ...] = ()
    round_points: tuple[tuple[tuple[str, int], ...], ...] = ()
    pot: int = 0
    next_build: int = 1
    commitment: str = ""

    @property
    def teams(self) -> bool:
        """Four players play as two teams, seats 0+2 against 1+3."""
        return self.players == 4

    @property
    def sides(self) -> int:
        """How many scores are kept: 2 teams with four players, else one per player."""
        return 2 if self.teams else self.players

    def side_of(self, seat: int) -> int:
        """The side (team or player) a seat scores for."""
        return seat % 2 if self.teams else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        """The seats that score for a side."""
        return (side, side + 2) if self.teams else (side,)

    def find(self, ident: str) -> Item | None:
        """The table item with this id, if any."""
        for item in self.table:
            if item_id(item) == ident:
                return item
        return None
