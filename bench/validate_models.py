"""The catalog's event payloads as pydantic models and marshmallow schemas, for bench/validate.py.

Each pydantic model states what its msgspec Struct in events/catalog.py states: strict types, no
unknown keys, the same bounds and patterns. The marshmallow schemas are those the catalog had
before its Structs, as loose as they were (a non-strict integer or float field takes "5").
"""

from __future__ import annotations

from typing import Annotated, Any

from marshmallow import Schema, fields, validate
from pydantic import BaseModel, ConfigDict, Field

from events.catalog import ACCOUNT_PATTERN

Account = Annotated[str, Field(pattern=ACCOUNT_PATTERN)]
Json = dict[str, Any]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class TreasurePosted(Model):
    from_: Annotated[Account, Field(alias="from")]
    to: Account
    amount: Annotated[int, Field(ge=1)]
    reason: Annotated[str, Field(min_length=1, max_length=200)]
    table: str | None = None
    hand: str | None = None


class PlayerRegistered(Model):
    player_id: str
    name_enc: Annotated[str, Field(min_length=1, max_length=1000)]


class PlayerErased(Model):
    player_id: str
    actor: str


class GameEvent(Model):
    hand: str
    data: Json
    visible_to: list[int] | None = None
    public: Json | None = None


class TableCreated(Model):
    table_id: str
    game: str
    options: Json
    created_by: str
    rules_version: Annotated[int, Field(ge=1)] | None = None


class PlayerSeated(Model):
    seat: int
    player_id: str
    buy_in: Annotated[int, Field(ge=0)]
    age: int | None = None
    seed: str | None = None


class PlayerLeft(Model):
    seat: int
    player_id: str
    cash_out: Annotated[int, Field(ge=0)]


class HandBegan(Model):
    hand_id: str
    number: int
    seats: list[Json]
    commitment: str


class HandSettled(Model):
    hand_id: str
    postings: list[Json]


class SeedRevealed(Model):
    hand_id: str
    server_seed: str
    player_seeds: list[str]
    auditors_only: bool


class TableEnded(Model):
    reason: str


class DeadlineSet(Model):
    hand: str
    seat: int
    waiting_for: str
    deadline: Annotated[float, Field(allow_inf_nan=False)]


class SettlementClaimed(Model):
    hand_id: str
    table_id: str


MODELS: dict[str, type[Model]] = {
    "TreasurePosted": TreasurePosted, "PlayerRegistered": PlayerRegistered,
    "PlayerErased": PlayerErased, "TableCreated": TableCreated, "PlayerSeated": PlayerSeated,
    "PlayerLeft": PlayerLeft,
    "HandBegan": HandBegan, "HandSettled": HandSettled, "SeedRevealed": SeedRevealed,
    "TableEnded": TableEnded, "DeadlineSet": DeadlineSet, "SettlementClaimed": SettlementClaimed,
    "GameEvent": GameEvent,
}


# marshmallow, as the catalog had them

