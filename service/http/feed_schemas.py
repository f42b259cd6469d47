"""Request and response schemas of the log's feed and of balances at a point of the log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from service.application.balances_at import Point
from service.application.feed import LATEST, Position
from service.http.blueprint import CommaSeparated


def _types() -> CommaSeparated:
    # A string rather than an array: a comma-separated list, split by `types`.
    return CommaSeparated(load_default=None, allow_none=True, metadata={
        "description": "Only events of these types, comma-separated (`TreasurePosted,HandBegan`;"
                       " a game's events are `game.<Type>`); a trailing `*` stands for any rest"
                       " (`game.*`: every game's events). An unknown type is a 422."})


def types(query: dict[str, Any]) -> list[str] | None:
    """The event types `query` names, or None when it names none."""
    given = query.get("types")
    return None if given is None else [t for t in given.split(",") if t]


class AfterField(fields.Field):
    """A position of the log, or `latest`."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Position:
        text = str(value)
        if text == LATEST:
            return LATEST
        if text.isascii() and text.isdigit() and len(text) <= 18:
            return int(text)
        raise ValidationError("Not a position (an integer from 0) nor `latest`.")


AFTER_SCHEMA = {"oneOf": [{"type": "integer", "minimum": 0},
                          {"type": "string", "enum": [LATEST]}]}


class FeedQuerySchema(Schema):
    after = AfterField(load_default=0, metadata={
        **AFTER_SCHEMA,
        "description": "The position of the last event you have (`next_after`; 0: from the"
                       " beginning; `latest`: from now on, an empty page whose `next_after` is"
                       " the log's last event). A position no event holds is a 422"
                       " unknown_position."})
    limit = fields.Integer(load_default=200, validate=validate.Range(min=1, max=1000))
    types = _types()


class FeedStreamQuerySchema(Schema):
    # No default: a field whose default is null is documented `nullable`, which `oneOf` takes
    # no `type` beside.
    after = AfterField(metadata={
        **AFTER_SCHEMA,
        "description": "As in `GET /v1/feed`, when no `Last-Event-ID` is sent: `latest` sends"
                       " only the events committed from now on."})
    types = _types()
    timeout = fields.Float(load_default=60, validate=validate.Range(min=0.1, max=600),
                           metadata={"description": "Seconds before the server ends the stream"
                                     " (sooner if the operator key expires, or the token or key"
                                     " is revoked). A page of events whose reading began before"
                                     " then is sent first."})


class FeedEventSchema(Schema):
    position = fields.Integer(required=True, metadata={
        "description": "The event's position in the log: pass it as `after` to go on from it."})
    stream = fields.String(required=True, metadata={"example": "table-tb_3f9a1c2b7d4e5f60"})
    version = fields.Integer(required=True, metadata={"description": "Its version in its stream."})
    type = fields.String(required=True, metadata={"example": "TreasurePosted"})
    recorded_at = fields.String(required=True)
    hand = fields.String(allow_none=True)
    data = fields.Dict(required=True, metadata={
        "description": "As you may see it: hidden cards only to auditors; a registration shows"
                       " the player's id, not his name."})


class FeedPageSchema(Schema):
    items = fields.List(fields.Nested(FeedEventSchema), required=True)
    next_after = fields.Integer(required=True, metadata={
        "description": "The `after` to ask next: the last item's position, or this request's"
                       " `after` when the page is empty (nothing more has committed yet)."})


class PointField(fields.Field):
    """A position (digits) or an ISO 8601 time with its offset."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Point:
        text = str(value)
        if text.isascii() and text.isdigit() and len(text) <= 18:
            return Point(position=int(text))
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValidationError("Not a position nor an ISO 8601 time.") from None
        if moment.tzinfo is None:
            raise ValidationError("A time needs its UTC offset (2026-11-30T23:59:59Z).")
        return Point(time=moment)


class BalancesQuerySchema(Schema):
    as_of = PointField(required=True, metadata={
        "description": "A position of the log (every posting at or before it), or an ISO 8601"
                       " time with its offset (every posting recorded at or before it).",
        "example": "2026-11-30T23:59:59Z", "type": "string"})
    limit = fields.Integer(load_default=500, validate=validate.Range(min=1, max=5000))
    cursor = fields.String(load_default=None, allow_none=True, metadata={
        "description": "The `next_cursor` of the page before: the accounts after that one."})


class AccountBalanceSchema(Schema):
    account = fields.String(required=True, metadata={"example": "wallet:pl_3f9a1c2b7d4e5f60"})
    balance = fields.Integer(required=True, metadata={"example": 100})
    last_position = fields.Integer(required=True, metadata={
        "description": "The position of the account's last posting at or before the point."})


class BalancesPageSchema(Schema):
    as_of = fields.Dict(required=True, metadata={
        "description": "The point asked for: `{\"position\": n}` or `{\"time\": t}`."})
    items = fields.List(fields.Nested(AccountBalanceSchema), required=True, metadata={
        "description": "Every account with a posting at or before the point, by name; over all"
                       " pages they sum to zero (`house:issued` alone is negative)."})
    next_cursor = fields.String(allow_none=True, required=True)
