"""The state of a Cassino round: hands, stock, table items, captured piles and phase."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class NotStarted:
    """Before the round's opening event."""


@dataclass(frozen=True)
class Opening:
    """The dealer is being chosen and the cards dealt."""


@dataclass(frozen=True)
class Playing:
    """`to_move` plays one card."""

    to_move: int


@dataclass(frozen=True)
class RoundOver:
    """The round is scored; `winner` is the winning side once the game is won."""

    winner: int | None


Phase = NotStarted | Opening | Playing | RoundOver


@dataclass(frozen=True)
class State:
    """Everything the rules need; scores and pot are carried from round to round."""

    options: Options
    phase: Phase = NotStarted()
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
