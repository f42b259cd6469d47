"""A move a player may make, its client action, and the rule every move must keep."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from games.cassino.cards import is_figure, value
from games.cassino.state import Build, State, item_id
from games.contract import IllegalMove, Json
from games.deck import Card

Kind = Literal["capture", "build", "reserve", "extend", "trail"]


@dataclass(frozen=True)
class Move:
    """One play: the hand card and the table items it uses (for `extend`, the build's id)."""

    kind: Kind
    card: Card
    items: tuple[str, ...] = ()
    value: int = 0

    def action(self) -> Json:
        """The JSON action a client sends back to make this move."""
        match self.kind:
            case "capture":
                return {"type": "capture", "card": self.card, "take": list(self.items)}
            case "build" | "reserve":
                return {"type": self.kind, "card": self.card, "onto": list(self.items),
                        "value": self.value}
            case "extend":
                return {"type": "extend", "card": self.card, "build": self.items[0],
                        "value": self.value}
            case "trail":
                return {"type": "trail", "card": self.card}


def hand_of(state: State, seat: int, card: Card) -> tuple[Card, ...]:
    """The seat's hand once `card` is played; refuses a card the seat does not hold."""
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalMove("card_not_in_hand", "that card is not in your hand")
    return tuple(c for c in hand if c != card)


def keeps_build_cards(state: State, seat: int, rest: tuple[Card, ...], removed: Iterable[str],
                      new_value: int | None) -> bool:
    """True when, after the move, the seat still holds a card of every build it owns.

    A builder must be able to take his build later; keeping this true after every move also
    means an owner always has a capture, so he is never left with nothing legal to play.
    """
    gone = set(removed)
    needed = {item.value for item in state.table
              if isinstance(item, Build) and item.owner == seat and item.id not in gone}
    if new_value is not None:
        needed.add(new_value)
    held = {value(c) for c in rest if not is_figure(c)}
    return needed <= held


def require_keeps(state: State, seat: int, rest: tuple[Card, ...], removed: Iterable[str],
                  new_value: int | None) -> None:
    """Refuse a move after which the seat would own a build it cannot take."""
    if not keeps_build_cards(state, seat, rest, removed, new_value):
        raise IllegalMove("must_hold_value", "keep a card of the value of each of your builds")


def in_table_order(state: State, ids: Iterable[str]) -> tuple[str, ...]:
    """Item ids sorted as they lie on the table, so equal choices compare equal."""
    wanted = set(ids)
    return tuple(item_id(item) for item in state.table if item_id(item) in wanted)


def resolve(state: State, ids: Iterable[str]) -> list[Card | Build]:
    """The table items named by ids; refuses unknown or repeated ids."""
    listed = list(ids)
    if len(set(listed)) != len(listed):
        raise IllegalMove("bad_action", "an item is named twice")
    items = []
    for ident in listed:
        item = state.find(ident)
        if item is None:
            raise IllegalMove("unknown_item", "no such item on the table")
        items.append(item)
    return items
