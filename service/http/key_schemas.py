"""Request and response schemas of the operator's scoped keys."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.application.operator_keys import NAME_MAX
from service.application.scopes import SCOPES
from service.http.display_names import NAME, display_name

KEY_ID = {"example": "ok_3f9a1c2b7d4e5f60"}
SCOPE_LIST = ("What the key may do: each operator route needs one scope (its operation says"
              " which, `x-banco-scope`); a key grants only scopes it holds.")


class KeyCreateSchema(Schema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=NAME_MAX), display_name],
                         metadata={"description": "Whose or what the key is for, as the list shows"
                                                  f" it. {NAME}", "example": "cashier desk 2"})
    scopes = fields.List(fields.String(validate=validate.OneOf(list(SCOPES))), required=True,
                         validate=validate.Length(min=1, max=len(SCOPES)),
                         metadata={"description": SCOPE_LIST,
                                   "example": ["players:read", "treasure:write"]})
    expires_at = fields.AwareDateTime(load_default=None, allow_none=True, metadata={
        "description": "When the key stops working, with its offset (never when absent): in"
                       " the future, at most ten years away.", "example": "2027-01-31T00:00:00Z"})


class KeySchema(Schema):
    id = fields.String(required=True, metadata=KEY_ID)
    name = fields.String(required=True)
    scopes = fields.List(fields.String(), required=True)
    status = fields.String(required=True, validate=validate.OneOf(["active", "expired", "revoked"]))
    expires_at = fields.DateTime(required=True, allow_none=True)
    created_at = fields.DateTime(required=True)
    rotated_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "When its secret was last replaced (null: never)."})
    revoked_at = fields.DateTime(required=True, allow_none=True)


class KeyIssuedSchema(Schema):
    key = fields.Nested(KeySchema, required=True)
    secret = fields.String(required=True, metadata={
        "description": "The key, to send as `Authorization: Bearer <secret>`: shown only in this"
                       " answer (Banco keeps only its hash).",
        "example": "bok_Vb2mN0yJ5qD7wXcRzLk4sT1hA9eUfP3gI6oB8nM2vC0"})


class ScopeSchema(Schema):
    name = fields.String(required=True, metadata={"example": "treasure:write"})
    description = fields.String(required=True)


class KeyListSchema(Schema):
    items = fields.List(fields.Nested(KeySchema), required=True, metadata={
        "description": "Every key, live or not, oldest first (the bootstrap key is not listed)."})
    scopes = fields.List(fields.Nested(ScopeSchema), required=True, metadata={
        "description": "Every scope a key may hold, and what it opens."})
