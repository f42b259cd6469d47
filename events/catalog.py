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


def default_types() -> EventTypes:
    """A registry with every non-game event type."""
    types = EventTypes()
    types.register("TreasurePosted", TreasurePostedSchema())
    types.register("PlayerRegistered", PlayerRegisteredSchema())
    return types
