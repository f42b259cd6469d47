"""A table's events as the caller may see them: pages, long polls and Server-Sent Events.

Waiting requests (a long poll, a stream) hold a gunicorn thread each but no database connection
while they wait: they are woken by the table's notices (`service.commands.notify`) and borrow a connection
for each read. `service.http.slots` bounds how many may wait at once.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import orjson
import psycopg
from flask import Response, current_app, request
from flask.views import MethodView
from psycopg_pool import ConnectionPool

from events.postgres import PostgresEventStore
from projections import tables
from projections.tables import TableRow
from service.commands import handlers, notify
from service.commands.principal import Principal
from service.commands.redaction import Redactor
from service.http import contract, db
from service.http.auth import principal, require
from service.http.blueprint import TEXT, Blueprint
from service.http.context import store
from service.http.problems import Problem, retry_later
from service.http.slots import Slots
from service.http.table_schemas import EventPageSchema, EventsQuerySchema, StreamQuerySchema
from service.http.tables import render

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


def _long_poll(table_id: str, after: int, limit: int, wait: float) -> tuple[list[Any], int]:
    """The table's events after `after` as soon as there are any, for up to `wait` seconds, and
    the table's version read after them.

    Woken by the table's notices, as streams are (`service.commands.notify`), and holding no database
    connection while it waits: it borrows one for each read.
    """
    deadline = time.monotonic() + wait
    db.release()
    # Subscribed before the first read: a change committed between a read and the wait that
    # follows it still wakes the wait.
    waiter = listener().subscribe(table_id)
    try:
        while True:
            with db.pool().connection() as conn:
                found = _read_events(table_id, after, limit, conn)
                remaining = deadline - time.monotonic()
                if found or remaining <= 0:
                    return found, tables.versions(conn, [table_id])[table_id]
            waiter.wait(min(notify.FALLBACK_S, remaining))
    finally:
        listener().unsubscribe(waiter)


@blp.route("/<table_id>/events")
class Events(MethodView):
    @require("operator", "auditor", "player")
    @blp.operation("listTableEvents", 404)
    @blp.arguments(EventsQuerySchema, location="query")
    @blp.response(200, EventPageSchema)
    def get(self, query: dict[str, Any], table_id: str) -> dict[str, Any] | Response:
        """The table's events after `after`, as you may see them; `wait` long-polls for news"""
        after = query["after"]
        found = _read_events(table_id, after, query["limit"])
        # The table's row changes in the transaction that appends its events, and each statement
        # sees what had committed when it began: read after the events, its version is at least
        # the last one's, never behind the page.
        table = handlers.load(db.conn(), table_id)
        _known(table, after)
        version = table.version
        if not found and query["wait"] > 0:
            give_back = waits().take()
            if give_back is None:
                return waiters_busy()
            try:
                found, version = _long_poll(table_id, after, query["limit"], query["wait"])
            finally:
                give_back()
        redactor = Redactor(db.conn(), principal())
        next_after = found[-1].version if found else after
        return {"items": list(redactor.events(found)), "version": version,
                "next_after": next_after, "more": next_after < version}


