"""Response shapes of the audit endpoints: replays, verifications and checkpoints."""

from __future__ import annotations

from marshmallow import Schema, fields

from service.http.table_schemas import HAND_ID, TABLE_ID

EVENT_REF = {"description": "The event a failed check points at: its stream and version.",
             "example": {"stream": "table-tb_0123456789abcdef", "version": 12}}


class CauseSchema(Schema):
    actor = fields.String(allow_none=True, metadata={"example": "player:pl_0123456789abcdef"})
    request_id = fields.String(allow_none=True)
    causation_id = fields.String(allow_none=True)
    correlation_id = fields.String(allow_none=True)
    command = fields.Dict(allow_none=True, metadata={
        "description": "The command decided: {name, seat, payload, now} for a player's or a"
                       " timeout's, {name} alone for a worker's (`SettleHand`); the payload only"
                       " to auditors and to the seat that sent it.",
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


class ReplaySchema(Schema):
    hand_id = fields.String(required=True, metadata=HAND_ID)
    table_id = fields.String(required=True, metadata=TABLE_ID)
    game = fields.String(required=True)
    viewer = fields.Dict(required=True, metadata={"example": {"kind": "seat", "seat": 1}})
    steps = fields.List(fields.Nested(ReplayStepSchema), required=True)


class CheckSchema(Schema):
    name = fields.String(required=True, metadata={"example": "deck.commitment"})
    passed = fields.Boolean(required=True)
    evidence = fields.Dict(required=True, metadata={
        "description": (
            "What was compared (auditors only; others get the `reason` of a failure and the"
            " `summary` of what was counted, such as deck.dealt's \"54 cards dealt: 2 to choose"
            " the dealer, 52 from the deck\").")})
    event = fields.Dict(allow_none=True, required=True, metadata=EVENT_REF)


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
