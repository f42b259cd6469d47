"""Games, tables, seats, hands and actions over REST."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import orjson
import psycopg
from flask import Response, current_app, request
from flask.views import MethodView
from marshmallow import ValidationError
from psycopg_pool import ConnectionPool

from events.postgres import PostgresEventStore
from projections import tables
from projections.tables import TableRow
from service import db, handlers, notify
from service.auth import Principal, principal, require
from service.blueprint import Blueprint
from service.context import metadata, store
from service.deferred_jobs import DeferredJobs
from service.problems import Problem, retry_later
from service.redaction import Redactor, viewer_in
from service.slots import Slots
from service.table_schemas import (
    ActionSchema,
    EventPageSchema,
    EventsQuerySchema,
    JoinedSchema,
    JoinSchema,
    LeftSchema,
    StreamQuerySchema,
    TableCreateSchema,
    TableListQuerySchema,
    TablePageSchema,
    TableSchema,
)

blp = Blueprint("tables", __name__, url_prefix="/v1/tables",
                description="Tables: seats, hands, actions and their events.")


def render(table: TableRow, who: Principal, conn: psycopg.Connection | None = None) -> dict[str, Any]:
    """The table as `who` may see it, with the actions open to him."""
    engine = handlers.engine_of(table)
    held = tables.seat_balances(conn or db.conn(), table)
    viewer = viewer_in(who, table.seats)
    you = viewer.seat if viewer.kind == "seat" else None
    playing = table.state is not None and table.status == "playing"
    return {
        "id": table.table_id, "game": table.game, "options": table.options, "status": table.status,
        "version": table.version,
        "seats": [{"seat": s["seat"], "player_id": s["player_id"], "balance": held[s["player_id"]]}
                  for s in table.seats],
        "hand": None if table.hand_id is None else {
            "id": table.hand_id, "number": table.hand_number,
            "status": "playing" if table.status == "playing" else
            ("settling" if table.status == "settling" else "settled")},
        "turn": table.turn if table.status == "playing" else None,
        "you": you,
        "view": engine.view(table.state, viewer) if table.state is not None else None,
        "legal_actions": engine.legal_actions(table.state, you) if playing and you is not None else [],
    }


def etag(table: TableRow) -> str:
    return f'"{table.version}"'


def respond(table: TableRow, status: int = 200, body: dict[str, Any] | None = None) -> Response:
    """A table response with its version as the ETag (the schema documents the body)."""
    payload = body if body is not None else render(table, principal())
    response = Response(orjson.dumps(payload), status=status, mimetype="application/json")
    response.headers["ETag"] = etag(table)
    return response


def check_if_match(table: TableRow, required: bool) -> None:
    """412 when the caller's version is stale; 428 when it is required and missing."""
    header = request.headers.get("If-Match")
    if header is None:
        if required:
            raise Problem(428, "if_match_required", "send If-Match with the table's version (ETag)")
        return
    versions = {v.strip().removeprefix("W/").strip('"') for v in header.split(",")}
    if "*" not in versions and str(table.version) not in versions:
        raise Problem(412, "stale_version", f"the table is at version {table.version}",
                      version=table.version)


def schedule_after_commit(table: TableRow, ended: int | None = None) -> None:
    """Once the action commits: queue the settlement, or schedule the next turn's deadline, and
    cancel the timeout of the turn the action `ended` (the version that turn began at); sent to
    Redis shortly after, off the request (`service.deferred_jobs`).

    Redis being down loses nothing: the deadline and the `settling` status are in PostgreSQL,
    where the worker's sweeper finds them.
    """
    jobs: DeferredJobs = current_app.extensions["banco.jobs"]
    snapshot = replace(table, state=None)
    db.after_commit(lambda: jobs.after(snapshot, ended))


