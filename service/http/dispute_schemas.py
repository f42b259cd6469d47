"""Request and response schemas of disputes about a hand."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.application.disputes import AMOUNT_MAX, HOUSE, NOTE_MAX
from service.http.paging import CursorOrFormerName

DISPUTE_ID = {"example": "dp_3f9a1c2b7d4e5f60"}
STATUSES = ("open", "resolved", "rejected")
ROLES = ("player", "auditor", "operator")


def _note(description: str) -> fields.String:
    return fields.String(required=True, validate=validate.Length(min=1, max=NOTE_MAX),
                         metadata={"description": description})


class DisputeOpenSchema(Schema):
    hand_id = fields.String(required=True, validate=validate.Length(min=1, max=100),
                            metadata={"example": "hd_5d1f0a9b2c3e4f67"})
    reason = _note("Why the hand is disputed (a player disputes only a hand he played).")


class EvidenceAttachSchema(Schema):
    note = _note("What is attached: a description, a reference, a transcript's excerpt.")


class ReadjudicateSchema(Schema):
    rules_version = fields.Integer(load_default=None, allow_none=True, strict=True,
                                   validate=validate.Range(min=1, max=10_000), metadata={
        "description": "The rules version to replay the hand under: the hand's own when absent,"
                       " or a newer one the game serves (GET /v1/games/{game}).", "example": 2})


class CorrectionSchema(Schema):
    from_ = fields.String(required=True, data_key="from", validate=validate.Length(min=1, max=100),
                          metadata={"description": f"Who pays: a player of the hand (his wallet)"
                                                   f" or `{HOUSE}`.", "example": HOUSE})
    to = fields.String(required=True, validate=validate.Length(min=1, max=100), metadata={
        "description": f"Who is paid: a player of the hand (his wallet) or `{HOUSE}`.",
        "example": "pl_0123456789abcdef"})
    amount = fields.Integer(required=True, strict=True,
                            validate=validate.Range(min=1, max=AMOUNT_MAX),
                            metadata={"example": 10})


class ResolutionSchema(Schema):
    note = _note("The decision, as the dispute keeps it.")
    corrections = fields.List(fields.Nested(CorrectionSchema), required=True,
                              validate=validate.Length(min=1, max=50), metadata={
        "description": "The corrective postings, made in order, all or none: one that would"
                       " overdraw a wallet refuses the whole resolution (422"
                       " `correction_overdraws`)."})


class RejectionSchema(Schema):
    note = _note("Why nothing is paid.")


class DisputeListQuerySchema(CursorOrFormerName):
    FORMER = "before"

    hand_id = fields.String(load_default=None, validate=validate.Length(max=100))
    status = fields.String(load_default=None, validate=validate.OneOf(STATUSES))
    cursor = fields.Integer(load_default=None, allow_none=True,
                            validate=validate.Range(min=1, max=2**63 - 1), metadata={
        "description": "The `next_cursor` of the page before: the list goes on with older"
                       " disputes. Not with `before`."})
    before = fields.Integer(load_default=None, allow_none=True,
                            validate=validate.Range(min=1, max=2**63 - 1), metadata={
        "description": "The same as `cursor`, kept for the clients that page with it. Not with"
                       " `cursor`."})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class DisputePostingSchema(Schema):
    from_ = fields.String(required=True, data_key="from", attribute="from",
                          metadata={"example": "house:issued"})
    to = fields.String(required=True, metadata={"example": "wallet:pl_0123456789abcdef"})
    amount = fields.Integer(required=True)
    reason = fields.String(required=True, metadata={
        "example": "dispute_correction:dp_3f9a1c2b7d4e5f60"})


class CorrectionPostedSchema(DisputePostingSchema):
    position = fields.Integer(required=True, metadata={
        "description": "The posting's place in the log (GET /v1/feed)."})


class PostingDifferenceSchema(Schema):
    index = fields.Integer(required=True, metadata={
        "description": "The posting's place among the hand's postings, in order."})
    recorded = fields.Nested(DisputePostingSchema, required=True, allow_none=True)
    replayed = fields.Nested(DisputePostingSchema, required=True, allow_none=True)


class EvidenceShownSchema(Schema):
    note = fields.String(required=True)
    attached_by = fields.String(required=True, validate=validate.OneOf(ROLES))
    attached_at = fields.DateTime(required=True)


class ReadjudicationSummarySchema(Schema):
    rules_version = fields.Integer(required=True)
    hand_rules_version = fields.Integer(required=True)
    matches = fields.Boolean(required=True, metadata={
        "description": "Whether the replay gives exactly what was recorded."})
    events_differing = fields.Integer(required=True)
    postings_differing = fields.Integer(required=True)
    refused = fields.String(required=True, allow_none=True, metadata={
        "description": "The code of the recorded command the version refuses, if one: the replay"
                       " ends there.", "example": "bet_out_of_range"})
    postings = fields.List(fields.Nested(PostingDifferenceSchema), required=True)


class ReadjudicationListedSchema(ReadjudicationSummarySchema):
    readjudicated_at = fields.DateTime(required=True)


class ResolutionShownSchema(Schema):
    note = fields.String(required=True)
    at = fields.DateTime(required=True)


class DisputeSchema(Schema):
    id = fields.String(required=True, metadata=DISPUTE_ID)
    hand_id = fields.String(required=True)
    table_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    reason = fields.String(required=True)
    opened_by = fields.String(required=True, validate=validate.OneOf(ROLES))
    players = fields.List(fields.String(), required=True, metadata={
        "description": "The hand's players: those of them who may read the dispute."})
    opened_at = fields.DateTime(required=True)
    closed_at = fields.DateTime(required=True, allow_none=True)
    evidence = fields.List(fields.Nested(EvidenceShownSchema), required=True)
    readjudications = fields.List(fields.Nested(ReadjudicationListedSchema), required=True)
    resolution = fields.Nested(ResolutionShownSchema, required=True, allow_none=True, metadata={
        "description": "The decision that closed it (resolved or rejected), null while open."})
    corrections = fields.List(fields.Nested(CorrectionPostedSchema), required=True, metadata={
        "description": "The corrective postings its resolution made, each in the log."})


class DisputePageSchema(Schema):
    items = fields.List(fields.Nested(DisputeSchema), required=True)
    next_cursor = fields.Integer(required=True, allow_none=True)


class HandDisputeSchema(Schema):
    id = fields.String(required=True, metadata=DISPUTE_ID)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    opened_at = fields.DateTime(required=True)
    closed_at = fields.DateTime(required=True, allow_none=True)
    corrections = fields.List(fields.Nested(CorrectionPostedSchema), required=True)


class ShownEventSchema(Schema):
    type = fields.String(required=True, metadata={"example": "CardDealt"})
    data = fields.Dict(required=True, metadata={
        "description": "The engine's event as you may see it (a hidden card is left out)."})


class EventDifferenceSchema(Schema):
    index = fields.Integer(required=True, metadata={
        "description": "The event's place among the hand's engine events, in order."})
    recorded = fields.Nested(ShownEventSchema, required=True, allow_none=True)
    replayed = fields.Nested(ShownEventSchema, required=True, allow_none=True)


class RefusedCommandSchema(Schema):
    index = fields.Integer(required=True, metadata={
        "description": "How many engine events the replay gave before the refusal."})
    code = fields.String(required=True)
    detail = fields.String(required=True)


class NetDifferenceSchema(Schema):
    account = fields.String(required=True)
    recorded = fields.Integer(required=True, metadata={
        "description": "What the account's differing postings moved as recorded."})
    replayed = fields.Integer(required=True)
    difference = fields.Integer(required=True, metadata={
        "description": "What the replay would have moved more (negative: less)."})


class ReadjudicationSchema(ReadjudicationSummarySchema):
    hand_id = fields.String(required=True)
    events_compared = fields.Integer(required=True)
    refused_command = fields.Nested(RefusedCommandSchema, required=True, allow_none=True)
    events = fields.List(fields.Nested(EventDifferenceSchema), required=True)
    net = fields.List(fields.Nested(NetDifferenceSchema), required=True, metadata={
        "description": "Per account, what the differing postings move, recorded and replayed."})
