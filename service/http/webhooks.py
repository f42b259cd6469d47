"""Webhook subscriptions: the operator's, each sent the log's events it asks for, signed."""

from __future__ import annotations

from typing import Any

from flask import current_app, g
from flask.views import MethodView

from service.application import webhook_subscriptions as subscriptions
from service.http import db
from service.http.auth import require, require_scope
from service.http.blueprint import Blueprint
from service.http.context import handle
from service.http.webhook_schemas import (
    DeliveryPageSchema,
    DeliveryQuerySchema,
    SubscriptionCreatedSchema,
    SubscriptionCreateSchema,
    SubscriptionListSchema,
    SubscriptionSchema,
    WebhookReplaySchema,
)

# A subscription sends the log's events to a receiver its creator names: what it sends is what
# the feed shows, so choosing it (subscribing, replaying) needs the feed's scope too.
FEED_SCOPE = "audit:read"

blp = Blueprint("webhooks", __name__, url_prefix="/v1/webhooks",
                description="Subscriptions that send the log's events to a URL, signed as Standard"
                            " Webhooks say, in the log's order, at least once.")


@blp.route("")
class Subscriptions(MethodView):
    @require("operator", scope="webhooks:admin")
    @blp.operation("createWebhook")
    @blp.arguments(SubscriptionCreateSchema)
    @blp.response(201, SubscriptionCreatedSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Subscribe a URL to events; the answer holds the signing secret, shown only once

        The subscription sends the events recorded from now on (replay it to send older ones).
        It sends what the log's feed shows, so an operator key needs `audit:read` too (403
        `missing_scope` naming it).
        The secret is stored only sealed; replayed with its `Idempotency-Key`, the request
        answers the same subscription and secret. 422 `url_not_allowed` when the URL's host
        does not resolve to public addresses only (or to ones in the ranges the operator
        allows).
        """
        require_scope(FEED_SCOPE)
        allow = current_app.config["BANCO"].webhook_allow_networks
        subscription, secret = handle(subscriptions.CreateWebhook(
            body["url"], body["event_types"], body["secret"], allow))
        g.issued_secret = True
        return {"subscription": subscription, "secret": secret}

    @require("operator", scope="webhooks:admin")
    @blp.operation("listWebhooks")
    @blp.response(200, SubscriptionListSchema)
    def get(self) -> dict[str, Any]:
        """Every webhook subscription, oldest first"""
        return {"items": subscriptions.list_all(db.conn())}


@blp.route("/<subscription_id>")
class Subscription(MethodView):
    @require("operator", scope="webhooks:admin")
    @blp.operation("getWebhook", 404)
    @blp.response(200, SubscriptionSchema)
    def get(self, subscription_id: str) -> dict[str, Any]:
        """A webhook subscription: where it stands, and why it paused if it did"""
        return subscriptions.load(db.conn(), subscription_id)

    @require("operator", scope="webhooks:admin")
    @blp.operation("deleteWebhook", 404)
    @blp.response(204)
    def delete(self, subscription_id: str) -> None:
        """Delete a subscription: nothing more is sent, and its secret and deliveries are gone

        A delivery under way when it is deleted may still reach the receiver once; nothing
        after it does.
        """
        handle(subscriptions.DeleteWebhook(subscription_id))


@blp.route("/<subscription_id>/pause")
class Pause(MethodView):
    @require("operator", scope="webhooks:admin")
    @blp.operation("pauseWebhook", 404)
    @blp.response(200, SubscriptionSchema)
    def post(self, subscription_id: str) -> dict[str, Any]:
        """Stop sending (a delivery in flight ends); resuming goes on from the same event"""
        return handle(subscriptions.PauseWebhook(subscription_id))


@blp.route("/<subscription_id>/resume")
class Resume(MethodView):
    @require("operator", scope="webhooks:admin")
    @blp.operation("resumeWebhook", 404)
    @blp.response(200, SubscriptionSchema)
    def post(self, subscription_id: str) -> dict[str, Any]:
        """Send again, at once, from the event it stopped at"""
        return handle(subscriptions.ResumeWebhook(subscription_id))


@blp.route("/<subscription_id>/replay")
class Replay(MethodView):
    @require("operator", scope="webhooks:admin")
    @blp.operation("replayWebhook", 404)
    @blp.arguments(WebhookReplaySchema)
    @blp.response(200, SubscriptionSchema)
    def post(self, body: dict[str, Any], subscription_id: str) -> dict[str, Any]:
        """Send again from the event at a position, and every event after it in the log's order

        422 `unknown_position` if no event has that position. Each event goes with the same
        `webhook-id` as before, so a receiver that keeps the ids it saw can tell it again. It
        sends what the log's feed shows, so an operator key needs `audit:read` too (403
        `missing_scope` naming it).
        """
        require_scope(FEED_SCOPE)
        return handle(subscriptions.ReplayWebhook(subscription_id, body["position"]))


@blp.route("/<subscription_id>/deliveries")
class Deliveries(MethodView):
    @require("operator", scope="webhooks:admin")
    @blp.operation("listWebhookDeliveries", 404)
    @blp.arguments(DeliveryQuerySchema, location="query")
    @blp.response(200, DeliveryPageSchema)
    def get(self, query: dict[str, Any], subscription_id: str) -> dict[str, Any]:
        """A subscription's deliveries, latest event first, each with its attempts"""
        items = subscriptions.deliveries(db.conn(), subscription_id, query["limit"] + 1,
                                         query["before"])
        more = len(items) > query["limit"]
        items = items[: query["limit"]]
        return {"items": items, "next_before": items[-1]["position"] if more else None}