@blp.route("")
class Tables(MethodView):
    @require("operator", "player")
    @blp.arguments(TableCreateSchema)
    @blp.response(201, TableSchema)
    def post(self, body: dict[str, Any]) -> Response:
        """Open a table for a game, with its options (defaults filled in)"""
        engine = handlers.engine_named(body["game"])
        raw = dict(body["options"])
        if body["variant"] is not None:
            raw["variant"] = body["variant"]
        try:
            options = engine.options_schema().load(raw)
        except ValidationError as e:
            raise Problem(422, "invalid_options", "the options do not fit this game",
                          errors={"options": e.messages}) from e
        table = handlers.create_table(db.conn(), store(), body["game"], dict(options),
                                      principal().key, metadata("CreateTable"))
        return respond(table, 201)

    @require("operator", "auditor", "player")
    @blp.arguments(TableListQuerySchema, location="query")
    @blp.response(200, TablePageSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Tables, newest first, filtered by game and status"""
        if query["game"] is not None:
            handlers.engine_named(query["game"])  # a misspelt game would list no table at all
        conn = db.conn()
        clauses, params = ["true"], []
        for column in ("game", "status"):
            if query[column] is not None:
                clauses.append(f"{column} = %s")
                params.append(query[column])
        if query["cursor"] is not None:
            # The cursor is the last table of the page before; ids are random, so the page goes
            # on from that table's creation time.
            after = conn.execute("SELECT created_at FROM tables WHERE table_id = %s",
                                 (query["cursor"],)).fetchone()
            if after is None:
                raise Problem(422, "invalid_cursor", "cursor is not a next_cursor this list gave")
            clauses.append("(created_at, table_id) < (%s, %s)")
            params += [after[0], query["cursor"]]
        rows = conn.execute(
            f"SELECT table_id, game, status, jsonb_array_length(seats), hand_number FROM tables"
            f" WHERE {' AND '.join(clauses)} ORDER BY created_at DESC, table_id DESC LIMIT %s",
            [*params, query["limit"] + 1]).fetchall()
        items = [{"id": r[0], "game": r[1], "status": r[2], "players": r[3], "hands": r[4]}
                 for r in rows[: query["limit"]]]
        more = len(rows) > query["limit"]
        return {"items": items, "next_cursor": items[-1]["id"] if more else None}


@blp.route("/<table_id>")
class Table(MethodView):
    @require("operator", "auditor", "player")
    @blp.response(200, TableSchema)
    def get(self, table_id: str) -> Response:
        """The table as you may see it: the hand in play, whose turn, and your legal actions"""
        table = handlers.load(db.conn(), table_id, balances=True)
        if request.if_none_match and request.if_none_match.contains(str(table.version)):
            return Response(status=304, headers={"ETag": etag(table)})
        return respond(table)


@blp.route("/<table_id>/seats")
class Seats(MethodView):
    @require("player")
    @blp.arguments(JoinSchema)
    @blp.response(201, JoinedSchema)
    def post(self, body: dict[str, Any], table_id: str) -> Response:
        """Take a seat, moving your buy-in from your wallet to the seat"""
        table = handlers.load(db.conn(), table_id)
        check_if_match(table, required=False)
        buy_in = body["buy_in"] if body["buy_in"] is not None else table.options.get("buy_in")
        if buy_in is None:
            raise Problem(422, "buy_in_required", "say how much treasure you bring to the seat")
        player_id = principal().subject
        seat = handlers.seat_player(db.conn(), store(), table, player_id, int(buy_in), body["age"],
                                    body["seed"], metadata("JoinTable"))
        return respond(table, 201, {"seat": seat["seat"], "player_id": player_id,
                                    "table": render(table, principal())})


@blp.route("/<table_id>/seats/<player_id>")
class Seat(MethodView):
    @require("operator", self_param="player_id")
    @blp.response(200, LeftSchema)
    def delete(self, table_id: str, player_id: str) -> dict[str, Any]:
        """Leave between hands: the seat's treasure goes back to the wallet"""
        table = handlers.load(db.conn(), table_id)
        cash = handlers.leave(db.conn(), store(), table, player_id, metadata("LeaveTable"))
        return {"player_id": player_id, "cash_out": cash}


@blp.route("/<table_id>/hands")
class Hands(MethodView):
    @require("operator", "player")
    @blp.response(201, TableSchema)
    def post(self, table_id: str) -> Response:
        """Deal the next hand (or round); its deck is committed before any card is dealt"""
        table = handlers.load(db.conn(), table_id, balances=True)  # the deal needs them
        who = principal()
        if who.role == "player" and table.seat_of(who.subject) is None:
            raise Problem(403, "not_seated", "only a seated player (or the operator) deals")
        check_if_match(table, required=False)
        table = handlers.open_hand(db.conn(), store(), table, metadata("OpenHand"))
        schedule_after_commit(table)
        return respond(table, 201)


@blp.route("/<table_id>/actions")
class Actions(MethodView):
    @require("player")
    @blp.arguments(ActionSchema)
    @blp.response(200, TableSchema)
    def post(self, body: dict[str, Any], table_id: str) -> Response:
        """Play one of your `legal_actions`; send the table's version as If-Match"""
        table = handlers.load(db.conn(), table_id)
        seat = table.seat_of(principal().subject)
        if seat is None:
            raise Problem(403, "not_seated", "you have no seat at this table")
        if "seat" in body and body["seat"] != seat:
            raise Problem(403, "not_your_seat", "you may act only for your own seat")
        check_if_match(table, required=True)
        payload = {k: v for k, v in body.items() if k != "seat"}
        # The turn in play has a timeout job scheduled at this version; the action ends it.
        ended = table.version if table.deadline is not None else None
        table = handlers.act(db.conn(), store(), table, seat, payload,
                             metadata("Act"))
        schedule_after_commit(table, ended)
        return respond(table)


def _known(table: TableRow, after: int) -> None:
    """Refuse an `after` past the table's version: no response ever gave it, and a client
    waiting for events after it would wait, silently, until the table caught up."""
    if after > table.version:
        raise Problem(422, "after_beyond_version", f"the table is at version {table.version}",
                      version=table.version)


def _read_events(table_id: str, after: int, limit: int,
                 conn: psycopg.Connection | None = None) -> list[Any]:
    return store().read_stream(handlers.stream(table_id), after, conn=conn or db.conn(), limit=limit)


def _long_poll(table_id: str, after: int, limit: int, wait: float) -> list[Any]:
    """The table's events after `after` as soon as there are any, for up to `wait` seconds.

    Woken by the table's notices, as streams are (`service.notify`), and holding no database
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
                return found
            waiter.wait(min(notify.FALLBACK_S, remaining))
    finally:
        listener().unsubscribe(waiter)


@blp.route("/<table_id>/events")
class Events(MethodView):
    @require("operator", "auditor", "player")
    @blp.arguments(EventsQuerySchema, location="query")
    @blp.response(200, EventPageSchema)
    def get(self, query: dict[str, Any], table_id: str) -> dict[str, Any] | Response:
        """The table's events after `after`, as you may see them; `wait` long-polls for news"""
        table = handlers.load(db.conn(), table_id)
        _known(table, query["after"])
        found = _read_events(table_id, query["after"], query["limit"])
        if not found and query["wait"] > 0:
            give_back = waits().take()
            if give_back is None:
                return waiters_busy()
            try:
                found = _long_poll(table_id, query["after"], query["limit"], query["wait"])
            finally:
                give_back()
        redactor = Redactor(db.conn(), principal())
        version = found[-1].version if found else table.version
        return {"items": list(redactor.events(found)), "version": version}


@blp.route("/<table_id>/stream")
class Stream(MethodView):
    @require("operator", "auditor", "player")
    @blp.arguments(StreamQuerySchema, location="query")
    @blp.response(200, description="Server-Sent Events: one `id:` per table version; each"
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
            last = request.headers.get("Last-Event-ID", "0")
            after = int(last) if last.isdigit() else 0
        give_back = waits().take()
        if give_back is None:
            return waiters_busy()
        stream = _sse(store(), db.pool(), listener(), principal(), table_id, after, query)
        response = Response(stream, mimetype="text/event-stream",
                            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        response.call_on_close(give_back)  # the stream ended, or its client left
        return response


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
