"""Request and response schemas of the webhook subscriptions."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from marshmallow import Schema, ValidationError, fields, validate

SUBSCRIPTION_ID = {"example": "wh_3f9a1c2b7d4e5f60"}
EVENT_TYPES = ("Types of the log (`TreasurePosted`, `TableCreated`, `game.CardDealt`, ...); a"
               " trailing `*` matches a prefix (`game.*`), `*` alone every event.")


# A host as `urlsplit` gives it: a name's labels (letters of any script, digits, `-`, `_`), or
# an IPv6 address without its brackets.
_HOST = re.compile(r"[\w-]+(?:\.[\w-]+)*\.?|[0-9a-f.]*:[0-9a-f:.]*")
NOT_A_URL = "Not a valid URL."


def webhook_url(url: str) -> None:
    """An absolute http:// or https:// URL with a host, a port if any that is one, and no space.

    Which hosts it may name is the address check's (`url_not_allowed`): it reads every spelling
    of an address a resolver reads (`127.1`, `0x7f.1`, `[::ffff:127.0.0.1]`), which marshmallow's
    URL pattern refuses as no URL at all, so this refuses none of them first."""
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:  # a port that is not one, brackets that hold no IPv6 address
        raise ValidationError(NOT_A_URL) from None
    if (parts.scheme not in ("http", "https") or not parts.hostname or not port_ok
            or not _HOST.fullmatch(parts.hostname) or any(c.isspace() or not c.isprintable()
                                                          for c in url)):
        raise ValidationError(NOT_A_URL)


class SubscriptionCreateSchema(Schema):
    url = fields.String(required=True, validate=[validate.Length(min=1, max=500), webhook_url],
                        metadata={"format": "uri",
        "description": "Where each event is POSTed: http:// or https://, to a host that resolves"
                       " to public addresses only (or to ones in the ranges the operator allows),"
                       " checked again at every connection.",
        "example": "https://example.com/banco-hooks"})
    event_types = fields.List(fields.String(validate=validate.Length(min=1, max=50)),
                              required=True, validate=validate.Length(min=1, max=20),
                              metadata={"description": EVENT_TYPES, "example": ["TreasurePosted"]})
    secret = fields.String(load_default=None, validate=validate.Length(max=100), metadata={
        "description": "The signing secret, `whsec_` then 24 to 64 bytes in base64; one is made"
                       " when absent. Never shown again after this request's answer."})


class WebhookCursorSchema(Schema):
    txid = fields.Integer(required=True, metadata={"description": "Writing transaction of the"
                                                                  " last event sent or skipped."})
    position = fields.Integer(required=True, metadata={"description": "Its position (0: none)."})


class SubscriptionSchema(Schema):
    id = fields.String(required=True, metadata=SUBSCRIPTION_ID)
    url = fields.String(required=True)
    event_types = fields.List(fields.String(), required=True)
    status = fields.String(required=True, validate=validate.OneOf(["active", "paused"]))
    paused_reason = fields.String(required=True, allow_none=True, metadata={
        "description": "Why it paused: the operator, or the failed attempts and the last error."})
    cursor = fields.Nested(WebhookCursorSchema, required=True)
    failures = fields.Integer(required=True, metadata={
        "description": "Failed attempts in a row at the event after the cursor."})
    next_attempt_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "When the next try is due (null while paused)."})
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)


class SubscriptionCreatedSchema(Schema):
    subscription = fields.Nested(SubscriptionSchema, required=True)
    secret = fields.String(required=True, metadata={
        "description": "The signing secret: shown only in this answer.",
        "example": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"})


class SubscriptionListSchema(Schema):
    items = fields.List(fields.Nested(SubscriptionSchema), required=True)


class WebhookReplaySchema(Schema):
    position = fields.Integer(required=True, strict=True, validate=validate.Range(min=0), metadata={
        "description": "The event to send again from (0: the log's beginning); the events after"
                       " it follow in the log's order."})


class WebhookAttemptSchema(Schema):
    attempt = fields.Integer(required=True)
    attempted_at = fields.DateTime(required=True)
    status_code = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The receiver's status; null when none came (refused, timed out)."})
    error = fields.String(required=True, allow_none=True)
    duration_ms = fields.Integer(required=True)


class WebhookDeliverySchema(Schema):
    position = fields.Integer(required=True)
    webhook_id = fields.String(required=True, metadata={"description": "Its `webhook-id`, the"
                                                        " same on every attempt."})
    event_type = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["pending", "delivered"]))
    attempt_count = fields.Integer(required=True)
    created_at = fields.DateTime(required=True)
    delivered_at = fields.DateTime(required=True, allow_none=True)
    attempts = fields.List(fields.Nested(WebhookAttemptSchema), required=True)


class DeliveryQuerySchema(Schema):
    before = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=1),
                            metadata={"description": "Only deliveries of events before this"
                                                     " position: the `next_before` of a page."})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class DeliveryPageSchema(Schema):
    items = fields.List(fields.Nested(WebhookDeliverySchema), required=True)
    next_before = fields.Integer(required=True, allow_none=True)
