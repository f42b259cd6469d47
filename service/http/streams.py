"""A table's events as the caller may see them: pages, long polls and Server-Sent Events.

Waiting requests (a long poll, a stream) hold a gunicorn thread each but no database connection
while they wait: they are woken by the table's notices (`service.commands.notify`) and take the
news from the table's feed (`service.http.feeds`), which reads it once for all of the process's
followers. `service.http.slots` bounds how many may wait at once.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
from flask import Response, current_app, request
from flask.views import MethodView
from psycopg_pool import ConnectionPool

from events.postgres import PostgresEventStore
from projections import tables
from projections.tables import TableRow
from service.commands import handlers, notify
from service.commands.errors import NotFound
from service.commands.principal import Principal
from service.commands.redaction import Redactor
from service.http import contract, db
from service.http.auth import principal, require
from service.http.blueprint import TEXT, Blueprint
from service.http.context import store
from service.http.feeds import BATCH, Feed, Feeds, Shown, sse
from service.http.problems import Problem, retry_later
from service.http.slots import Slots, once
from service.http.table_schemas import EventPageSchema, EventsQuerySchema, StreamQuerySchema
from service.runtime import metrics

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

    Woken by the table's notices, as streams are (`service.commands.notify`), holding no database
    connection while it waits, and reading through the table's feed (`service.http.feeds`) as
    streams do: however many wait, the news is read once.
    """
    deadline = time.monotonic() + wait
    db.release()
    # Subscribed before the first read: a change committed between a read and the wait that
    # follows it still wakes the wait.
    waiter = listener().subscribe(table_id)
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
    @require("operator", "auditor", "player")
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
                                            query["wait"])
            finally:
                give_back()
        next_after = items[-1]["version"] if items else after
        return {"items": items, "version": version, "next_after": next_after,
                "more": next_after < version}


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
        stream = _sse(store(), db.pool(), listener(), feeds(), principal(), table.table_id,
                      after, table.version, query)
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


def feeds() -> Feeds:
    return current_app.extensions.setdefault("banco.feeds", Feeds())


def waits() -> Slots:
    return current_app.extensions["banco.waits"]


def waiters_busy() -> Response:
    return retry_later("waiters_busy",
                       "as many streams and long polls as this server holds at once are open")


def _concerns(change: notify.Change, seat: int | None, who: Principal) -> bool:
    """Whether `change` may have given the subscriber something to do, by someone else's
    command (his own requests' responses showed him the table): a turn in play that is his or
    anyone's, or a table open for its next hand, or ended. A hand being settled is nobody's to
    act in."""
    return change.actor != who.key and (change.status in ("open", "over") or (
        seat is not None and change.status == "playing" and change.seat in (None, seat)))


def _sse(event_store: PostgresEventStore, pool: ConnectionPool, notices: notify.Listener,
         shared: Feeds, who: Principal, table_id: str, after: int, version: int,
         query: dict[str, Any]) -> Iterator[bytes]:
    # The request's connection returns to the pool when the view returns; the table's feed
    # borrows one when the table changed, so an idle subscriber holds none.
    deadline = time.monotonic() + query["timeout"]
    beat = time.monotonic()
    shown = -1  # the table version of the last `table` event sent
    seat: int | None = None  # the subscriber's, as last seen
    turns = query["turns"]
    look = turns
    upto: int | None = version  # the table's version as last heard of; None: unknown
    # A stream without events wakes only for the changes that concern it: at a busy table,
    # most notices are for someone else's turn. (`seat` is read when a notice comes.)
    waiter = notices.subscribe(table_id, None if query["events"] else
                               lambda change: turns and _concerns(change, seat, who), who.key)
    metrics.OPEN_STREAMS.inc()
    leave = once()  # the place taken at the feeds' gate, while it sends what a change brought
    try:
        with shared.following(table_id) as feed:
            yield b": connected\n\n"
            while time.monotonic() < deadline:
                chunks: list[Shown] = []
                turn = None
                if query["events"] and (upto is None or upto > after):
                    chunks = _events_for(feed, event_store, pool, who, table_id, after, upto)
                    if chunks:
                        after = chunks[-1].body["version"]
                more = len(chunks) >= BATCH  # more to send before waiting
                if look:
                    seat, turn = feed.turn(pool, who, upto, shown)
                if turn is not None:
                    shown = turn.body["version"]
                    chunks.append(turn)
                if chunks:
                    # One write for all of them: each is a system call, and a chance for the
                    # GIL to pass to another of the table's followers, woken by the same change.
                    yield b"".join(chunk.chunk for chunk in chunks)
                    beat = time.monotonic()
                elif time.monotonic() - beat > 10:
                    beat = time.monotonic()
                    yield b": keep-alive\n\n"
                if more:
                    look = False
                    continue
                leave()
                changes = waiter.wait(max(0.0, min(notify.FALLBACK_S,
                                                   deadline - time.monotonic())))
                if waiter.revoked:  # the token that opened it was revoked, on any node
                    return
                leave = shared.gate.enter()
                # None: notices may have been lost; look anyway.
                if changes is None:
                    upto, look = None, turns
                else:
                    feed.heard(changes)
                    upto = max([after if upto is None else upto, *(c.version for c in changes)])
                    look = turns and any(_concerns(c, seat, who) for c in changes)
    finally:
        leave()
        metrics.OPEN_STREAMS.dec()
        notices.unsubscribe(waiter)


def _events_for(feed: Feed, event_store: PostgresEventStore, pool: ConnectionPool,
                who: Principal, table_id: str, after: int, upto: int | None) -> list[Shown]:
    """The events after `after` as `who` sees them: from the table's feed, or, for a follower
    further behind than the feed keeps, read and redacted for him alone."""
    shown = feed.events(pool, event_store, who, after, upto)
    if shown is not None:
        return shown
    with pool.connection() as conn:
        found = event_store.read_stream(handlers.stream(table_id), after, conn=conn,
                                        limit=BATCH)
        return [sse(e["version"], e["type"], e) for e in Redactor(conn, who).events(found)]
