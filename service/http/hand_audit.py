"""A hand's replay and verification over the API, for auditors and, once settled, its players."""

from __future__ import annotations

from typing import Any

import psycopg
from flask.views import MethodView

from games.contract import AUDITOR, Viewer
from projections import tables
from service.application.principal import Principal
from service.application.redaction import viewer_in
from service.application.replay import steps
from service.http import db
from service.http.audit_schemas import ReplaySchema, VerificationSchema
from service.http.auth import principal, require
from service.http.blueprint import Blueprint
from service.http.problems import Problem
from service.verification.chain_check import chain_check
from service.verification.hand_log import HandLog, TableLog, load_table
from service.verification.verify import report

blp = Blueprint("hand-audit", __name__, description="Replaying and verifying recorded hands.")


def _viewer(hand: dict[str, Any], who: Principal) -> Viewer:
    """Auditors always; the hand's players (and the operator, as a spectator) once it is settled."""
    if who.role == "auditor":
        return AUDITOR
    viewer = viewer_in(who, hand["seats"])
    # Someone else's hand is refused before its state is told: whether it is over is its
    # players' business.
    if who.role == "player" and viewer.kind != "seat":
        raise Problem(403, "forbidden", "only the hand's players, the operator and auditors may"
                      " see it")
    if hand["status"] != "settled":
        raise Problem(403, "hand_not_settled", "only auditors see a hand before it is settled")
    return viewer


def _read(conn: psycopg.Connection, hand_id: str) -> tuple[dict[str, Any] | None, TableLog | None]:
    hand = tables.hand(conn, hand_id)
    return hand, None if hand is None else load_table(conn, hand["table_id"])


def load_for_caller(hand_id: str) -> tuple[HandLog, Viewer, TableLog]:
    """The hand's log, read where `db.reading()` reads; a hand the replica has not replayed
    yet, or not yet settled there for a player who was told it is, is read from the primary."""
    hand, table = _read(db.reading(), hand_id)
    stale = hand is None or (hand["status"] != "settled" and principal().role != "auditor")
    if stale and (primary := db.primary_instead()) is not None:
        hand, table = _read(primary, hand_id)
    if hand is None:
        raise Problem(404, "hand_not_found", f"no hand {hand_id}")
    viewer = _viewer(hand, principal())
    log = None if table is None else next((h for h in table.hands() if h.hand_id == hand_id), None)
    if table is None or log is None:
        raise Problem(404, "hand_not_found", f"no events of hand {hand_id}")
    return log, viewer, table


@blp.route("/v1/hands/<hand_id>/replay")
class Replay(MethodView):
    @require("operator", "auditor", "player", scope="tables:read")
    @blp.operation("getHandReplay", 403, 404)
    @blp.response(200, ReplaySchema)
    def get(self, hand_id: str) -> dict[str, Any]:
        """Every event of a hand in order, its cause, and the state after it, as you may see it"""
        log, viewer, _ = load_for_caller(hand_id)
        return {"hand_id": hand_id, "table_id": log.table_id, "game": log.game,
                "viewer": {"kind": viewer.kind, "seat": viewer.seat},
                "steps": steps(db.reading(), log, principal(), viewer)}


@blp.route("/v1/hands/<hand_id>/verification")
class Verification(MethodView):
    @require("operator", "auditor", "player", scope="audit:read")
    @blp.operation("verifyHand", 403, 404)
    @blp.response(200, VerificationSchema)
    def get(self, hand_id: str) -> dict[str, Any]:
        """Check a hand: deck commitment and order, rules, money, hash chain (evidence: auditors)"""
        log, viewer, table = load_for_caller(hand_id)
        out = report(db.reading(), log, chain_check(db.reading(), table.events))
        if viewer.kind != "auditor":
            # The evidence holds the seeds and the whole deck: a conceded hand stays hidden. What
            # failed, and how many cards were counted (no card named), are for everyone.
            out["checks"] = [{**c, "evidence": {k: v for k, v in c["evidence"].items()
                                                if k in ("reason", "summary")}}
                             for c in out["checks"]]
        return out
