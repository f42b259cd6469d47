"""The whole event log as the caller may see it: pages and Server-Sent Events.

A stream holds no database connection while it waits, and, behind gunicorn, no thread either: it
goes on from its worker's streamer (`service.streaming.relay`), as the tables' streams do. It is
woken by the same notices as they are (`service.application.notify`), for every table; events that
change no table (a deposit, a registration) reach it when it looks anyway, within a second.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
from flask import Response, request
from flask.views import MethodView

from events.model import Checkpoint
from service.application import feed, notify
from service.application.errors import Invalid
from service.http import contract, db, feed_schemas, sse, tickets
from service.http.auth import principal, require, while_valid
from service.http.blueprint import Blueprint
from service.http.context import store
from service.http.feed_schemas import FeedPageSchema, FeedQuerySchema, FeedStreamQuerySchema
from service.http.streams import handed_streams, listener, relay, waiters_busy, waits
from service.streaming.log_follower import LogFollower


class TicketedFeedStreamQuerySchema(FeedStreamQuerySchema):
    ticket = tickets.query_field()


blp = Blueprint("feed", __name__, url_prefix="/v1/feed",
                description="Every event of the log in its global order, as you may see it.")

# One Server-Sent Event as the stream sends it (OpenAPI 3.2 would call it the `itemSchema`).
SSE_EVENT = {"type": "object", "properties": {
    "id": {"type": "string", "description": "The event's position in the log."},
    "event": {"type": "string", "description": "The event's type."},
    "data": {"type": "string", "description": "The event as `GET /v1/feed` shows it, as JSON."}}}


@blp.route("")
class Feed(MethodView):
    @require("operator", "auditor", scope="audit:read")
    @blp.operation("readFeed")
    @blp.arguments(FeedQuerySchema, location="query")
    @blp.response(200, FeedPageSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """The log's events after position `after`, in its global order, as you may see them"""
        def page_on(conn: psycopg.Connection) -> feed.Page:
            return feed.after(conn, store(), principal(), query["after"], query["limit"],
                              feed_schemas.types(query))

        try:
            page = page_on(db.reading())  # the replica's, when one may serve the caller
        except Invalid:
            primary = db.primary_instead()  # a replica behind may not have `after` yet
            if primary is None:
                raise
            page = page_on(primary)
        return {"items": page.items, "next_after": page.next_after}


@blp.route("/stream")
class FeedStream(MethodView):
    @tickets.accepted
    @require("operator", "auditor", scope="audit:read")
    @blp.operation("streamFeed", headers=(contract.LAST_EVENT_ID,))
    @blp.arguments(TicketedFeedStreamQuerySchema, location="query")
    @blp.response(200, SSE_EVENT, description="Server-Sent Events: each event of the log as"
                  " `event: <type>`, its `id:` its position, its data as `GET /v1/feed` shows it",
                  content_type="text/event-stream")
    def get(self, query: dict[str, Any]) -> Response:
        """The log's events as Server-Sent Events, resumable with Last-Event-ID

        The stream starts after the position `Last-Event-ID` names, even when `after` is given
        too (an EventSource reconnects to the URL it opened, with the id it last received);
        else after `after`, else from the beginning.

        A browser's EventSource, which cannot send `Authorization`, opens it with a stream
        ticket instead (`?ticket=`, from `POST /v1/stream-tickets`).
        """
        named = feed_schemas.types(query)
        types = None if named is None else feed.known_types(named)
        start = Checkpoint()
        if "after" in query:
            start = feed.place(db.conn(), store(), query["after"])
        # The header wins, as on a table's stream: an EventSource reconnects to the URL it
        # opened, `after` and all, with the id it last received.
        resumed = _resumed(request.headers.get("Last-Event-ID", ""))
        if resumed is not None:
            start = resumed
        take = sse.offered()
        give_back = (waits() if take is None else handed_streams()).take()
        if give_back is None:
            return waiters_busy()
        follower = LogFollower(db.pool(), store(), principal(), start, types)
        if take is None:
            return sse.response(_threaded(listener(), follower, while_valid(query["timeout"])),
                                give_back)
        return sse.response(*sse.handed_over(relay(), take, follower,
                                             while_valid(query["timeout"]),
                                             lambda: None, give_back), closes=True)


def _resumed(last: str) -> Checkpoint | None:
    """After the event `Last-Event-ID` names, or None for an id that names none (as on a
    table's stream). Only ASCII digits are read, as many as a position has."""
    if last.isascii() and last.isdigit() and len(last) <= 18:
        return store().checkpoint_at(int(last), conn=db.conn())
    return None


def _threaded(notices: notify.Listener, follower: LogFollower, timeout: float) -> Iterator[bytes]:
    """The stream from the request's thread, on its own subscription."""
    # Subscribed before the first read: a change committed between a read and the wait that
    # follows it still wakes the wait.
    waiter = notices.subscribe(notify.EVERY_TABLE, who=follower.who.key)
    try:
        yield from sse.threaded(follower, waiter, timeout)
    finally:
        notices.unsubscribe(waiter)
