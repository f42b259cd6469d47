"""Request and response schemas of the players, treasure and auditors resources."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.http.display_names import NAME, display_name

PLAYER_ID = {"example": "pl_3f9a1c2b7d4e5f60"}


class PlayerCreateSchema(Schema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=100), display_name],
                         metadata={"example": "Ada", "description": NAME})


class PlayerSchema(Schema):
    id = fields.String(required=True, metadata=PLAYER_ID)
    name = fields.String(required=True, allow_none=True, metadata={
        "description": "Null once the player was erased.", "example": "Ada"})
    erased = fields.Boolean(required=True, metadata={
        "description": "His personal data was erased (`POST /v1/players/{id}/erasure`): his"
                       " name can no longer be read, anywhere.", "example": False})
    created_at = fields.DateTime(required=True)


class PlayerListQuerySchema(Schema):
    cursor = fields.String(load_default=None, allow_none=True, metadata={
        "description": "The `next_cursor` of the page before: the list goes on after that player."})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class PlayerSummarySchema(PlayerSchema):
    balance = fields.Integer(required=True, metadata={"description": "The wallet's balance.",
                                                      "example": 100})


class PlayerPageSchema(Schema):
    items = fields.List(fields.Nested(PlayerSummarySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


class PlayerCreatedSchema(Schema):
    player = fields.Nested(PlayerSchema, required=True)
    token = fields.String(required=True, metadata={
        "description": "The player's bearer token. It is shown only in this response.",
        "example": "bnc_p3yHq...",
    })


class AuditorCreateSchema(Schema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=100), display_name],
                         metadata={"example": "External audit 2026", "description": NAME})


class AuditorCreatedSchema(Schema):
    id = fields.String(required=True, metadata={"example": "au_0c1d2e3f4a5b6c7d"})
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "Shown only in this response."})


class TransferSchema(Schema):
    amount = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=10**12),
                            metadata={"example": 100})
    reason = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata={
        "description": "The operator's note on the movement, kept in the ledger for good, in clear"
                       " (an erasure leaves it): write no personal data (a name) in it.",
        "example": "cash deposit at the desk"})


class PostingSchema(Schema):
    position = fields.Integer(required=True)
    from_ = fields.String(required=True, data_key="from", attribute="from",
                          metadata={"example": "house:issued"})
    to = fields.String(required=True, metadata={"example": "wallet:pl_3f9a1c2b7d4e5f60"})
    amount = fields.Integer(required=True)
    reason = fields.String(required=True)
    recorded_at = fields.DateTime(required=True)


class BalanceSchema(Schema):
    player_id = fields.String(required=True, metadata=PLAYER_ID)
    account = fields.String(required=True, metadata={"example": "wallet:pl_3f9a1c2b7d4e5f60"})
    balance = fields.Integer(required=True, metadata={"example": 100})
    as_of_position = fields.Integer(required=True, metadata={
        "description": "Position of the last posting applied to this account (0 when none)."})


class TransferResultSchema(Schema):
    posting = fields.Nested(PostingSchema, required=True)
    balance = fields.Nested(BalanceSchema, required=True)


class HistoryQuerySchema(Schema):
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    cursor = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0),
                            metadata={"description": "`next_cursor` of the previous page."})
    since = fields.AwareDateTime(load_default=None, allow_none=True, data_key="from", metadata={
        "description": "Postings recorded at or after this time (the bound is included)."})
    until = fields.AwareDateTime(load_default=None, allow_none=True, data_key="to", metadata={
        "description": "Postings recorded before this time (the bound is excluded), so that"
                       " one period's `to` is the next one's `from`."})
    reason = fields.String(load_default=None, allow_none=True)
    table = fields.String(load_default=None, allow_none=True)
    hand = fields.String(load_default=None, allow_none=True)

    @validates_schema
    def _in_order(self, data: dict[str, Any], **_: Any) -> None:
        # Reversed, the two would select nothing, which reads as a history with no postings.
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise ValidationError("from must not come after to", "from")


class HistoryRowSchema(Schema):
    position = fields.Integer(required=True)
    recorded_at = fields.DateTime(required=True)
    account = fields.String(required=True)
    amount = fields.Integer(required=True, metadata={"description": "Signed: negative when paid out."})
    balance_after = fields.Integer(required=True)
    reason = fields.String(required=True)
    counterparty = fields.String(required=True)
    table = fields.String(allow_none=True)
    hand = fields.String(allow_none=True)


class HistoryPageSchema(Schema):
    items = fields.List(fields.Nested(HistoryRowSchema), required=True)
    next_cursor = fields.Integer(allow_none=True, required=True, metadata={
        "description": "Pass as `cursor` for the next page; null on the last page."})


TOKEN_ID = {"description": "The token's id, which events name; never the token.",
            "example": "tk_5e6f7a8b9c0d1e2f"}


class TokenSchema(Schema):
    token_id = fields.String(required=True, metadata=TOKEN_ID)
    role = fields.String(required=True, metadata={"example": "player"})
    subject = fields.String(required=True, metadata={
        "description": "The player's or the auditor's id.", **PLAYER_ID})
    token = fields.String(required=True, metadata={
        "description": "The new bearer token. It is shown only in this response.",
        "example": "bnc_p3yHq..."})


class AuditorSchema(Schema):
    id = fields.String(required=True, metadata={"example": "au_0c1d2e3f4a5b6c7d"})
    name = fields.String(required=True, allow_none=True, metadata={
        "description": "Null for an auditor registered before names were kept."})
    created_at = fields.DateTime(required=True)
