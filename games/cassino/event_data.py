"""The data of each event of a Cassino round (games/cassino/events.py, opening.py, scoring.py),
as a viewer receives it."""

from __future__ import annotations

from typing import Literal

from msgspec import UnsetType

from games.event_data import UNSET, Card, CardsDealt, EventData, Hidden, SeatCard


class RoundStarted(EventData):
    """A round opened: the seeds and the deck's order are the auditors' alone."""

    round: int
    players: int
    variant: Literal["classic", "spades", "draw"]
    stake: int
    turn_timeout_s: int
    scores: list[int]
    pot: int
    opened_at: float
    commitment: str
    server_seed: str | Hidden = UNSET
    player_seeds: list[str] | Hidden = UNSET
    deck: list[Card] | Hidden = UNSET


class StakesPaid(EventData):
    stake: int
    pot: int


class DealerCardsDrawn(EventData):
    """One draw for the deal: each contender's card (lowest deals; a tie draws again)."""

    attempt: int
    cards: list[SeatCard]


class DealerChosen(EventData):
    dealer: int
    how: Literal["drawn", "passed_left"]


class TableDealt(EventData):
    cards: list[Card]


class CardsCaptured(EventData):
    """`card` took the table's items `take` (`cards`: every card taken, the played one first)."""

    seat: int
    card: Card
    timeout: bool
    take: list[str]
    cards: list[Card]
    sweep: bool


class BuildMade(EventData):
    """`card` and the items `onto` became the build `build` of `value`."""

    seat: int
    card: Card
    timeout: bool
    onto: list[str]
    value: int
    build: str
    cards: list[Card]


class BuildReserved(BuildMade):
    pass


class BuildExtended(EventData):
    seat: int
    card: Card
    timeout: bool
    build: str
    value: int


class CardTrailed(EventData):
    seat: int
    card: Card
    timeout: bool


class CassinoCardDrawn(EventData):
    """The stock's top card, the drawer's (and the auditors') alone."""

    seat: int
    card: Card | Hidden = UNSET


class LeftoversTaken(EventData):
    seat: int
    cards: list[Card]


class Points(EventData):
    """A side's points for the round by category (`spade_bonus` at spades cassino), and their
    `total`."""

    sweeps: int
    aces: int
    little_casino: int
    big_casino: int
    most_cards: int
    most_spades: int
    total: int
    spade_bonus: int | UnsetType = UNSET


class SideScore(EventData):
    side: int
    seats: list[int]
    cards: int
    spades: int
    points: Points


class RoundScored(EventData):
    """Each side's round, the sides' totals and the winning side (null: the game goes on)."""

    round: int
    sides: list[SideScore]
    totals: list[int]
    winner: int | None
    winning_seats: list[int]


EVENT_DATA: dict[str, type[EventData]] = {
    "RoundStarted": RoundStarted, "StakesPaid": StakesPaid, "DealerCardsDrawn": DealerCardsDrawn,
    "DealerChosen": DealerChosen, "CardsDealt": CardsDealt, "TableDealt": TableDealt,
    "CardsCaptured": CardsCaptured, "BuildMade": BuildMade, "BuildReserved": BuildReserved,
    "BuildExtended": BuildExtended, "CardTrailed": CardTrailed, "CardDrawn": CassinoCardDrawn,
    "LeftoversTaken": LeftoversTaken, "RoundScored": RoundScored,
}
