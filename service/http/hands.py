"""Hand summaries: players, stakes, outcome and postings, as each caller may see them."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from events.catalog import GAME_EVENT_PREFIX
from events.game_records import engine_event
from projections import players, tables
from service.application import dispute_reads, handlers
from service.application.principal import Principal
from service.application.redaction import Redactor, viewer_in
from service.http import db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint
from service.http.context import store
from service.http.problems import Problem
from service.http.table_schemas import HandListQuerySchema, HandPageSchema, HandSchema

blp = Blueprint("hands", __name__, description="Hands (rounds) dealt at the tables.")


def summary(hand: dict[str, Any], who: Principal) -> dict[str, Any]:
    """A hand as `who` may see it; the seed and the outcome only once it is settled."""
    out = {"id": hand["hand_id"], **{k: hand[k] for k in (
        "table_id", "number", "status", "seats", "commitment", "postings", "opened_at",
        "settled_at", "rules_version")}, "server_seed": None, "outcome": None}
    # Seated players' names are the table's to show (as its seats show them), not hidden cards.
    named = players.names(db.conn(), [s["player_id"] for s in hand["seats"]])
    out["seats"] = [{**s, "name": named.get(s["player_id"])} for s in hand["seats"]]
    if hand["status"] != "settled":
        return out
    table = handlers.load(db.uow(), hand["table_id"])
    engine = handlers.engine_of(table)
    # The hand's own events, its first to its last: bounded by the hand's length.
    own = store().read_stream(handlers.stream(hand["table_id"]), hand["first_version"] - 1,
                              conn=db.conn(), limit=hand["last_version"] - hand["first_version"] + 1)
    state = engine.initial_state(table.options)
    for event in own:
        if event.type.startswith(GAME_EVENT_PREFIX):
            state = engine.evolve(state, engine_event(event))
    out["server_seed"] = _revealed_seed(hand, Redactor(db.conn(), who))
    out["outcome"] = engine.view(state, viewer_in(who, hand["seats"]))
    return out


def _revealed_seed(hand: dict[str, Any], redactor: Redactor) -> str | None:
    """The server seed as the hand's settlement revealed it, as `redactor`'s viewer may see it.

    The settlement follows the hand's last event, after the postings of its last move (a bust
    pays the banker at once) and with its own: it is read a few events at a time, up to the next
    hand at the latest.
    """
    for event in handlers.events_after(db.uow(), hand["table_id"], hand["last_version"]):
        if event.type == "SeedRevealed" and event.data["hand_id"] == hand["hand_id"]:
            return redactor.event(event)["data"].get("server_seed")
        if event.type == "HandBegan":
            break
    return None


@blp.route("/v1/tables/<table_id>/hands")
class TableHands(MethodView):
    @require("operator", "auditor", "player", scope="tables:read")
    @blp.operation("listTableHands", 404)
    @blp.arguments(HandListQuerySchema, location="query")
    @blp.response(200, HandPageSchema)
    def get(self, query: dict[str, Any], table_id: str) -> dict[str, Any]:
        """The table's hands in order, as you may see them"""
        handlers.load(db.uow(), table_id)
        found = tables.hands_of(db.conn(), table_id, query["after"], query["limit"] + 1)
        items = [summary(h, principal()) for h in found[: query["limit"]]]
        more = len(found) > query["limit"]
        return {"items": items, "next_cursor": items[-1]["number"] if more else None}


@blp.route("/v1/hands/<hand_id>")
class Hand(MethodView):
    @require("operator", "auditor", "player", scope="tables:read")
    @blp.operation("getHand", 404)
    @blp.response(200, HandSchema)
    def get(self, hand_id: str) -> dict[str, Any]:
        """A hand: its players, commitment, postings and, once settled, seed and outcome"""
        hand = tables.hand(db.conn(), hand_id)
        if hand is None:
            raise Problem(404, "hand_not_found", f"no hand {hand_id}")
        who = principal()
        return {**summary(hand, who), "disputes": dispute_reads.of_hand(db.conn(), hand_id, who)}
