"""A table's events as the caller may see them: pages, long polls and Server-Sent Events.

Waiting requests hold no database connection while they wait: they are woken by the table's
notices (`service.application.notify`) and take the news from the table's feed
(`service.streaming.feeds`), which reads it once for all of the process's followers. A long poll
holds its gunicorn thread while it waits; a stream holds one only until its client has what was
due, then goes on from its worker's streamer (`service.streaming.relay`), or, where gunicorn cannot
hand its connection over, from its own thread. `service.runtime.slots` bounds how many may be open
at once.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial
from typing import Any

import psycopg
from flask import Response, current_app, request
from flask.views import MethodView

from projections import tables
from projections.tables import TableRow
from service.application import handlers, notify
from service.application.errors import NotFound
from service.application.principal import Principal
from service.application.redaction import Redactor
from service.http import contract, db, sse, tickets
from service.http.auth import principal, require, still_works, while_valid
from service.http.blueprint import TEXT, Blueprint
from service.http.context import store
from service.http.problems import Problem, retry_later
from service.http.table_schemas import EventPageSchema, EventsQuerySchema, StreamQuerySchema
from service.runtime.slots import Slots, once
from service.streaming.feeds import Feeds, Shown
from service.streaming.follower import Follower
from service.streaming.relay import Relay


class TicketedStreamQuerySchema(StreamQuerySchema):
    ticket = tickets.query_field()


blp = Blueprint("table-events", __name__, url_prefix="/v1/tables",
                description="A table's events as you may see them: pages, long polls and streams.")


def _known(table: TableRow, after: int) -> None:
    """Refuse an `after` past the table's version: no response ever gave it, and a client
    waiting for events after it would wait, silently, until the table caught up."""
    if after > table.version:
        raise Problem(422, "after_beyond_version", f"the table is at version {table.version}",
                      version=table.version)


def _read_events(table_id: str, after: int, limit: int,
                 conn: psycopg.Connection | None = None) -> list[Any]:
    return store().read_stream(handlers.stream(table_id), after, conn=conn or db.conn(), limit=limit)


def _long_poll(table_id: str, who: Principal, after: int, limit: int,
               wait: float) -> tuple[list[dict[str, Any]], int]:
    """The table's events after `after` as `who` may see them, as soon as there are any, for up
    to `wait` seconds, and the table's version read after them.

    Woken by the table's notices, as streams are (`service.application.notify`), holding no database
    connection while it waits, and reading through the table's feed (`service.streaming.feeds`) as
    streams do: however many wait, the news is read once.
    """
    deadline = time.monotonic() + wait
    db.release()
    # Subscribed before the first read: a change committed between a read and the wait that
    # follows it still wakes the wait.
    waiter = listener().subscribe(table_id, who=who.key)
    upto: int | None = None
    try:
        with feeds().following(table_id) as feed:
            while True:
                shown = feed.events(db.pool(), store(), who, after, upto, limit)
                if shown is None:  # further behind than the feed keeps
                    with db.pool().connection() as conn:
                        shown = [Shown(e, b"") for e in Redactor(conn, who).events(
                            _read_events(table_id, after, limit, conn))]
                remaining = deadline - time.monotonic()
                if shown or remaining <= 0:
                    with db.pool().connection() as conn:
                        return [s.body for s in shown], tables.versions(conn, [table_id])[table_id]
                changes = waiter.wait(min(notify.FALLBACK_S, remaining))
                if waiter.revoked:
                    # A token or key of its holder revoked while it waited: if its own, what came
                    # since is no longer its to read, as its next request would be refused.
                    with db.pool().connection() as conn:
                        if not still_works(conn):
                            raise Problem(401, "unauthorized", "the token or key this request"
                                          " was sent with was revoked while it waited")
                    waiter.revoked = False
                upto = None if changes is None else max((c.version for c in changes), default=after)
    finally:
        listener().unsubscribe(waiter)


def _page(conn: psycopg.Connection, table_id: str, after: int,
          limit: int) -> tuple[list[Any], TableRow | None]:
    found = _read_events(table_id, after, limit, conn)
    # The table's row changes in the transaction that appends its events, and each statement
    # sees what had committed when it began: read after the events, its version is at least
    # the last one's, never behind the page.
    return found, tables.load(conn, table_id)


@blp.route("/<table_id>/events")
class Events(MethodView):
    @require("operator", "auditor", "player", scope="tables:read")
    @blp.operation("listTableEvents", 404)
    @blp.arguments(EventsQuerySchema, location="query")
    @blp.response(200, EventPageSchema)
    def get(self, query: dict[str, Any], table_id: str) -> dict[str, Any] | Response:
        """The table's events after `after`, as you may see them; `wait` long-polls for news"""
        after = query["after"]
        found, table = _page(db.reading(), table_id, after, query["limit"])
        if (table is None or after > table.version) and (
                primary := db.primary_instead()) is not None:
            # A table, or a version of it, the replica has not replayed yet, which the primary
            # gave the caller.
            found, table = _page(primary, table_id, after, query["limit"])
        if table is None:
            raise NotFound("table_not_found", f"no table {table_id}")
        _known(table, after)
        version = table.version
        if found or query["wait"] <= 0:
            items = list(Redactor(db.reading(), principal()).events(found))
        else:
            give_back = waits().take()
            if give_back is None:
                return waiters_busy()
            try:
                items, version = _long_poll(table_id, principal(), after, query["limit"],
                                            while_valid(query["wait"]))
            finally:
                give_back()
        next_after = items[-1]["version"] if items else after
        return {"items": items, "version": version, "next_after": next_after,
                "more": next_after < version}


