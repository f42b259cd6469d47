"""The data of each event of the 7½ family (games/sevenhalf/events.py), as a viewer receives it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta, UnsetType

from games.event_data import UNSET, Card, EventData, Hidden

# A seat's result, as the rules award it: what the bank's seat cannot cover is paid short at
# settlement (RULES.md, "Money in the 7½ family"), which its postings and `ShortfallRecorded` say.
Net = Annotated[int, Meta(description=(
    "What the rules award the seat for this hand (its stake won or lost), before any shortfall:"
    " what was paid is in the hand's postings, and a payer's seat that could not cover it is"
    " a ShortfallRecorded event"))]


class HandSeat(EventData):
    """A seat as the hand opened: its balance at the table and its player's age, if given."""

    seat: int
    balance: int
    age: int | None


class HandStarted(EventData):
    """The hand opened: the seeds and the deck's order are the auditors' alone."""

    game: str
    options: dict[str, Any]
    banker: int
    order: list[int]
    seats: list[HandSeat]
    commitment: str
    started_at: float
    table_started_at: float
    server_seed: str | Hidden = UNSET
    player_seeds: list[str] | Hidden = UNSET
    deck: list[Card] | Hidden = UNSET


class SevenHalfTurnPassed(EventData):
    """`seat` is to act in `phase`, on its hand `index` where the phase is a hand's."""

    phase: Literal["announce", "bet", "play", "bank", "answer"]
    seat: int
    index: int | None
    at: float


class StakeAnnounced(EventData):
    seat: int
    amount: int
    timeout: bool


class BetPlaced(EventData):
    seat: int
    index: int
    amount: int
    timeout: Annotated[bool, Meta(description=(
        "Placed by the betting timer: Casino pirate from rules version 3 bets `min_bet` for a"
        " player who let it run (version 2 did too, unmarked)"))] | UnsetType = UNSET
    seed: Annotated[str, Meta(max_length=200, description=(
        "Sette e mezzo: the player's own text for the shuffle, given with the bet; the deck is"
        " shuffled again with it once the bets are down (DeckShuffled)"))] | UnsetType = UNSET


class DeckShuffled(EventData):
    """Sette e mezzo, once the bets are down when a bet carried a seed: the deck shuffled again
    from the server seed and every player seed (the joins' in seat order, then the bets' in the
    order they were placed), the cards to come off it. Both are the auditors' alone, as
    HandStarted's are."""

    player_seeds: list[str] | Hidden = UNSET
    deck: list[Card] | Hidden = UNSET


class SatOut(EventData):
    seat: int
    timeout: bool


class CardDealt(EventData):
    """A card dealt to hand `index`: a face-down card is its holder's (and the auditors') alone."""

    seat: int
    index: int
    face_up: bool
    timeout: bool
    card: Card | Hidden = UNSET


class CardTurnedUp(EventData):
    seat: int
    index: int
    card: Card
    timeout: bool


class CardsShown(EventData):
    """A hand shown to everyone, with the values declared on its skeletons (card: half-points)."""

    seat: int
    index: int
    cards: list[Card]
    reason: Literal["bust", "seven_half", "showdown", "called"]
    declared: dict[str, int]


class StakeLost(EventData):
    seat: int
    index: int
    amount: int
    banker: int


class Stood(EventData):
    """A hand stands; the values declared on its skeletons are its holder's alone."""

    seat: int
    index: int
    timeout: bool
    declared: dict[str, int] | Hidden = UNSET


class HandSplit(EventData):
    seat: int
    index: int
    new_index: int
    card: Card
    amount: int


class PlayerCalled(EventData):
    seat: int
    target: int
    timeout: bool


class CallDecided(EventData):
    """A called player's hand against the meneur's (totals in half-points; null: conceded unseen).
    A hand's replay writes each total as people read it beside it (`total_display`: "7½")."""

    seat: int
    index: int
    stake: int
    meneur_total: int
    outcome: Literal["won", "lost"]
    net: Net
    conceded: bool
    seven_half: bool
    total: int | None
    timeout: bool
    total_display: str | UnsetType = UNSET
    meneur_total_display: str | UnsetType = UNSET


class SkeletonDeclared(EventData):
    seat: int
    index: int
    card: Card
    value: int
    picked: Annotated[bool, Meta(description=(
        "Casino pirate from rules version 3: the engine fixed the value, the one giving the"
        " meneur's best total, as he drew or called without declaring the skeleton he had"
        " turned up; absent when he declared it"))] | UnsetType = UNSET


class Volunteered(EventData):
    seat: int


class ShortfallRecorded(EventData):
    payer: int
    payee: int
    owed: int
    paid: int
    shortfall: int


class HandResult(EventData):
    """One hand's result (index -1: the banker's own, with `banker`); totals in half-points, null
    for a bank never turned up, and as people read them beside them in a hand's replay. A called
    hand's result is its `CallDecided`."""

    seat: int
    index: int
    stake: int | UnsetType = UNSET
    total: int | UnsetType | None = UNSET
    outcome: Literal["won", "lost", "bust"] | UnsetType = UNSET
    net: Net | UnsetType = UNSET
    banker: bool | UnsetType = UNSET
    uncalled: bool | UnsetType = UNSET
    meneur_total: int | UnsetType = UNSET
    conceded: bool | UnsetType = UNSET
    seven_half: bool | UnsetType = UNSET
    timeout: bool | UnsetType = UNSET
    total_display: str | UnsetType = UNSET
    meneur_total_display: str | UnsetType = UNSET


class HandEnded(EventData):
    """The hand is over: each hand's result, and the postings closing it, each `[from, to,
    amount, reason]` between the engine's accounts."""

    results: list[HandResult]
    postings: list[list[str | int]]
    next_banker: int | None


EVENT_DATA: dict[str, type[EventData]] = {
    "HandStarted": HandStarted, "TurnPassed": SevenHalfTurnPassed,
    "StakeAnnounced": StakeAnnounced, "BetPlaced": BetPlaced, "SatOut": SatOut,
    "DeckShuffled": DeckShuffled,
    "CardDealt": CardDealt, "CardTurnedUp": CardTurnedUp, "CardsShown": CardsShown,
    "StakeLost": StakeLost, "Stood": Stood, "HandSplit": HandSplit,
    "PlayerCalled": PlayerCalled, "CallDecided": CallDecided,
    "SkeletonDeclared": SkeletonDeclared, "Volunteered": Volunteered,
    "ShortfallRecorded": ShortfallRecorded, "HandEnded": HandEnded,
}
