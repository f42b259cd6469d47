"""Tables over REST: creating and listing them, views, seats, hands and actions."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

import orjson
from flask import Response, current_app, request
from flask.views import MethodView

from projections.tables import TableRow
from service.application import handlers, listings, table_view
from service.application.principal import Principal
from service.application.table_options import table_options
from service.http import contract, db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint
from service.http.context import metadata
from service.http.deferred_jobs import DeferredJobs
from service.http.play_schemas import ActionSchema
from service.http.problems import Problem
from service.http.table_schemas import (
    JoinedSchema,
    JoinSchema,
    LeftSchema,
    TableCreateSchema,
    TableListQuerySchema,
    TablePageSchema,
    TableSchema,
)
from service.runtime import metrics

if TYPE_CHECKING:
    from service.streaming.feeds import Feeds

blp = Blueprint("tables", __name__, url_prefix="/v1/tables",
                description="Tables: seats, hands and actions.")


def render(table: TableRow, who: Principal) -> dict[str, Any]:
    """The table as `who` may see it (`table_view.render`), its seats' balances read in the
    request's unit of work when they were not read with it."""
    if table.balances is None:
        db.uow().seat_balances(table)
    return table_view.render(table, who)


def etag(table: TableRow) -> str:
    return f'"{table.version}"'


def respond(table: TableRow, status: int = 200, body: dict[str, Any] | None = None) -> Response:
    """A table response with its version as the ETag (the schema documents the body)."""
    payload = body if body is not None else render(table, principal())
    response = Response(orjson.dumps(payload), status=status, mimetype="application/json")
    response.headers["ETag"] = etag(table)
    return response


def check_if_match(table: TableRow, required: bool) -> None:
    """412 when the caller's version is stale; 428 when it is required and missing.

    Where it is `required` (an action) it must name one version: `*`, a list or anything that is
    no version would let the copies of a retried or repeated request each apply at whatever
    version they found, so only one concrete version is accepted. Weak tags count as their
    version (a proxy may weaken the ETag it passes on; a table version has one body).
    """
    if "If-Match" not in request.headers:
        if required:
            raise Problem(428, "if_match_required", "send If-Match with the table's version (ETag)")
        return
    tags = request.if_match
    if required:
        sent = tags.as_set(include_weak=True)
        version = next(iter(sent)) if len(sent) == 1 and not tags.star_tag else None
        if version is None or not re.fullmatch(r"[0-9]+", version):
            raise Problem(428, "if_match_required",
                          "send If-Match with exactly one version of the table, its ETag"
                          " (not *, not a list)")
        # Compared as text, leading zeros aside: `int()` refuses more than 4,300 digits (a 500),
        # and a version that long is simply not the table's.
        if version.lstrip("0") != str(table.version).lstrip("0"):
            raise Problem(412, "stale_version", f"the table is at version {table.version}",
                          version=table.version)
        return
    if not tags.star_tag and not tags.contains_weak(str(table.version)):
        raise Problem(412, "stale_version", f"the table is at version {table.version}",
                      version=table.version)


def schedule_after_commit(table: TableRow, ended: int | None = None) -> None:
    """Once the action commits: queue the settlement, or schedule the next turn's deadline, and
    cancel the timeout of the turn the action `ended` (the version that turn began at); sent to
    Redis shortly after, off the request (`service.http.deferred_jobs`).

    Redis being down loses nothing: the deadline and the `settling` status are in PostgreSQL,
    where the worker's sweeper finds them.
    """
    jobs: DeferredJobs = current_app.extensions["banco.jobs"]
    snapshot = replace(table, state=None)
    db.after_commit(lambda: jobs.after(snapshot, ended))
    # The table's followers in this process, and in its streamer, render it as written, once
    # its notice comes.
    followers: Feeds = current_app.extensions["banco.feeds"]
    followers.offer(table)
    current_app.extensions["banco.relay"].offer(table)


