"""What an engine's events hold, as msgspec Structs: the types the API's contract gives each
event's `data` (service/http/event_schemas.py), and that the games' tests check every event the
engines make against.

A member only some viewers receive (a face-down card, the seeds) is optional, `UNSET`: whoever
may not see it receives the event without it (`games.contract.redact`). A member the engine always
writes but may leave null is `| None`. Each game names its events' Structs in `EVENT_DATA`; a
Struct's name is its schema's in the contract, so it is unique among the games (two games' events
of one type and one shape share their Struct).
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, Struct, UnsetType

Card = str
Hidden = UnsetType  # left out for the viewers who may not see it


class EventData(Struct, forbid_unknown_fields=True, kw_only=True):
    """An engine event's data: exactly these keys, each of exactly its type."""


class SeatCard(EventData):
    """One seat's card."""

    seat: int
    card: Card


class CardsDealt(EventData):
    """A packet dealt face down: its receiver (and the auditors) read `cards`, the others `count`."""

    seat: int
    cards: list[Card] | Hidden = UNSET
    count: int | Hidden = UNSET


Json = dict[str, Any]
__all__ = ["UNSET", "Card", "CardsDealt", "EventData", "Hidden", "Json", "SeatCard"]