ACCOUNT = validate.Regexp(
    ACCOUNT_PATTERN,
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
    name_enc = fields.String(required=True, validate=validate.Length(min=1, max=1000))


class PlayerErasedSchema(Schema):
    """A player's key was destroyed: his sealed personal data can no longer be read."""

    player_id = fields.String(required=True)
    actor = fields.String(required=True)


class AuditorRegisteredSchema(Schema):
    """An auditor was given read access (his tokens' events follow in his stream)."""

    auditor_id = fields.String(required=True)
    name = fields.String(required=True, validate=validate.Length(min=1, max=100))


class TokenChangedSchema(Schema):
    """A bearer token issued or revoked: whose, its id and who did it; never the token nor its hash."""

    role = fields.String(required=True, validate=validate.OneOf(["player", "auditor"]))
    subject = fields.String(required=True)
    token_id = fields.String(required=True)
    actor = fields.String(required=True)


class OperatorKeyCreatedSchema(Schema):
    key_id = fields.String(required=True)
    name = fields.String(required=True, validate=validate.Length(min=1, max=100))
    scopes = fields.List(fields.String(), required=True)
    expires_at = fields.String(required=True, allow_none=True)
    actor = fields.String(required=True)


class OperatorKeyChangedSchema(Schema):
    key_id = fields.String(required=True)
    actor = fields.String(required=True)


NOTE = validate.Length(min=1, max=2000)
ROLE = validate.OneOf(["player", "auditor", "operator"])


class DisputeOpenedSchema(Schema):
    dispute_id = fields.String(required=True)
    hand_id = fields.String(required=True)
    table_id = fields.String(required=True)
    reason = fields.String(required=True, validate=NOTE)
    opened_by = fields.String(required=True, validate=ROLE)
    actor = fields.String(required=True)
    players = fields.List(fields.String(), required=True)


class DisputeEvidenceAttachedSchema(Schema):
    dispute_id = fields.String(required=True)
    hand_id = fields.String(required=True)
    note = fields.String(required=True, validate=NOTE)
    attached_by = fields.String(required=True, validate=ROLE)
    actor = fields.String(required=True)


class DisputeReadjudicatedSchema(Schema):
    dispute_id = fields.String(required=True)
    hand_id = fields.String(required=True)
    rules_version = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    hand_rules_version = fields.Integer(required=True, strict=True,
                                        validate=validate.Range(min=1))
    matches = fields.Boolean(required=True)
    events_differing = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    postings_differing = fields.Integer(required=True, strict=True,
                                        validate=validate.Range(min=0))
    refused = fields.String(required=True, allow_none=True)
    postings = fields.List(fields.Dict(), required=True)
    actor = fields.String(required=True)


class DisputeResolvedSchema(Schema):
    dispute_id = fields.String(required=True)
    hand_id = fields.String(required=True)
    table_id = fields.String(required=True)
    note = fields.String(required=True, validate=NOTE)
    postings = fields.List(fields.Dict(), required=True)
    actor = fields.String(required=True)


class DisputeRejectedSchema(Schema):
    dispute_id = fields.String(required=True)
    hand_id = fields.String(required=True)
    note = fields.String(required=True, validate=NOTE)
    actor = fields.String(required=True)


class GameEventSchema(Schema):
    """A rules engine's event, as recorded: who may read `data`, and what everyone else gets."""

    hand = fields.String(required=True)
    data = fields.Dict(required=True)
    visible_to = fields.List(fields.Integer(), allow_none=True, load_default=None)
    public = fields.Dict(allow_none=True, load_default=None)


class TableCreatedSchema(Schema):
    table_id = fields.String(required=True)
    game = fields.String(required=True)
    options = fields.Dict(required=True)
    created_by = fields.String(required=True)
    rules_version = fields.Integer(allow_none=True, load_default=None, strict=True,
                                   validate=validate.Range(min=1))


class PlayerSeatedSchema(Schema):
    seat = fields.Integer(required=True, strict=True)
    player_id = fields.String(required=True)
    buy_in = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    age = fields.Integer(allow_none=True, load_default=None)
    seed = fields.String(allow_none=True, load_default=None)


class PlayerLeftSchema(Schema):
    seat = fields.Integer(required=True, strict=True)
    player_id = fields.String(required=True)
    cash_out = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))


class HandBeganSchema(Schema):
    hand_id = fields.String(required=True)
    number = fields.Integer(required=True, strict=True)
    seats = fields.List(fields.Dict(), required=True)
    commitment = fields.String(required=True)


class HandSettledSchema(Schema):
    hand_id = fields.String(required=True)
    postings = fields.List(fields.Dict(), required=True)


class SeedRevealedSchema(Schema):
    hand_id = fields.String(required=True)
    server_seed = fields.String(required=True)
    player_seeds = fields.List(fields.String(), required=True)
    auditors_only = fields.Boolean(required=True)


class TableEndedSchema(Schema):
    reason = fields.String(required=True)


class DeadlineSetSchema(Schema):
    """The turn in play and when it times out (seconds since the epoch)."""

    hand = fields.String(required=True)
    seat = fields.Integer(required=True, strict=True)
    waiting_for = fields.String(required=True)
    deadline = fields.Float(required=True)


class SettlementClaimedSchema(Schema):
    """The one settlement of a hand: its stream exists once, so a second settlement conflicts."""

    hand_id = fields.String(required=True)
    table_id = fields.String(required=True)


SCHEMAS: dict[str, Schema] = {
    "TreasurePosted": TreasurePostedSchema(), "PlayerRegistered": PlayerRegisteredSchema(),
    "PlayerErased": PlayerErasedSchema(),
    "AuditorRegistered": AuditorRegisteredSchema(), "TokenIssued": TokenChangedSchema(),
    "TokenRevoked": TokenChangedSchema(),
    "OperatorKeyCreated": OperatorKeyCreatedSchema(),
    "OperatorKeyRotated": OperatorKeyChangedSchema(), "OperatorKeyRevoked": OperatorKeyChangedSchema(),
    "DisputeOpened": DisputeOpenedSchema(),
    "DisputeEvidenceAttached": DisputeEvidenceAttachedSchema(),
    "DisputeReadjudicated": DisputeReadjudicatedSchema(),
    "DisputeResolved": DisputeResolvedSchema(), "DisputeRejected": DisputeRejectedSchema(),
    "TableCreated": TableCreatedSchema(), "PlayerSeated": PlayerSeatedSchema(),
    "PlayerLeft": PlayerLeftSchema(), "HandBegan": HandBeganSchema(),
    "HandSettled": HandSettledSchema(), "SeedRevealed": SeedRevealedSchema(),
    "TableEnded": TableEndedSchema(), "DeadlineSet": DeadlineSetSchema(),
    "SettlementClaimed": SettlementClaimedSchema(), "GameEvent": GameEventSchema(),
}
