"""Pirate pairs in the API: what a seat may see of a hand (games/pirate_pairs/view.py) and its
actions, every one offered in full by `legal_actions` and sent back as it is."""

from __future__ import annotations

from typing import ClassVar

from marshmallow import fields, validate

from games.pirate_pairs.options import OptionsSchema
from service.http.action_parts import SeatedSchema, plain
from service.http.unions import Alternatives, Strict, Union, tag

WAITING_FOR = ["choose", "play"]


class PiratePairsOptionsSchema(OptionsSchema):
    """A Pirate pairs table's options (named apart from the other games' for the document)."""


class PiratePairsPhaseSchema(Strict):
    name = fields.String(required=True, validate=validate.OneOf(
        ["not_opened", "choosing", "playing", "finished"]))
    deadline = fields.Float(metadata={"description": "When the turn times out (choosing, playing)."})
    turn = fields.Integer(metadata={"description": "The seat to play (playing)."})
    winner = fields.Integer(metadata={"description": "The last pirate in (finished)."})


class PiratePairsPlayerSchema(Strict):
    seat = fields.Integer(required=True)
    age = fields.Integer(required=True, allow_none=True)
    in_ = fields.Boolean(required=True, data_key="in")
    row = fields.List(fields.String(), required=True, metadata={"description": "Face up."})
    hand_count = fields.Integer(required=True)
    hand = fields.List(fields.String(), metadata={"description": "Your own hand (auditors: all)."})
    has_chosen = fields.Boolean(metadata={"description": "During the opening choice."})
    chosen = fields.String(metadata={"description": "Your own opening choice, once made."})


class PiratePairsViewSchema(Strict):
    game = tag("pirate-pairs")
    phase = fields.Nested(PiratePairsPhaseSchema, required=True)
    stake = fields.Integer(required=True)
    turn_timeout_s = fields.Integer(required=True)
    pot = fields.Integer(required=True)
    commitment = fields.String(required=True)
    players = fields.List(fields.Nested(PiratePairsPlayerSchema), required=True)
    pile_count = fields.Integer(required=True)
    discards = fields.List(fields.String(), required=True)
    reshuffles = fields.Integer(required=True)
    pile = fields.List(fields.String(), metadata={"description": "The pile's order, to auditors."})


class ChooseActionSchema(SeatedSchema):
    type = tag("choose")
    card = fields.String(required=True, metadata={"example": "7.3"})


class AttackActionSchema(SeatedSchema):
    type = tag("attack")
    target = fields.Integer(required=True)
    card = fields.String(required=True, metadata={"example": "7.3"})


class ChallengeActionSchema(SeatedSchema):
    type = tag("challenge")
    target = fields.Integer(required=True)


class AccuseActionSchema(SeatedSchema):
    type = tag("accuse")
    target = fields.Integer(required=True)


DrawActionSchema = plain("draw")


class PiratePairsActionSchema(Union):
    """An action of Pirate pairs (as offered, so as sent)."""

    alternatives: ClassVar[Alternatives] = {
        "choose": ChooseActionSchema, "attack": AttackActionSchema,
        "challenge": ChallengeActionSchema, "accuse": AccuseActionSchema, "draw": DrawActionSchema,
    }
