"""Table options of the 7½ family, with their defaults and validation."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

# Bounds that keep every option a sane number (and a 64-bit one, as the event log stores it):
# a bet or buy-in no larger than a seat's buy-in may be, a turn of at most a day, a table of at
# most thirty days.
MAX_TREASURE = 10**9
MAX_TURN_S = 86_400
MAX_DURATION_S = 30 * 86_400


class StrictBoolean(fields.Boolean):
    """JSON's true or false only, as the integer options take integers only (`strict`): 1 and
    "true" stand for true to marshmallow's Boolean (and `1 in {True}`, so `truthy` cannot say)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class CommonOptions(Schema):
    """Options every game of the family takes.

    Every integer is strict: marshmallow would otherwise cut 1.5 down to 1 and take it."""

    min_bet = fields.Integer(load_default=1, strict=True, validate=validate.Range(min=1, max=MAX_TREASURE))
    max_bet = fields.Integer(load_default=100, strict=True, validate=validate.Range(min=1, max=MAX_TREASURE))
    turn_timeout_s = fields.Integer(load_default=30, strict=True,
                                    validate=validate.Range(min=1, max=MAX_TURN_S))
    banker_timeout_s = fields.Integer(load_default=60, strict=True,
                                      validate=validate.Range(min=1, max=MAX_TURN_S))
    banker_stand_at = fields.Integer(load_default=5, strict=True, validate=validate.Range(min=1, max=7))

    @validates_schema
    def _bets_in_order(self, data: dict[str, Any], **_: Any) -> None:
        if data["min_bet"] > data["max_bet"]:
            raise ValidationError("min_bet must not exceed max_bet", "min_bet")


class SetteOptions(CommonOptions):
    """Sette e mezzo: the banker is seat 0 or drawn by lot."""

    banker = fields.String(load_default="seat0", validate=validate.OneOf(["seat0", "lot"]))


class SieteOptions(SetteOptions):
    """Siete y media: payout multiplier when bank and player both have 7½, bank passing."""

    both_seven_half_pays = fields.Integer(load_default=4, strict=True, validate=validate.Range(min=1, max=10))
    seven_half_takes_bank = StrictBoolean(load_default=False)


class PirateOptions(CommonOptions):
    """Casino pirate: bets of 1 or 2, buy-in, duration and the deck's counts."""

    min_bet = fields.Integer(load_default=1, strict=True, validate=validate.Range(min=1, max=MAX_TREASURE))
    max_bet = fields.Integer(load_default=2, strict=True, validate=validate.Range(min=1, max=MAX_TREASURE))
    buy_in = fields.Integer(load_default=10, strict=True, validate=validate.Range(min=1, max=MAX_TREASURE))
    duration_s = fields.Integer(load_default=None, allow_none=True, strict=True,
                                validate=validate.Range(min=1, max=MAX_DURATION_S))
    gems = fields.Integer(load_default=4, strict=True, validate=validate.Range(min=1, max=8))
    gold_coins = fields.Integer(load_default=8, strict=True, validate=validate.Range(min=0, max=16))
    pebbles = fields.Integer(load_default=4, strict=True, validate=validate.Range(min=0, max=16))
    skeletons = fields.Integer(load_default=2, strict=True, validate=validate.Range(min=0, max=8))


class PirateOptionsV2(PirateOptions):
    """Casino pirate from rules version 2: the buy-in covers the smallest bet, or no seat would
    ever be dealt a card (a seat holding less than `min_bet` is dealt none)."""

    @validates_schema
    def _buy_in_covers_min_bet(self, data: dict[str, Any], **_: Any) -> None:
        if data["buy_in"] < data["min_bet"]:
            raise ValidationError("buy_in must be at least min_bet", "buy_in")
