"""The event types Banco records outside the games, with their schemas."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

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


class AuditorRegisteredSchema(Schema):
    """An auditor was given read access (his tokens' events follow in his stream)."""

    auditor_id = fields.String(required=True)
    name = fields.String(required=True, validate=validate.Length(min=1, max=100))


class TokenChangedSchema(Schema):
    """A bearer token issued or revoked: whose, its id and who did it; never the token nor its hash."""

    role = fields.String(required=True, validate=validate.OneOf(["player", "auditor"]))
    subject = fields.String(required=True)
    token_id = fields.String(required=True)
    actor = fields.String(required=True)


def default_types() -> EventTypes:
    """A registry with every non-game event type."""
    types = EventTypes()
    types.register("TreasurePosted", TreasurePostedSchema())
    types.register("PlayerRegistered", PlayerRegisteredSchema())
    types.register("AuditorRegistered", AuditorRegisteredSchema())
    types.register("TokenIssued", TokenChangedSchema())
    types.register("TokenRevoked", TokenChangedSchema())
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
