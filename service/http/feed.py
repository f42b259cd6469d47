"""The whole event log as the caller may see it: pages and Server-Sent Events.

A stream holds no database connection while it waits, and, behind gunicorn, no thread either: it
goes on from its worker's streamer (`service.http.relay`), as the tables' streams do. It is
woken by the same notices as they are (`service.application.notify`), for every table; events that
change no table (a deposit, a registration) reach it when it looks anyway, within a second.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterator, Sequence
from typing import Any

import orjson
import psycopg
from flask import Response, request
from flask.views import MethodView
from psycopg_pool import ConnectionPool

from events.model import Checkpoint
from events.postgres import PostgresEventStore
from service.application import feed, notify
from service.application.errors import Invalid
from service.application.principal import Principal
from service.http import contract, db, feed_schemas, sse
from service.http.auth import principal, require
from service.http.blueprint import Blueprint
from service.http.context import store
from service.http.feed_schemas import FeedPageSchema, FeedQuerySchema, FeedStreamQuerySchema
from service.http.streams import handed_streams, listener, relay, waiters_busy, waits

blp = Blueprint("feed", __name__, url_prefix="/v1/feed",
                description="Every event of the log in its global order, as you may see it.")

BATCH = 500  # events read, and sent, at a time
# One Server-Sent Event as the stream sends it (OpenAPI 3.2 would call it the `itemSchema`).
SSE_EVENT = {"type": "object", "properties": {
    "id": {"type": "string", "description": "The event's position in the log."},
    "event": {"type": "string", "description": "The event's type."},
    "data": {"type": "string", "description": "The event as `GET /v1/feed` shows it, as JSON."}}}


@blp.route("")
class Feed(MethodView):
    @require("operator", "auditor")
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
    @require("operator", "auditor")
    @blp.operation("streamFeed", headers=(contract.LAST_EVENT_ID,))
    @blp.arguments(FeedStreamQuerySchema, location="query")
    @blp.response(200, SSE_EVENT, description="Server-Sent Events: each event of the log as"
                  " `event: <type>`, its `id:` its position, its data as `GET /v1/feed` shows it",
                  content_type="text/event-stream")
    def get(self, query: dict[str, Any]) -> Response:
        """The log's events as Server-Sent Events, resumable with Last-Event-ID

        The stream starts after the position `Last-Event-ID` names, even when `after` is given
        too (an EventSource reconnects to the URL it opened, with the id it last received);
        else after `after`, else from the beginning.
        """
        named = feed_schemas.types(query)
        types = None if named is None else feed.known_types(store(), named)
        start = Checkpoint()
        if query["after"] is not None:
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
            return sse.response(_threaded(listener(), follower, query["timeout"]), give_back)
        return sse.response(*sse.handed_over(relay(), take, follower, query["timeout"],
                                             lambda: None, give_back), closes=True)


def _resumed(last: str) -> Checkpoint | None:
    """After the event `Last-Event-ID` names, or None for an id that names none (as on a
    table's stream). Only ASCII digits are read, as many as a position has."""
    if last.isascii() and last.isdigit() and len(last) <= 18:
        return store().checkpoint_at(int(last), conn=db.conn())
    return None


def chunk(item: dict[str, Any]) -> bytes:
    return (f"id: {item['position']}\nevent: {item['type']}\n".encode() + b"data: "
            + orjson.dumps(item) + b"\n\n")


class LogFollower:
    """The log as one stream follows it, from `last` on: its own reads, shared with no one."""

    # What changes no table (a deposit) sends no notice, and an event may commit below the
    # watermark only after its notice: it looks every second anyway.
    polls = True

    def __init__(self, pool: ConnectionPool, event_store: PostgresEventStore, who: Principal,
                 last: Checkpoint, types: Collection[str] | None) -> None:
        self.pool = pool
        self.event_store = event_store
        self.who = who
        self.last = last
        self.types = types

    def wants(self, change: notify.Change) -> bool:
        return True

    def heard(self, changes: Sequence[notify.Change] | None) -> None:
        pass  # it reads whatever committed, notice or not

    def news(self) -> Iterator[bytes]:
        """The events since the last sent, as writes of at most `BATCH`. Each read takes a
        connection for its own length only."""
        while True:
            with self.pool.connection() as conn:
                page = feed.read(conn, self.event_store, self.who, self.last, BATCH, self.types)
            self.last = page.last
            if page.items:
                yield b"".join(chunk(item) for item in page.items)
            if len(page.items) < BATCH:
                return

    def state(self) -> tuple[Any, ...]:
        return (self.last,)

    def set_state(self, state: tuple[Any, ...]) -> None:
        (self.last,) = state

    def spec(self) -> dict[str, Any]:
        """Where the follower stands, for another process to go on with it
        (`service.http.streamer`)."""
        return {"kind": "log", "who": [self.who.role, self.who.subject],
                "last": [self.last.txid, self.last.position],
                "types": None if self.types is None else sorted(self.types)}

    def view(self) -> Hashable:
        return self  # its news is its own: made for no other follower


def _threaded(notices: notify.Listener, follower: LogFollower, timeout: float) -> Iterator[bytes]:
    """The stream from the request's thread, on its own subscription."""
    # Subscribed before the first read: a change committed between a read and the wait that
    # follows it still wakes the wait.
    waiter = notices.subscribe(notify.EVERY_TABLE, who=follower.who.key)
    try:
        yield from sse.threaded(follower, waiter, timeout)
    finally:
        notices.unsubscribe(waiter)
