"""The event types Banco records outside the games, with their payloads' schemas.

Each payload is a msgspec Struct: exactly its keys (`forbid_unknown_fields`), each of exactly its
type, with no coercion (a string is no integer, an integer no boolean), so that what is stored is
what the type says. A new type is a Struct here and a line in `PAYLOADS` (or a marshmallow Schema
instance given to `EventTypes.register`, which takes both).
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from events.types import EventTypes

ACCOUNT_PATTERN = r"^(house:issued|wallet:[\w-]+|(seat|escrow|pot):[\w-]+:[\w-]+)$"
Account = Annotated[str, Meta(pattern=ACCOUNT_PATTERN)]
# Finite only: NaN compares false with both bounds and is refused too (orjson would write null).
Seconds = Annotated[float, Meta(ge=-sys.float_info.max, le=sys.float_info.max)]
Json = dict[str, Any]


class Payload(Struct, forbid_unknown_fields=True):
    """An event's data: exactly these keys, each of exactly its type (no coercion)."""


class TreasurePosted(Payload):
    """One double-entry posting: `amount` moves from `from` to `to`."""

    from_: Account = msgspec.field(name="from")
    to: Account
    amount: Annotated[int, Meta(ge=1)]
    reason: Annotated[str, Meta(min_length=1, max_length=200)]
    table: str | None = None
    hand: str | None = None


class PlayerRegistered(Payload):
    """A player joined Banco. His name is sealed under his own key (events/personal_data.py), so
    that erasing him leaves it unreadable; registrations recorded before that held `name`."""

    player_id: str
    name_enc: Annotated[str, Meta(min_length=1, max_length=1000)]


class PlayerErased(Payload):
    """A player's key was destroyed: his sealed personal data can no longer be read. Holds none."""

    player_id: str
    actor: str


class AuditorRegistered(Payload):
    """An auditor was given read access (his tokens' events follow in his stream)."""

    auditor_id: str
    name: Annotated[str, Meta(min_length=1, max_length=100)]


class TokenChanged(Payload):
    """A bearer token issued or revoked: whose, its id and who did it; never the token nor its hash."""

    role: Literal["player", "auditor"]
    subject: str
    token_id: str
    actor: str


class OperatorKeyCreated(Payload):
    """The operator made a scoped API key: its id, name, scopes and expiry (ISO 8601, or none),
    and who made it; never the key nor its hash."""

    key_id: str
    name: Annotated[str, Meta(min_length=1, max_length=100)]
    scopes: list[str]
    expires_at: str | None
    actor: str


class OperatorKeyChanged(Payload):
    """A scoped API key's secret replaced (rotated) or the key revoked, and who did it."""

    key_id: str
    actor: str


Note = Annotated[str, Meta(min_length=1, max_length=2000)]


class DisputeOpened(Payload):
    """A dispute on a hand: who opened it (a player of the hand, an auditor or the operator),
    why, and the hand's players, who may read it."""

    dispute_id: str
    hand_id: str
    table_id: str
    reason: Note
    opened_by: Literal["player", "auditor", "operator"]
    actor: str
    players: list[str]


class DisputeEvidenceAttached(Payload):
    """A note of evidence attached to an open dispute, and who attached it."""

    dispute_id: str
    hand_id: str
    note: Note
    attached_by: Literal["player", "auditor", "operator"]
    actor: str


class DisputeReadjudicated(Payload):
    """The hand replayed under `rules_version` (the hand's own is `hand_rules_version`): how many
    of its engine events and postings differ, the command the engine refused if one, and each
    posting that differs (money only: the events' differences, which may hold hidden cards, are
    worked out again when shown, for each reader)."""

    dispute_id: str
    hand_id: str
    rules_version: Annotated[int, Meta(ge=1)]
    hand_rules_version: Annotated[int, Meta(ge=1)]
    matches: bool
    events_differing: Annotated[int, Meta(ge=0)]
    postings_differing: Annotated[int, Meta(ge=0)]
    refused: str | None
    postings: list[Json]
    actor: str