@blp.route("/<table_id>/stream")
class Stream(MethodView):
    @require("operator", "auditor", "player")
    @blp.operation("streamTableEvents", 404, headers=(contract.LAST_EVENT_ID,))
    @blp.arguments(StreamQuerySchema, location="query")
    @blp.response(200, TEXT, description="Server-Sent Events: one `id:` per table version; each"
                  " event of the table as `event: <type>`, and with `turns=true` the table itself"
                  " as `event: table` when it is your turn",
                  content_type="text/event-stream")
    def get(self, query: dict[str, Any], table_id: str) -> Response:
        """The table's events (and your turns) as Server-Sent Events, resumable with Last-Event-ID"""
        table = handlers.load(db.conn(), table_id)
        after = query["after"]
        if after is not None:
            _known(table, after)
        else:
            after = _resumed_after(request.headers.get("Last-Event-ID", ""), table)
        give_back = waits().take()
        if give_back is None:
            return waiters_busy()
        stream = _sse(store(), db.pool(), listener(), principal(), table_id, after, query)
        response = Response(stream, mimetype="text/event-stream",
                            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        response.call_on_close(give_back)  # the stream ended, or its client left
        return response


def _resumed_after(last: str, table: TableRow) -> int:
    """Where a reconnecting stream goes on: after the `Last-Event-ID` it was last sent, or from
    the beginning for an id this table's stream never sent. Only ASCII digits are read, as many
    as a version has: `str.isdigit` also takes '²', and `int` refuses 5,000 digits."""
    if last.isascii() and last.isdigit() and len(last) <= 19 and int(last) <= table.version:
        return int(last)
    return 0


def listener() -> notify.Listener:
    return current_app.extensions["banco.notify"]


def waits() -> Slots:
    return current_app.extensions["banco.waits"]


def waiters_busy() -> Response:
    return retry_later("waiters_busy",
                       "as many streams and long polls as this server holds at once are open")


def _turn(conn: psycopg.Connection, who: Principal, table_id: str,
          shown: int) -> tuple[int | None, dict[str, Any] | None]:
    """`who`'s seat, and the table as he sees it if it changed since version `shown` and he has
    something to do in it: legal actions in the hand in play, or a seat at a table open for its
    next hand. That a table has ended (its seats cashed out) is news for every follower."""
    table = tables.load(conn, table_id, balances=True)
    if table is None:
        return None, None
    seat = table.seat_of(who.subject)
    if table.version == shown or (seat is None and table.status != "over"):
        return seat, None
    body = render(table, who, conn)
    if body["legal_actions"] or table.status in ("open", "over"):
        return seat, body
    return seat, None


def _concerns(change: notify.Change, seat: int | None, who: Principal) -> bool:
    """Whether `change` may have given the subscriber something to do, by someone else's
    command (his own requests' responses showed him the table): a turn in play that is his or
    anyone's, or a table open for its next hand, or ended. A hand being settled is nobody's to
    act in."""
    return change.actor != who.key and (change.status in ("open", "over") or (
        seat is not None and change.status == "playing" and change.seat in (None, seat)))


def _sse(event_store: PostgresEventStore, pool: ConnectionPool, notices: notify.Listener,
         who: Principal, table_id: str, after: int, query: dict[str, Any]) -> Iterator[bytes]:
    # The request's connection returns to the pool when the view returns; the stream borrows
    # one when the table changed (or every FALLBACK_S seconds), so an idle subscriber holds none.
    deadline = time.monotonic() + query["timeout"]
    beat = time.monotonic()
    shown = -1  # the table version of the last `table` event sent
    seat: int | None = None  # the subscriber's, as last seen
    turns = query["turns"]
    look = turns
    # A stream without events wakes only for the changes that concern it: at a busy table,
    # most notices are for someone else's turn. (`seat` is read when a notice comes.)
    waiter = notices.subscribe(table_id, None if query["events"] else
                               lambda change: turns and _concerns(change, seat, who))
    try:
        yield b": connected\n\n"
        while time.monotonic() < deadline:
            events: list[dict[str, Any]] = []
            turn = None
            if query["events"] or look:
                # Read, then write: the connection goes back before a slow client is written to.
                with pool.connection() as conn:
                    if query["events"]:
                        found = event_store.read_stream(handlers.stream(table_id), after,
                                                        conn=conn, limit=500)
                        events = list(Redactor(conn, who).events(found))
                    if look:
                        seat, turn = _turn(conn, who, table_id, shown)
            for event in events:
                after = event["version"]
                yield (f"id: {after}\nevent: {event['type']}\n").encode() + b"data: " + \
                    orjson.dumps(event) + b"\n\n"
            if turn is not None:
                shown = turn["version"]
                yield (f"id: {shown}\nevent: table\n").encode() + b"data: " + orjson.dumps(turn) + \
                    b"\n\n"
            if events or turn is not None:
                beat = time.monotonic()
            elif time.monotonic() - beat > 10:
                beat = time.monotonic()
                yield b": keep-alive\n\n"
            changes = waiter.wait(max(0.0, min(notify.FALLBACK_S, deadline - time.monotonic())))
            # None: no notice came in time, or notices were lost; look anyway.
            look = turns and (changes is None or any(_concerns(c, seat, who) for c in changes))
    finally:
        notices.unsubscribe(waiter)
