"""The data of each event of a Pirate pairs hand (games/pirate_pairs/events.py), as a viewer
receives it. `timeout` is written only when true."""

from __future__ import annotations

from typing import Literal

from msgspec import UnsetType

from games.event_data import UNSET, Card, CardsDealt, EventData, Hidden, SeatCard

Flag = bool | UnsetType


class OpeningSeat(EventData):
    seat: int
    age: int | None


class HandOpened(EventData):
    """The hand opened: the seeds and the pile's order are the auditors' alone."""

    commitment: str
    seats: list[OpeningSeat]
    stake: int
    at: float
    server_seed: str | Hidden = UNSET
    player_seeds: list[str] | Hidden = UNSET
    pile: list[Card] | Hidden = UNSET


class OpeningCardChosen(EventData):
    seat: int
    card: Card | Hidden = UNSET
    timeout: Flag = UNSET


class OpeningCardsRevealed(EventData):
    choices: list[SeatCard]
    first: int
    at: float


class PlayerAttacked(EventData):
    seat: int
    target: int
    card: Card
    timeout: Flag = UNSET


class PlayerChallenged(EventData):
    seat: int
    target: int
    card: Card
    paired: bool


class PlayerAccused(EventData):
    """The accused's hand and row, shown to the accuser alone (and the auditors)."""

    seat: int
    target: int
    timeout: Flag = UNSET
    hand: list[Card] | Hidden = UNSET
    row: list[Card] | Hidden = UNSET
    paired: bool | Hidden = UNSET


class PiratePairsCardDrawn(EventData):
    seat: int
    card: Card | Hidden = UNSET
    timeout: Flag = UNSET


class DiscardsReshuffled(EventData):
    """The discards became pile number `reshuffle`, its order the auditors' alone."""

    reshuffle: int
    count: int
    pile: list[Card] | Hidden = UNSET


class PlayerEliminated(EventData):
    seat: int
    reason: Literal["paired_on_challenge", "accused_rightly", "accused_wrongly"]
    cards: list[Card]


class PiratePairsTurnPassed(EventData):
    seat: int
    at: float


class GameWon(EventData):
    seat: int
    pot: int


EVENT_DATA: dict[str, type[EventData]] = {
    "HandOpened": HandOpened, "CardsDealt": CardsDealt, "OpeningCardChosen": OpeningCardChosen,
    "OpeningCardsRevealed": OpeningCardsRevealed, "PlayerAttacked": PlayerAttacked,
    "PlayerChallenged": PlayerChallenged, "PlayerAccused": PlayerAccused,
    "CardDrawn": PiratePairsCardDrawn, "DiscardsReshuffled": DiscardsReshuffled,
    "PlayerEliminated": PlayerEliminated, "TurnPassed": PiratePairsTurnPassed, "GameWon": GameWon,
}