@blp.route("")
class Tables(MethodView):
    @require("operator", "player")
    @blp.operation("createTable")
    @blp.arguments(TableCreateSchema)
    @blp.response(201, TableSchema, headers=contract.ETAG)
    def post(self, body: dict[str, Any]) -> Response:
        """Open a table for a game, with its options (defaults filled in)"""
        engine = handlers.engine_named(body["game"])
        options = table_options(engine, body["variant"], body["options"])
        table = handlers.create_table(db.uow(), body["game"], options, principal().key,
                                      metadata("CreateTable"))
        return respond(table, 201)

    @require("operator", "auditor", "player")
    @blp.operation("listTables")
    @blp.arguments(TableListQuerySchema, location="query")
    @blp.response(200, TablePageSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Tables, newest first, filtered by game and status"""
        if query["game"] is not None:
            handlers.engine_named(query["game"])  # a misspelt game would list no table at all
        return listings.tables(db.conn(), query["game"], query["status"], query["cursor"],
                               query["limit"])


@blp.route("/<table_id>")
class Table(MethodView):
    @require("operator", "auditor", "player")
    @blp.operation("getTable", 404, headers=(contract.IF_NONE_MATCH,))
    @blp.response(200, TableSchema, headers=contract.ETAG)
    @blp.alt_response(304, description="Still at the version `If-None-Match` names",
                      headers=contract.ETAG)
    def get(self, table_id: str) -> Response:
        """The table as you may see it: the hand in play, whose turn, and your legal actions"""
        table = handlers.load(db.uow(), table_id, balances=True)
        if request.if_none_match and request.if_none_match.contains(str(table.version)):
            return Response(status=304, headers={"ETag": etag(table)})
        return respond(table)


@blp.route("/<table_id>/seats")
class Seats(MethodView):
    @require("player")
    @blp.operation("joinTable", 404, 409, 412, headers=(contract.IF_MATCH,))
    @blp.arguments(JoinSchema)
    @blp.response(201, JoinedSchema, headers=contract.ETAG)
    def post(self, body: dict[str, Any], table_id: str) -> Response:
        """Take a seat, moving your buy-in from your wallet to the seat"""
        table = handlers.load(db.uow(), table_id)
        check_if_match(table, required=False)
        buy_in = handlers.buy_in_for(table, body["buy_in"])
        player_id = principal().subject
        seat = handlers.seat_player(db.uow(), table, player_id, buy_in, body["age"],
                                    body["seed"], metadata("JoinTable"))
        return respond(table, 201, {"seat": seat["seat"], "player_id": player_id,
                                    "table": render(table, principal())})


@blp.route("/<table_id>/seats/<player_id>")
class Seat(MethodView):
    @require("operator", self_param="player_id")
    @blp.operation("leaveTable", 404, 409)
    @blp.response(200, LeftSchema)
    def delete(self, table_id: str, player_id: str) -> dict[str, Any]:
        """Leave between hands: the seat's treasure goes back to the wallet"""
        table = handlers.load(db.uow(), table_id)
        cash = handlers.leave(db.uow(), table, player_id, metadata("LeaveTable"))
        return {"player_id": player_id, "cash_out": cash}


@blp.route("/<table_id>/hands")
class Hands(MethodView):
    @require("operator", "player")
    @blp.operation("dealHand", 403, 404, 409, 412, headers=(contract.IF_MATCH,))
    @blp.response(201, TableSchema, headers=contract.ETAG)
    def post(self, table_id: str) -> Response:
        """Deal the next hand (or round); its deck is committed before any card is dealt"""
        table = handlers.load(db.uow(), table_id, balances=True)  # the deal needs them
        who = principal()
        if who.role == "player" and table.seat_of(who.subject) is None:
            raise Problem(403, "not_seated", "only a seated player (or the operator) deals")
        check_if_match(table, required=False)
        table = handlers.open_hand(db.uow(), table, metadata("OpenHand"))
        schedule_after_commit(table)
        db.after_commit(metrics.HANDS_DEALT.labels(game=table.game).inc)
        return respond(table, 201)


@blp.route("/<table_id>/actions")
class Actions(MethodView):
    # An action's first read, the table, goes with the token's: one round trip for both.
    read_with_token: ClassVar[dict[str, Callable[..., None]]] = {
        "POST": lambda uow, table_id: uow.prefetch_table(table_id)}

    @require("player")
    @blp.operation("actOnTable", 403, 404, 409, 412, 428, headers=(contract.IF_MATCH_REQUIRED,))
    @blp.arguments(ActionSchema)
    @blp.response(200, TableSchema, headers=contract.ETAG)
    def post(self, body: dict[str, Any], table_id: str) -> Response:
        """Play one of your `legal_actions`; send the table's version as If-Match

        An illegal move is a 422 with the engine's `code`. Between hands the table offers what
        the last hand still allows (Casino pirate's `volunteer` for meneur); anything else is a
        409 `no_hand_in_play`, a volunteer once another seat took the post a 409
        `volunteer_taken`, and the meneur's own (or one after a 7½) a 409 `cannot_volunteer`.
        """
        table = handlers.load(db.uow(), table_id)
        seat = table.seat_of(principal().subject)
        if seat is None:
            raise Problem(403, "not_seated", "you have no seat at this table")
        if "seat" in body and body["seat"] != seat:
            raise Problem(403, "not_your_seat", "you may act only for your own seat")
        check_if_match(table, required=True)
        payload = {k: v for k, v in body.items() if k != "seat"}
        # The turn in play has a timeout job scheduled at this version; the action ends it.
        ended = table.version if table.deadline is not None else None
        table = handlers.act(db.uow(), table, seat, payload, metadata("Act"))
        schedule_after_commit(table, ended)
        db.after_commit(metrics.ACTIONS.labels(game=table.game).inc)
        return respond(table)
