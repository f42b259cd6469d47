"""The seven-and-a-half games (Sette e mezzo, Siete y media, Casino pirate) in the API: what a
seat may see of a hand (games/sevenhalf/view.py), the actions `legal_actions` offers and the
actions a client sends."""

from __future__ import annotations

from typing import ClassVar

from marshmallow import fields, validate

from games.sevenhalf.options import PirateOptions, SetteOptions, SieteOptions
from service.http.action_parts import RangeSchema, SeatedSchema, plain
from service.http.unions import Alternatives, Strict, Union, tag

STATUSES = ["open", "stood", "bust", "seven_half", "out", "won", "lost", "conceded"]
PHASES = ["opening", "announcing", "betting", "playing", "banking", "answering", "ended"]
WAITING_FOR = ["announce", "bet", "choose", "play", "bank", "answer"]
ROLES = ["player", "banker"]


# --- the view ------------------------------------------------------------------------------
class SevenHalfPhaseSchema(Strict):
    name = fields.String(required=True, validate=validate.OneOf(PHASES))
    seat = fields.Integer(metadata={"description": "Who is to act (not while opening or ended)."})
    index = fields.Integer(metadata={"description": "The hand played (playing only)."})
    at = fields.Float(metadata={"description": "When the turn began (seconds since the epoch)."})


class SevenHalfTurnSchema(Strict):
    seat = fields.Integer(required=True)
    waiting_for = fields.String(required=True, validate=validate.OneOf(WAITING_FOR))
    role = fields.String(required=True, validate=validate.OneOf(ROLES))


class SevenHalfHandSchema(Strict):
    seat = fields.Integer(required=True)
    index = fields.Integer(required=True, metadata={"description": "-1: the banker's (meneur's)."})
    stake = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    cards = fields.List(fields.String(allow_none=True), required=True, metadata={
        "description": "Card ids; null for a card face down that you may not see."})
    face_up = fields.List(fields.Boolean(), required=True)
    declared = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "Skeletons' declared values; with `total`, only when you see every card."})
    total = fields.Integer(metadata={"description": "In half points: 15 is 7½."})
    total_display = fields.String(metadata={"example": "7½"})


class SevenHalfResultSchema(Strict):
    seat = fields.Integer(required=True)
    index = fields.Integer(required=True)
    stake = fields.Integer()
    total = fields.Integer(allow_none=True)
    total_display = fields.String(metadata={"example": "7½"})
    outcome = fields.String(validate=validate.OneOf(["won", "lost", "bust"]))
    net = fields.Integer(metadata={"description": (
        "What the rules award this bet: won (+) or lost (-), before any shortfall. A payer who"
        " cannot cover it pays what his seat holds (a `ShortfallRecorded` event); the view's"
        " `balance_changes` says what each seat gained or lost in fact.")})
    banker = fields.Boolean()
    uncalled = fields.Boolean()
    meneur_total = fields.Integer()
    meneur_total_display = fields.String(metadata={"example": "6½"})
    conceded = fields.Boolean()
    seven_half = fields.Boolean()
    timeout = fields.Boolean()


class SevenHalfViewSchema(Strict):
    phase = fields.Nested(SevenHalfPhaseSchema, required=True)
    banker = fields.Integer(required=True, metadata={"description": "The banker's (meneur's) seat."})
    order = fields.List(fields.Integer(), required=True)
    stake = fields.Integer(required=True)
    balances = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    cards_left = fields.Integer(required=True)
    hands = fields.List(fields.Nested(SevenHalfHandSchema), required=True)
    bank = fields.Nested(SevenHalfHandSchema, required=True)
    called = fields.List(fields.Integer(), required=True)
    next_banker = fields.Integer(required=True, allow_none=True, metadata={"description": (
        "The seat that banks the next hand, once the hand has ended: the banker again, or the"
        " player at 7½ who takes the bank as the game says (Sette e mezzo, Siete y media); in"
        " Casino pirate the first player to show 7½, else the volunteer who took the post, else"
        " null (the meneur stays unless someone volunteers). Null while the hand is in play.")})
    volunteers = fields.List(fields.Integer(), required=True, metadata={
        "description": "Casino pirate: the seat that volunteered to be the next meneur (one at most)."})
    commitment = fields.String(required=True)
    turn = fields.Nested(SevenHalfTurnSchema, required=True, allow_none=True)
    results = fields.List(fields.Nested(SevenHalfResultSchema), metadata={
        "description": "Once the hand has ended."})
    balance_changes = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "Once the hand has ended: each seat's balance at the end less its balance"
                       " at the deal, by seat, shortfalls included (what the hand's postings moved)."})
    deck = fields.List(fields.String(), metadata={"description": "The cards left, to auditors."})


class SetteEMezzoViewSchema(SevenHalfViewSchema):
    game = tag("sette-e-mezzo")
    options = fields.Nested(SetteOptions, required=True)


