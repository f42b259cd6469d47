"""The state of one hand of the 7½ family: frozen values folded from events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import msgspec

from games.contract import Posting
from games.frozen import replace

Status = Literal["open", "stood", "bust", "seven_half", "out", "won", "lost", "conceded"]
BANK = -1  # the hand index events use for the banker's (meneur's) own cards


@dataclass(frozen=True)
class Hand:
    """One bet's cards: `hidden` are still face down; a split in Siete y media adds hands."""

    seat: int
    cards: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    stake: int = 0
    status: Status = "open"
    declared: Mapping[str, int] = field(default_factory=dict)

    def with_card(self, card: str, face_up: bool) -> Hand:
        """This hand after receiving `card`."""
        hidden = self.hidden if face_up else (*self.hidden, card)
        return replace(self, cards=(*self.cards, card), hidden=hidden)

    @property
    def shown(self) -> tuple[str, ...]:
        """The cards everybody has seen."""
        return tuple(c for c in self.cards if c not in self.hidden)


class Opening(msgspec.Struct, frozen=True, tag="opening"):
    """The hand has opened; nobody has been asked to act yet."""


class Announcing(msgspec.Struct, frozen=True, tag="announcing"):
    """The banker announces the stake (Siete y media)."""

    seat: int
    at: float


class Betting(msgspec.Struct, frozen=True, tag="betting"):
    """`seat` bets (or sits out)."""

    seat: int
    at: float


class Playing(msgspec.Struct, frozen=True, tag="playing"):
    """The player owning hand `index` stands or asks for cards."""

    seat: int
    index: int
    at: float


class Banking(msgspec.Struct, frozen=True, tag="banking"):
    """The banker (meneur) plays his own cards, or calls players in Casino pirate."""

    seat: int
    at: float


class Answering(msgspec.Struct, frozen=True, tag="answering"):
    """A called player reveals or concedes (Casino pirate)."""

    seat: int
    at: float


class Ended(msgspec.Struct, frozen=True, tag="ended"):
    """The hand is over and its settlement is recorded."""


# Phases are tagged Structs: a table's stored snapshot (projections/snapshots.py) names a phase
# by its tag, never by its class, so renaming a class here leaves every stored table readable.
Phase = Opening | Announcing | Betting | Playing | Banking | Answering | Ended


@dataclass(frozen=True)
class State:
    """Everything the rules need about one hand (plus what carries over to the next)."""

    # The version of this shape in stored snapshots (projections/snapshots.py): raised by a change
    # that older snapshots do not decode to (a field renamed or retyped), which a migration then
    # re-derives from the tables' events (events/migrate.py).
    SCHEMA: ClassVar[int] = 1

    game: str
    options: Mapping[str, Any]
    phase: Phase = field(default_factory=Opening)
    seats: tuple[int, ...] = ()
    ages: Mapping[int, int | None] = field(default_factory=dict)
    start_balances: Mapping[int, int] = field(default_factory=dict)
    balances: Mapping[int, int] = field(default_factory=dict)
    banker: int = 0
    order: tuple[int, ...] = ()
    deck: tuple[str, ...] = ()
    drawn: int = 0
    hands: tuple[Hand, ...] = ()
    bank: Hand = Hand(-1)
    stake: int = 0
    decided: frozenset[int] = frozenset()
    called: tuple[int, ...] = ()
    first_seven_half: int | None = None
    results: tuple[Mapping[str, Any], ...] = ()
    plan: tuple[Posting, ...] = ()
    next_banker: int | None = None
    volunteers: tuple[int, ...] = ()
    commitment: str = ""
    # The seeds the hand was dealt with, so that Sette e mezzo can shuffle again with the bets'
    # seeds; empty in a snapshot stored before they were kept (such a hand takes no bet seed).
    server_seed: str = ""
    player_seeds: tuple[str, ...] = ()
    bet_seeds: tuple[str, ...] = ()
    started_at: float = 0.0
    table_started_at: float = 0.0

    @property
    def remaining(self) -> int:
        """Cards left to draw."""
        return len(self.deck) - self.drawn

    def hands_of(self, seat: int) -> list[tuple[int, Hand]]:
        """The (index, hand) pairs a seat plays."""
        return [(i, h) for i, h in enumerate(self.hands) if h.seat == seat]

    def hand(self, index: int) -> Hand:
        """A player's hand by index, or the bank's for BANK."""
        return self.bank if index == BANK else self.hands[index]

    def with_hand(self, index: int, hand: Hand) -> State:
        """This state with hand `index` replaced."""
        if index == BANK:
            return replace(self, bank=hand)
        return replace(self, hands=(*self.hands[:index], hand, *self.hands[index + 1 :]))