class DisputeResolved(Payload):
    """The dispute closed with corrective postings: the TreasurePosted events that follow it in
    the dispute's stream, each one of `postings`, naming the dispute in its reason."""

    dispute_id: str
    hand_id: str
    table_id: str
    note: Note
    postings: list[Json]
    actor: str


class DisputeRejected(Payload):
    """The dispute closed with nothing paid, and why."""

    dispute_id: str
    hand_id: str
    note: Note
    actor: str


class GameEvent(Payload):
    """A rules engine's event, as recorded: who may read `data`, and what everyone else gets."""

    hand: str
    data: Json
    visible_to: list[int] | None = None
    public: Json | None = None


class TableCreated(Payload):
    table_id: str
    game: str
    options: Json
    created_by: str
    # The game's rules version the table plays for its whole life; absent before versions existed: 1.
    rules_version: Annotated[int, Meta(ge=1)] | None = None


class PlayerSeated(Payload):
    seat: int
    player_id: str
    buy_in: Annotated[int, Meta(ge=0)]
    age: int | None = None
    seed: str | None = None


class PlayerLeft(Payload):
    seat: int
    player_id: str
    cash_out: Annotated[int, Meta(ge=0)]
    # The last hand's state carried past the leave, its seats renumbered (`Engine.reseated`:
    # the bank's succession, the table's clock). Absent from leaves recorded before it did,
    # after which the next hand started as a table's first: so they are replayed.
    carried: bool = False


class HandBegan(Payload):
    hand_id: str
    number: int
    seats: list[Json]
    commitment: str


class HandSettled(Payload):
    hand_id: str
    postings: list[Json]


class SeedRevealed(Payload):
    hand_id: str
    server_seed: str
    player_seeds: list[str]
    auditors_only: bool


class TableEnded(Payload):
    reason: str


class DeadlineSet(Payload):
    """The turn in play and when it times out (seconds since the epoch)."""

    hand: str
    seat: int
    waiting_for: str
    deadline: Seconds


class SettlementClaimed(Payload):
    """The one settlement of a hand: its stream exists once, so a second settlement conflicts."""

    hand_id: str
    table_id: str


PAYLOADS: dict[str, type[Payload]] = {
    "TreasurePosted": TreasurePosted, "PlayerRegistered": PlayerRegistered,
    "PlayerErased": PlayerErased,
    "AuditorRegistered": AuditorRegistered, "TokenIssued": TokenChanged, "TokenRevoked": TokenChanged,
    "OperatorKeyCreated": OperatorKeyCreated, "OperatorKeyRotated": OperatorKeyChanged,
    "OperatorKeyRevoked": OperatorKeyChanged,
    "DisputeOpened": DisputeOpened, "DisputeEvidenceAttached": DisputeEvidenceAttached,
    "DisputeReadjudicated": DisputeReadjudicated, "DisputeResolved": DisputeResolved,
    "DisputeRejected": DisputeRejected,
    "TableCreated": TableCreated, "PlayerSeated": PlayerSeated, "PlayerLeft": PlayerLeft,
    "HandBegan": HandBegan, "HandSettled": HandSettled, "SeedRevealed": SeedRevealed,
    "TableEnded": TableEnded, "DeadlineSet": DeadlineSet, "SettlementClaimed": SettlementClaimed,
}
GAME_EVENT_PREFIX = "game."


def default_types() -> EventTypes:
    """A registry with every non-game event type."""
    types = EventTypes()
    for name, payload in PAYLOADS.items():
        types.register(name, payload)
    types.register_family(GAME_EVENT_PREFIX, GameEvent)
    return types


# The registry this release reads the log with where no store is at hand (projection rebuilds,
# verification); a test passes its own registry instead.
TYPES = default_types()
