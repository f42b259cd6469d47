"""The event types Banco records outside the games, with their schemas."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import msgspec
from marshmallow import Schema, fields, validate
from msgspec import Meta, Struct

from events.types import EventTypes

ACCOUNT = validate.Regexp(
    r"^(house:issued|wallet:[\w-]+|(seat|escrow|pot):[\w-]+:[\w-]+)$",
    error="not a ledger account",
)


class TreasurePostedSchema(Schema):
    """One double-entry posting: `amount` moves from `from` to `to`."""

    from_ = fields.String(required=True, data_key="from", validate=ACCOUNT)
    to = fields.String(required=True, validate=ACCOUNT)
    amount = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    reason = fields.String(required=True, validate=validate.Length(min=1, max=200))
    table = fields.String(allow_none=True, load_default=None)
    hand = fields.String(allow_none=True, load_default=None)


class PlayerRegisteredSchema(Schema):
    """A player joined Banco."""

    player_id = fields.String(required=True)
    name = fields.String(required=True, validate=validate.Length(min=1, max=100))


def default_types() -> EventTypes:
    """A registry with every non-game event type."""
    types = EventTypes()
    types.register("TreasurePosted", TreasurePostedSchema())
    types.register("PlayerRegistered", PlayerRegisteredSchema())
    for name, schema in TABLE_EVENTS.items():
        types.register(name, schema())
    types.register_family(GAME_EVENT_PREFIX, GameEventSchema())
    return types


class GameEventSchema(Schema):
    """A rules engine's event, as recorded: who may read `data`, and what everyone else gets."""

    hand = fields.String(required=True)
    data = fields.Dict(required=True)
    visible_to = fields.List(fields.Integer(), allow_none=True, load_default=None)
    public = fields.Dict(allow_none=True, load_default=None)


class TableCreatedSchema(Schema):
    table_id = fields.String(required=True)
    game = fields.String(required=True)
    options = fields.Dict(required=True)
    created_by = fields.String(required=True)


class PlayerSeatedSchema(Schema):
    seat = fields.Integer(required=True, strict=True)
    player_id = fields.String(required=True)
    buy_in = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    age = fields.Integer(allow_none=True, load_default=None)
    seed = fields.String(allow_none=True, load_default=None)


class PlayerLeftSchema(Schema):
    seat = fields.Integer(required=True, strict=True)
    player_id = fields.String(required=True)
    cash_out = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))


class HandBeganSchema(Schema):
    hand_id = fields.String(required=True)
    number = fields.Integer(required=True, strict=True)
    seats = fields.List(fields.Dict(), required=True)
    commitment = fields.String(required=True)


class HandSettledSchema(Schema):
    hand_id = fields.String(required=True)
    postings = fields.List(fields.Dict(), required=True)


class SeedRevealedSchema(Schema):
    hand_id = fields.String(required=True)
    server_seed = fields.String(required=True)
    player_seeds = fields.List(fields.String(), required=True)
    auditors_only = fields.Boolean(required=True)


class TableEndedSchema(Schema):
    reason = fields.String(required=True)


class DeadlineSetSchema(Schema):
    """The turn in play and when it times out (seconds since the epoch)."""

    hand = fields.String(required=True)
    seat = fields.Integer(required=True, strict=True)
    waiting_for = fields.String(required=True)
    deadline = fields.Float(required=True)


class SettlementClaimedSchema(Schema):
    """The one settlement of a hand: its stream exists once, so a second settlement conflicts."""

    hand_id = fields.String(required=True)
    table_id = fields.String(required=True)


TABLE_EVENTS: dict[str, type[Schema]] = {
    "TableCreated": TableCreatedSchema, "PlayerSeated": PlayerSeatedSchema,
    "PlayerLeft": PlayerLeftSchema, "HandBegan": HandBeganSchema,
    "HandSettled": HandSettledSchema, "SeedRevealed": SeedRevealedSchema,
    "TableEnded": TableEndedSchema, "DeadlineSet": DeadlineSetSchema,
    "SettlementClaimed": SettlementClaimedSchema,
}
GAME_EVENT_PREFIX = "game."


# The same payloads as msgspec Structs: `msgspec.convert(data, Struct)` checks a payload in a
# fraction of `Schema.validate`'s time (bench/validate.py).
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
    """A player joined Banco."""

    player_id: str
    name: Annotated[str, Meta(min_length=1, max_length=100)]


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
    "TableCreated": TableCreated, "PlayerSeated": PlayerSeated, "PlayerLeft": PlayerLeft,
    "HandBegan": HandBegan, "HandSettled": HandSettled, "SeedRevealed": SeedRevealed,
    "TableEnded": TableEnded, "DeadlineSet": DeadlineSet, "SettlementClaimed": SettlementClaimed,
}
