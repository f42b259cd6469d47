"""Response shapes of the audit endpoints: replays, verifications and checkpoints."""

from __future__ import annotations

from typing import ClassVar

from marshmallow import Schema, fields, validate

from service.http.table_schemas import HAND_ID, TABLE_ID
from service.http.unions import Alternatives, Strict, Union, tag

EVENT_REF = {"description": "The event a failed check points at: its stream and version.",
             "example": {"stream": "table-tb_0123456789abcdef", "version": 12}}


class CauseSchema(Schema):
    actor = fields.String(allow_none=True, metadata={"example": "player:pl_0123456789abcdef"})
    request_id = fields.String(allow_none=True)
    causation_id = fields.String(allow_none=True)
    correlation_id = fields.String(allow_none=True)
    command = fields.Dict(allow_none=True, metadata={
        "description": "The command decided: {name, seat, payload, now} for a player's or a"
                       " timeout's, {name} alone for a worker's (`SettleHand`). The payload is left"
                       " out for other seats and the operator when it names what its sender"
                       " keeps secret (the card a Casino pirate player keeps hidden, an opening"
                       " card of Pirate pairs).",
        "example": {"name": "Act", "seat": 1, "payload": {"type": "hit"}, "now": 1795446884.9}})


class ReplayStepSchema(Schema):
    step = fields.Integer(required=True)
    version = fields.Integer(required=True, metadata={"description": "The table stream's version."})
    recorded_at = fields.String(required=True)
    kind = fields.String(required=True, metadata={"example": "game"})
    type = fields.String(required=True, metadata={"example": "CardDealt"})
    hand = fields.String(allow_none=True)
    data = fields.Dict(required=True)
    timeout = fields.Boolean(required=True, metadata={"description": "Caused by a timeout."})
    cause = fields.Nested(CauseSchema, required=True)
    state = fields.Dict(allow_none=True, required=True, metadata={
        "description": "The hand after this event, as you may see it."})


class ViewerSchema(Strict):
    kind = fields.String(required=True, validate=validate.OneOf(["seat", "spectator", "auditor"]))
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "Its seat."})


class ReplaySchema(Schema):
    hand_id = fields.String(required=True, metadata=HAND_ID)
    table_id = fields.String(required=True, metadata=TABLE_ID)
    game = fields.String(required=True)
    viewer = fields.Nested(ViewerSchema, required=True)
    steps = fields.List(fields.Nested(ReplayStepSchema), required=True)


class EventRefSchema(Strict):
    stream = fields.String(required=True)
    version = fields.Integer(required=True)


class Evidence(Strict):
    """What a check compared. Auditors get all of it; others the `reason` of a failure and the
    `summary` of what was counted, such as deck.dealt's "54 cards dealt: 2 to choose the
    dealer, 52 from the deck". A failure's members hold what the log recorded, of any type."""

    reason = fields.String(metadata={"description": "Why it failed, and at which event."})
    summary = fields.String()


def _strings() -> fields.List:
    return fields.List(fields.String())


class ChainEvidence(Evidence):
    stream = fields.String()
    events = fields.Integer(metadata={"description": "Events linked."})
    head = fields.String(allow_none=True, metadata={"description": "The stream's head (hex)."})
    stored = fields.String(metadata={"description": "The hash stored with the event (hex)."})
    recomputed = fields.String(metadata={"description": "The hash recomputed (hex)."})


class CommitmentEvidence(Evidence):
    commitment = fields.String(allow_none=True)
    server_seed = fields.String(allow_none=True)
    sha256_of_seed = fields.String()


class OrderEvidence(Evidence):
    cards = fields.Integer()
    position = fields.Integer(metadata={"description": "Where the orders first differ."})
    recorded = _strings()
    recomputed = _strings()


class DealtEvidence(Evidence):
    cards_checked = fields.Integer()
    counted = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "Cards checked by where they were drawn from (deck, reshuffled,"
                       " dealer_draw)."})
    dealt = fields.Raw(metadata={"description": "The card or cards the event recorded."})
    expected = fields.Raw(metadata={"description": "The card or cards of the shuffle."})


class SettlementEvidence(Evidence):
    pending = fields.String()
    postings = fields.List(fields.Dict())
    returned = fields.List(fields.Dict(), metadata={
        "description": "When the table ended after the hand: what its end gave back from the"
                       " game (a Cassino pot's stakes), equal to `refund` recomputed."})
    recorded = fields.Raw()
    recomputed = fields.Raw()


class DoubleEntryEvidence(Evidence):
    postings = fields.Integer()
    net = fields.Integer(metadata={"description": "The sum of every account's flow: 0."})
    flows = fields.Dict(keys=fields.String(), values=fields.Integer())
    posting = fields.Raw()


class NoNegativeEvidence(Evidence):
    accounts = _strings()
    account = fields.String()
    balance = fields.Integer()


class RulesEvidence(Evidence):
    commands_decided_again = fields.Integer()
    rules_version = fields.Integer()
    recorded = fields.Raw()
    decided = fields.Raw()


def _check(name: str, evidence: type[Evidence]) -> type[Schema]:
    members: dict[str, fields.Field] = {
        "name": tag(name), "passed": fields.Boolean(required=True),
        "evidence": fields.Nested(evidence, required=True),
        "event": fields.Nested(EventRefSchema, allow_none=True, required=True, metadata=EVENT_REF)}
    title = "".join(part.capitalize() for part in name.replace(".", "_").split("_"))
    return Strict.from_dict(members, name=f"{title}Check")


class CheckSchema(Union):
    """One check of a hand, its evidence typed by its `name`."""

    tag = "name"
    alternatives: ClassVar[Alternatives] = {name: _check(name, evidence) for name, evidence in (
        ("integrity.chain", ChainEvidence), ("deck.commitment", CommitmentEvidence),
        ("deck.order", OrderEvidence), ("deck.dealt", DealtEvidence),
        ("money.settlement", SettlementEvidence), ("money.double_entry", DoubleEntryEvidence),
        ("money.no_negative", NoNegativeEvidence), ("rules", RulesEvidence))}


class VerificationSchema(Schema):
    hand_id = fields.String(required=True, metadata=HAND_ID)
    table_id = fields.String(required=True, metadata=TABLE_ID)
    game = fields.String(required=True)
    rules_version = fields.Integer(required=True, metadata={
        "description": "The rules version the hand was decided again with: the one its table's"
                       " TableCreated event recorded (1 when it recorded none).", "example": 1})
    settled = fields.Boolean(required=True)
    passed = fields.Boolean(required=True)
    checks = fields.List(fields.Nested(CheckSchema), required=True)


class CheckpointSchema(Schema):
    id = fields.Integer(required=True)
    recorded_at = fields.DateTime(required=True)
    txid = fields.Integer(required=True, metadata={"description": "Watermark: writing transaction."})
    position = fields.Integer(required=True, metadata={"description": "Watermark: position."})
    events = fields.Integer(required=True, metadata={"description": "Events covered."})
    root = fields.String(required=True, metadata={"description": "Merkle root (hex) of the log."})


class CheckpointListSchema(Schema):
    items = fields.List(fields.Nested(CheckpointSchema), required=True)
