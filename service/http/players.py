"""Players, their wallets and their balance history."""

from __future__ import annotations

from typing import Any

from flask import Response, request
from flask.views import MethodView

from events import ledger
from events.model import StoredEvent
from projections import history
from service.application import export, listings, players
from service.application.players import Deposit, ErasePlayer, RegisterPlayer, Withdraw
from service.http import db, exports, idempotency, tokens
from service.http.auth import require
from service.http.blueprint import TEXT, Blueprint
from service.http.context import handle
from service.http.problems import Problem
from service.http.schemas import (
    BalanceSchema,
    HistoryPageSchema,
    HistoryQuerySchema,
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerListQuerySchema,
    PlayerPageSchema,
    PlayerSchema,
    TransferResultSchema,
    TransferSchema,
)

blp = Blueprint("players", __name__, url_prefix="/v1/players",
                description="Players, their wallets and balance history.")


def load_player(player_id: str) -> dict[str, Any]:
    return players.load(db.conn(), player_id)


def read_player(player_id: str) -> dict[str, Any]:
    """The player, read where `db.reading()` reads; one the replica has not replayed yet (just
    registered by the operator) is read from the primary, and so is the rest of the request."""
    player = players.find(db.reading(), player_id)
    if player is None and (primary := db.primary_instead()) is not None:
        player = players.find(primary, player_id)
    if player is None:
        raise Problem(404, "player_not_found", f"no player {player_id}")
    return player


@blp.route("")
class Players(MethodView):
    @require("operator", scope="players:write")
    @blp.operation("createPlayer")
    @blp.arguments(PlayerCreateSchema)
    @blp.response(201, PlayerCreatedSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register a player; the response holds his bearer token, shown only once

        The token is stored only hashed. Replayed with its `Idempotency-Key`, the request issues
        him a new token in place of the one the earlier answer carried, which stops working
        (`Idempotent-Replayed: true`): the last answer received holds the working token.
        """
        command = RegisterPlayer(body["name"])
        issued = tokens.kept(handle(command))
        return {"player": load_player(command.player_id), "token": issued["token"]}

    @require("operator", "auditor", scope="players:read")
    @blp.operation("listPlayers")
    @blp.arguments(PlayerListQuerySchema, location="query")
    @blp.response(200, PlayerPageSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Players, newest first, with their wallets' balances"""
        return listings.players(db.conn(), query["cursor"], query["limit"])


@blp.route("/<player_id>")
class Player(MethodView):
    @require("operator", "auditor", self_param="player_id", scope="players:read")
    @blp.operation("getPlayer", 404)
    @blp.response(200, PlayerSchema)
    def get(self, player_id: str) -> dict[str, Any]:
        """A player"""
        return load_player(player_id)


@blp.route("/<player_id>/erasure")
class Erasure(MethodView):
    @require("operator", scope="players:write")
    @blp.operation("erasePlayer", 404)
    @blp.response(200, PlayerSchema)
    def post(self, player_id: str) -> dict[str, Any]:
        """Erase a player's personal data: his name reads as erased everywhere, for good

        His key is destroyed, so the name sealed under it in the log can no longer be read; his
        tokens are revoked and none can be issued to him again. His id, balances and hands stay,
        and so does every hash, checkpoint and verification. Recorded as a `PlayerErased` event,
        which holds no personal data. Erasing an erased player changes nothing.
        """
        idempotency.hold_kept_answers()  # the answers being kept now are blanked too
        if not handle(ErasePlayer(player_id)):
            return load_player(player_id)
        # The answers kept for a retry that show his name, his registration's and every table
        # he sat at, whoever is to replay them.
        idempotency.forget_name(player_id)
        return load_player(player_id)


def _transferred(event: StoredEvent, player_id: str) -> dict[str, Any]:
    posted = {**event.data, "position": event.position, "recorded_at": event.recorded_at}
    return {"posting": posted, "balance": players.balance(db.conn(), player_id)}


@blp.route("/<player_id>/deposits")
class Deposits(MethodView):
    @require("operator", scope="treasure:write")
    @blp.operation("createDeposit", 404, 409)
    @blp.arguments(TransferSchema)
    @blp.response(201, TransferResultSchema)
    def post(self, body: dict[str, Any], player_id: str) -> dict[str, Any]:
        """Credit a player's wallet with newly issued treasure (409 `player_erased` once he was
        erased)"""
        command = Deposit(player_id, body["amount"], body["reason"])
        return _transferred(handle(command), player_id)


@blp.route("/<player_id>/withdrawals")
class Withdrawals(MethodView):
    @require("operator", scope="treasure:write")
    @blp.operation("createWithdrawal", 404)
    @blp.arguments(TransferSchema)
    @blp.response(201, TransferResultSchema)
    def post(self, body: dict[str, Any], player_id: str) -> dict[str, Any]:
        """Pay treasure out of a player's wallet (422 `insufficient_treasure` if it holds less)"""
        command = Withdraw(player_id, body["amount"], body["reason"])
        return _transferred(handle(command), player_id)


@blp.route("/<player_id>/balance")
class Balance(MethodView):
    @require("operator", "auditor", self_param="player_id", scope="players:read")
    @blp.operation("getBalance", 404)
    @blp.response(200, BalanceSchema)
    def get(self, player_id: str) -> dict[str, Any]:
        """A player's wallet balance"""
        load_player(player_id)
        return players.balance(db.conn(), player_id)


@blp.route("/<player_id>/balance-history")
class BalanceHistory(MethodView):
    @require("operator", "auditor", self_param="player_id", scope="players:read")
    @blp.operation("getBalanceHistory", 404)
    @blp.arguments(HistoryQuerySchema, location="query")
    @blp.response(200, HistoryPageSchema, content_type="application/json",
                  description="A page of postings; with `Accept: text/csv` or"
                  " `application/x-ndjson`, the whole history streamed (constant memory), one"
                  " posting a line. In CSV, text beginning with `=`, `+`, `-`, `@`, a tab or a"
                  " carriage return is written after a `'` so that a spreadsheet runs none of it;"
                  " numbers are written as numbers")
    @blp.alt_response(200, schema=TEXT, content_type="text/csv", success=True)
    @blp.alt_response(200, schema=TEXT, content_type="application/x-ndjson", success=True)
    def get(self, query: dict[str, Any], player_id: str) -> Any:
        """A wallet's postings with running balance: JSON pages, or CSV / NDJSON by `Accept`"""
        read_player(player_id)
        filters = history.Filters(ledger.wallet(player_id), query["since"], query["until"],
                                  query["reason"], query["table"], query["hand"])
        mime = request.accept_mimetypes.best_match(["application/json", *export.FORMATS])
        if mime in export.FORMATS:
            # An export is the whole (filtered) history: a page asked of it would be ignored.
            paged = [name for name in ("limit", "cursor") if name in request.args]
            if paged:
                raise Problem(422, "invalid_input", f"{mime} exports the whole history; "
                              "limit and cursor page the JSON one",
                              errors={"query": {name: ["Pages application/json only."] for name in paged}})
            return _export(filters, export.FORMATS[mime], mime)
        items, next_cursor = history.page(db.reading(), filters, query["cursor"], query["limit"])
        return {"items": items, "next_cursor": next_cursor}


def _export(filters: history.Filters, fmt: str, mime: str) -> Response:
    """The history streamed for as long as the client reads (`service.http.exports`), from the
    replica when one may serve the caller."""
    return exports.streamed(lambda conn: export.export(conn, filters, fmt), mime, replica=True)
