"""Tables over REST: creating and listing them, views, seats, hands and actions."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

import orjson
from flask import Response, request
from flask.views import MethodView

from projections.tables import TableRow
from service.application import handlers, listings, table_view
from service.application.commands import (
    NOT_SENT,
    Act,
    CreateTable,
    EndTable,
    IfMatch,
    JoinTable,
    LeaveTable,
    OpenHand,
)
from service.application.errors import Forbidden
from service.application.principal import Principal
from service.application.table_options import table_options
from service.http import contract, db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint
from service.http.context import handle
from service.http.play_schemas import ActionSchema
from service.http.table_schemas import (
    JoinedSchema,
    JoinSchema,
    LeftSchema,
    TableCreateSchema,
    TableListQuerySchema,
    TablePageSchema,
    TableSchema,
)

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


# An entity-tag of a list (quoted, maybe weak, or a bare word werkzeug would take for one), each
# followed by a comma or the end.
_ENTITY_TAG = re.compile(r'[ \t]*(?P<weak>[Ww]/)?(?:"(?P<quoted>[^"]*)"|[^" \t,]+)[ \t]*(?:,|\Z)')


def if_match() -> IfMatch:
    """The versions the request's If-Match names: its strong, quoted entity-tags. If-Match is
    compared strongly (RFC 9110, 13.1.1): a weak tag, or a bare word that is no entity-tag,
    matches no version, and is counted as a tag all the same (a list is still a list)."""
    if "If-Match" not in request.headers:
        return NOT_SENT
    header = request.headers["If-Match"]
    if header.strip() == "*":
        return IfMatch(True, True, frozenset(), tags=1)
    tags = list(_ENTITY_TAG.finditer(header))
    # An empty tag (`""`) names no version. Each tag is counted, the same one twice too: `"9",
    # "9"` is a list, not the one version a move needs.
    strong = frozenset(t["quoted"] for t in tags if t["quoted"] and not t["weak"])
    star = any(t.group(0).strip(" \t,") == "*" for t in tags)
    return IfMatch(True, star, strong, tags=len(tags))


@blp.route("")
class Tables(MethodView):
    @require("operator", "player", scope="tables:write")
    @blp.operation("createTable")
    @blp.arguments(TableCreateSchema)
    @blp.response(201, TableSchema, headers=contract.ETAG)
    def post(self, body: dict[str, Any]) -> Response:
        """Open a table for a game, with its options (defaults filled in)"""
        engine = handlers.engine_named(body["game"])
        options = table_options(engine, body["variant"], body["options"])
        return respond(handle(CreateTable(body["game"], options, principal().key)), 201)

    @require("operator", "auditor", "player", scope="tables:read")
    @blp.operation("listTables", 403)
    @blp.arguments(TableListQuerySchema, location="query")
    @blp.response(200, TablePageSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Tables, newest first, filtered by game, status and a seated player"""
        if query["game"] is not None:
            handlers.engine_named(query["game"])  # a misspelt game would list no table at all
        who = principal()
        if query["player"] is not None and who.role == "player" and query["player"] != who.subject:
            raise Forbidden("forbidden", "a player lists only the tables he sits at")
        return listings.tables(db.conn(), query["game"], query["status"], query["cursor"],
                               query["limit"], query["player"])


@blp.route("/<table_id>")
class Table(MethodView):
    @require("operator", "auditor", "player", scope="tables:read")
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
        player_id = principal().subject
        joined = handle(JoinTable(table_id, player_id, body["buy_in"], body["age"],
                                  body["seed"], if_match()))
        return respond(joined.table, 201, {"seat": joined.seat["seat"], "player_id": player_id,
                                           "table": render(joined.table, principal())})


@blp.route("/<table_id>/seats/<player_id>")
class Seat(MethodView):
    @require("operator", self_param="player_id", scope="tables:write")
    @blp.operation("leaveTable", 404, 409)
    @blp.response(200, LeftSchema)
    def delete(self, table_id: str, player_id: str) -> dict[str, Any]:
        """Leave between hands: the seat's treasure goes back to the wallet"""
        return {"player_id": player_id, "cash_out": handle(LeaveTable(table_id, player_id))}


@blp.route("/<table_id>/close")
class Close(MethodView):
    @require("operator", scope="tables:write")
    @blp.operation("closeTable", 404, 409)
    @blp.response(200, TableSchema, headers=contract.ETAG)
    def post(self, table_id: str) -> Response:
        """Close the table between hands: every seat is cashed out to its wallet and the table is
        over (a 409 `hand_in_play` while a hand is played, `table_over` once over)

        A Cassino game closed between rounds before anyone has won gives each player his stake
        back from the pot first (`stake_returned` postings).
        """
        handle(EndTable(table_id, "closed", refuse=True))
        return respond(handlers.load(db.uow(), table_id, balances=True))


@blp.route("/<table_id>/hands")
class Hands(MethodView):
    @require("operator", "player", scope="tables:write")
    @blp.operation("dealHand", 403, 404, 409, 412, headers=(contract.IF_MATCH,))
    @blp.response(201, TableSchema, headers=contract.ETAG)
    def post(self, table_id: str) -> Response:
        """Deal the next hand (or round); its deck is committed before any card is dealt"""
        who = principal()
        dealer = who.subject if who.role == "player" else None
        return respond(handle(OpenHand(table_id, dealer, if_match())), 201)


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
        A move at or after the turn's `deadline` is a 409 `turn_timed_out`: the turn's timeout
        ends it (see the README's "How time works at a table").
        """
        payload = {k: v for k, v in body.items() if k != "seat"}
        return respond(handle(Act(table_id, principal().subject, payload, body.get("seat"),
                                  if_match())))
