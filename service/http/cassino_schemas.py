"""Cassino in the API: what a seat may see of a round (games/cassino/view.py) and its moves,
every one offered in full by `legal_actions` and sent back as it is."""

from __future__ import annotations

from typing import ClassVar

from marshmallow import fields, validate

from games.cassino.options import VARIANTS, OptionsSchema
from service.http.action_parts import SeatedSchema
from service.http.unions import Alternatives, Strict, Union, tag

WAITING_FOR = ["play"]


class CassinoOptionsSchema(OptionsSchema):
    """A Cassino table's options (named apart from the other games' for the document)."""


class CassinoPhaseSchema(Strict):
    name = fields.String(required=True, validate=validate.OneOf(
        ["not_started", "opening", "playing", "round_over"]))
    to_move = fields.Integer(metadata={"description": "The seat to play (playing)."})
    winner = fields.Integer(allow_none=True, metadata={
        "description": "The side that won the game, if any (round_over)."})
    winning_seats = fields.List(fields.Integer())


class CassinoItemSchema(Strict):
    id = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["card", "build"]))
    cards = fields.List(fields.String(), required=True)
    value = fields.Integer(metadata={"description": "A build's value."})
    owner = fields.Integer(metadata={"description": "A build's owner."})
    reserved = fields.Boolean()


class CassinoStockSchema(Strict):
    count = fields.Integer(required=True)
    cards = fields.List(fields.String(), metadata={"description": "To auditors."})


class CassinoHandSchema(Strict):
    seat = fields.Integer(required=True)
    count = fields.Integer(required=True)
    cards = fields.List(fields.String(), metadata={"description": "Your own (auditors: all)."})


class CassinoCapturedSchema(Strict):
    seat = fields.Integer(required=True)
    count = fields.Integer(required=True)
    cards = fields.List(fields.String(), required=True)
    sweeps = fields.Integer(required=True)


class CassinoViewSchema(Strict):
    game = tag("cassino")
    variant = fields.String(required=True, validate=validate.OneOf(VARIANTS))
    target = fields.Integer(required=True)
    players = fields.Integer(required=True)
    round = fields.Integer(required=True)
    dealer = fields.Integer(required=True, allow_none=True)
    teams = fields.List(fields.List(fields.Integer()), required=True, allow_none=True)
    phase = fields.Nested(CassinoPhaseSchema, required=True)
    table = fields.List(fields.Nested(CassinoItemSchema), required=True)
    stock = fields.Nested(CassinoStockSchema, required=True)
    hands = fields.List(fields.Nested(CassinoHandSchema), required=True)
    captured = fields.List(fields.Nested(CassinoCapturedSchema), required=True)
    last_capturer = fields.Integer(required=True, allow_none=True)
    scores = fields.List(fields.Integer(), required=True)
    round_points = fields.List(fields.Dict(keys=fields.String(), values=fields.Integer()),
                               required=True)
    stake = fields.Integer(required=True)
    pot = fields.Integer(required=True)
    commitment = fields.String(required=True)


class CaptureActionSchema(SeatedSchema):
    type = tag("capture")
    card = fields.String(required=True)
    take = fields.List(fields.String(), required=True, metadata={"description": "Table item ids."})


class BuildActionSchema(SeatedSchema):
    type = tag("build")
    card = fields.String(required=True)
    onto = fields.List(fields.String(), required=True)
    value = fields.Integer(required=True)


class ReserveActionSchema(SeatedSchema):
    type = tag("reserve")
    card = fields.String(required=True)
    onto = fields.List(fields.String(), required=True)
    value = fields.Integer(required=True)


class ExtendActionSchema(SeatedSchema):
    type = tag("extend")
    card = fields.String(required=True)
    build = fields.String(required=True)
    value = fields.Integer(required=True)


class TrailActionSchema(SeatedSchema):
    type = tag("trail")
    card = fields.String(required=True)


class CassinoActionSchema(Union):
    """A move of Cassino (as offered, so as sent)."""

    alternatives: ClassVar[Alternatives] = {
        "capture": CaptureActionSchema, "build": BuildActionSchema, "reserve": ReserveActionSchema,
        "extend": ExtendActionSchema, "trail": TrailActionSchema,
    }