@blp.route("/<table_id>/stream")
class Stream(MethodView):
    @tickets.accepted
    @require("operator", "auditor", "player", scope="tables:read")
    @blp.operation("streamTableEvents", 403, 404, headers=(contract.LAST_EVENT_ID,))
    @blp.arguments(TicketedStreamQuerySchema, location="query")
    @blp.response(200, TEXT, description="Server-Sent Events: one `id:` per table version; each"
                  " event of the table as `event: <type>`, and with `turns=true` the table itself"
                  " as `event: table` when it is your turn",
                  content_type="text/event-stream")
    def get(self, query: dict[str, Any], table_id: str) -> Response:
        """The table's events (and your turns) as Server-Sent Events, resumable with Last-Event-ID

        The stream starts after the table version `Last-Event-ID` names, even when `after` is
        given too (an EventSource reconnects to the URL it opened, with the id it last
        received); else after `after`, else from the beginning.

        A browser's EventSource, which cannot send `Authorization`, opens it with a stream
        ticket instead (`?ticket=`, from `POST /v1/stream-tickets`): the same events, shown
        as to the token that asked for the ticket.
        """
        table = handlers.load(db.uow(), table_id)
        if query["after"] is not None:
            _known(table, query["after"])
        # The header wins: an EventSource reconnects to the URL it opened, `after` and all,
        # with the id it last received; starting from `after` would replay the same events on
        # every reconnection.
        resumed = _resumed_after(request.headers.get("Last-Event-ID", ""), table)
        after = resumed if resumed is not None else query["after"] or 0
        take = sse.offered()
        # A stream passed on to the streamer holds no thread, and is bounded on its own.
        give_back = (waits() if take is None else handed_streams()).take()
        if give_back is None:
            return waiters_busy()
        feed = feeds().join(table.table_id)
        follower = Follower(feed, store(), db.pool(), principal(), after, table.version, query)
        leave = once(partial(feeds().leave, feed))
        if take is None:
            return sse.response(threaded_body(follower, listener(), feeds(),
                                              while_valid(query["timeout"])),
                                once(leave, give_back))
        return sse.response(*sse.handed_over(relay(), take, follower,
                                             while_valid(query["timeout"]), leave,
                                             give_back), closes=True)


def _resumed_after(last: str, table: TableRow) -> int | None:
    """Where a reconnecting stream goes on: after the `Last-Event-ID` it was last sent, or None
    for an id this table's stream never sent. Only ASCII digits are read, as many as a version
    has: `str.isdigit` also takes '²', and `int` refuses 5,000 digits."""
    if last.isascii() and last.isdigit() and len(last) <= 19 and int(last) <= table.version:
        return int(last)
    return None


def listener() -> notify.Listener:
    return current_app.extensions["banco.notify"]


def feeds() -> Feeds:
    return current_app.extensions["banco.feeds"]


def relay() -> Relay:
    return current_app.extensions["banco.relay"]


def waits() -> Slots:
    return current_app.extensions["banco.waits"]


def handed_streams() -> Slots:
    return current_app.extensions["banco.streams"]


def waiters_busy() -> Response:
    return retry_later("waiters_busy",
                       "as many streams and long polls as this server holds at once are open")


def threaded_body(follower: Follower, notices: notify.Listener, shared: Feeds,
                  timeout: float) -> Iterator[bytes]:
    """The stream from the request's thread: its own subscription, and the feeds' gate. (The
    response leaves the feed when it closes.)"""
    # The request's connection returns to the pool when the view returns; the table's feed
    # borrows one when the table changed, so an idle subscriber holds none.
    waiter = notices.subscribe(follower.feed.table_id,
                               None if follower.events else follower.wants, follower.who.key)
    # The view read the table before this subscription: what committed in between sent no
    # notice it hears, and the feed may still hold the table as the view read it. The first
    # look reads afresh, as a stream handed to the streamer does when it joins.
    follower.heard(None)
    try:
        yield from sse.threaded(follower, waiter, timeout, shared.gate)
    finally:
        notices.unsubscribe(waiter)