class SieteYMediaViewSchema(SevenHalfViewSchema):
    game = tag("siete-y-media")
    options = fields.Nested(SieteOptions, required=True)


class CasinoPirateViewSchema(SevenHalfViewSchema):
    game = tag("casino-pirate")
    options = fields.Nested(PirateOptions, required=True)


# --- what `legal_actions` offers (a range where a number is to be chosen) -------------------
def _declare(values: fields.Field) -> fields.Dict:
    return fields.Dict(keys=fields.String(), values=values, metadata={
        "description": "Casino pirate: a value for any of your undeclared skeletons, by card id."})


class AnnounceOfferSchema(Strict):
    type = tag("announce")
    amount = fields.Nested(RangeSchema, required=True)


class BetOfferSchema(Strict):
    type = tag("bet")
    amount = fields.Nested(RangeSchema, required=True)


class StandOfferSchema(Strict):
    type = tag("stand")
    declare = _declare(fields.Nested(RangeSchema))


class RevealOfferSchema(Strict):
    type = tag("reveal")
    declare = _declare(fields.Nested(RangeSchema))


class DeclareOfferSchema(Strict):
    type = tag("declare")
    card = fields.String(required=True)
    value = fields.Nested(RangeSchema, required=True)


# --- what a client sends ---------------------------------------------------------------------
class AnnounceActionSchema(SeatedSchema):
    type = tag("announce")
    amount = fields.Integer(required=True)


class BetActionSchema(SeatedSchema):
    type = tag("bet")
    amount = fields.Integer(required=True)


class SetteEMezzoBetActionSchema(BetActionSchema):
    seed = fields.String(allow_none=True, validate=validate.Length(max=200), metadata={
        "description": "Your own text for this hand's shuffle, as a join's seed: Sette e mezzo"
                       " bets before the deal, so once the bets are down the deck is shuffled"
                       " again from the server seed, the join seeds in seat order, then the bets'"
                       " seeds in the order placed (docs/fair-decks.md). Shown to the table;"
                       " put nothing personal in it. Siete y media and Casino pirate deal before"
                       " the bets and refuse it (422 bad_action)."})


class StandActionSchema(SeatedSchema):
    type = tag("stand")
    declare = _declare(fields.Integer())


class RevealActionSchema(SeatedSchema):
    type = tag("reveal")
    declare = _declare(fields.Integer())


class DeclareActionSchema(SeatedSchema):
    type = tag("declare")
    card = fields.String(required=True)
    value = fields.Integer(required=True)


class HideActionSchema(SeatedSchema):
    type = tag("hide")
    card = fields.String(required=True)


class CallActionSchema(SeatedSchema):
    type = tag("call")
    target = fields.Integer(required=True)


HitActionSchema = plain("hit")
SitOutActionSchema = plain("sit_out")
SplitActionSchema = plain("split")
ConcedeActionSchema = plain("concede")
VolunteerActionSchema = plain("volunteer")


class SetteEMezzoLegalActionSchema(Union):
    """An action Sette e mezzo offers."""

    alternatives: ClassVar[Alternatives] = {
        "bet": BetOfferSchema, "hit": HitActionSchema, "stand": StandOfferSchema,
    }


class SetteEMezzoActionSchema(Union):
    """An action of Sette e mezzo."""

    alternatives: ClassVar[Alternatives] = {
        "bet": SetteEMezzoBetActionSchema, "hit": HitActionSchema, "stand": StandActionSchema,
    }


class SieteYMediaLegalActionSchema(Union):
    """An action Siete y media offers."""

    alternatives: ClassVar[Alternatives] = {
        **SetteEMezzoLegalActionSchema.alternatives, "announce": AnnounceOfferSchema,
        "sit_out": SitOutActionSchema, "split": SplitActionSchema,
    }


class SieteYMediaActionSchema(Union):
    """An action of Siete y media."""

    alternatives: ClassVar[Alternatives] = {
        **SetteEMezzoActionSchema.alternatives, "bet": BetActionSchema,
        "announce": AnnounceActionSchema,
        "sit_out": SitOutActionSchema, "split": SplitActionSchema,
    }


class CasinoPirateLegalActionSchema(Union):
    """An action Casino pirate offers."""

    alternatives: ClassVar[Alternatives] = {
        **SetteEMezzoLegalActionSchema.alternatives, "hide": HideActionSchema,
        "declare": DeclareOfferSchema, "call": CallActionSchema, "reveal": RevealOfferSchema,
        "concede": ConcedeActionSchema, "volunteer": VolunteerActionSchema,
    }


class CasinoPirateActionSchema(Union):
    """An action of Casino pirate."""

    alternatives: ClassVar[Alternatives] = {
        **SetteEMezzoActionSchema.alternatives, "bet": BetActionSchema, "hide": HideActionSchema,
        "declare": DeclareActionSchema, "call": CallActionSchema, "reveal": RevealActionSchema,
        "concede": ConcedeActionSchema, "volunteer": VolunteerActionSchema,
    }
