"""Disputes about a hand over HTTP: opened, given evidence and re-adjudicated by a player of the
hand, an auditor or the operator; resolved (with corrective postings) or rejected by the
operator alone (`service.application.disputes`)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.application import dispute_reads, disputes
from service.application.disputes import (
    AttachEvidence,
    Correction,
    OpenDispute,
    Readjudicate,
    RejectDispute,
    ResolveDispute,
)
from service.http import db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint
from service.http.context import handle
from service.http.dispute_schemas import (
    DisputeListQuerySchema,
    DisputeOpenSchema,
    DisputePageSchema,
    DisputeSchema,
    EvidenceAttachSchema,
    ReadjudicateSchema,
    ReadjudicationSchema,
    RejectionSchema,
    ResolutionSchema,
)

blp = Blueprint("disputes", __name__, url_prefix="/v1/disputes",
                description="Disputes about a hand: re-adjudicated under its rules version or a"
                            " newer one, resolved with corrective postings or rejected.")


@blp.route("")
class Disputes(MethodView):
    @require("operator", "auditor", "player", scope="disputes:write")
    @blp.operation("openDispute", 403, 404, 409)
    @blp.arguments(DisputeOpenSchema)
    @blp.response(201, DisputeSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Open a dispute on a hand, with a reason

        A player disputes only a hand he played (403 `not_your_hand`), once it is settled (409
        `hand_in_play` before).
        """
        opened: dict[str, Any] = handle(OpenDispute(body["hand_id"], body["reason"],
                                                    principal()))
        return opened

    @require("operator", "auditor", "player", scope="disputes:read")
    @blp.operation("listDisputes")
    @blp.arguments(DisputeListQuerySchema, location="query")
    @blp.response(200, DisputePageSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Disputes, newest first (a player's: those about his hands)

        Filtered by hand and status; `next_cursor` goes on with older ones.
        """
        who = principal()
        found = dispute_reads.listed(
            db.conn(), hand_id=query["hand_id"], status=query["status"],
            player_id=who.subject if who.role == "player" else None, before=query["before"],
            limit=query["limit"] + 1)
        items = found[: query["limit"]]
        more = len(found) > query["limit"]
        return {"items": items, "next_cursor": items[-1]["position"] if more else None}


@blp.route("/<dispute_id>")
class Dispute(MethodView):
    @require("operator", "auditor", "player", scope="disputes:read")
    @blp.operation("getDispute", 403, 404)
    @blp.response(200, DisputeSchema)
    def get(self, dispute_id: str) -> dict[str, Any]:
        """A dispute: its reason, evidence, re-adjudications and how it was closed"""
        return disputes.readable(db.uow(), dispute_id, principal())


@blp.route("/<dispute_id>/evidence")
class Evidence(MethodView):
    @require("operator", "auditor", "player", scope="disputes:write")
    @blp.operation("attachDisputeEvidence", 403, 404, 409)
    @blp.arguments(EvidenceAttachSchema)
    @blp.response(201, DisputeSchema)
    def post(self, body: dict[str, Any], dispute_id: str) -> dict[str, Any]:
        """Attach a note of evidence to an open dispute"""
        shown: dict[str, Any] = handle(AttachEvidence(dispute_id, body["note"], principal()))
        return shown


@blp.route("/<dispute_id>/readjudications")
class Readjudications(MethodView):
    @require("operator", "auditor", "player", scope="disputes:write")
    @blp.operation("readjudicateDispute", 403, 404, 409)
    @blp.arguments(ReadjudicateSchema)
    @blp.response(201, ReadjudicationSchema)
    def post(self, body: dict[str, Any], dispute_id: str) -> dict[str, Any]:
        """Replay the disputed hand under its rules version, or a newer one, and show each
        engine event and posting that would differ

        The events are shown as you may see the hand (a player: his seat's cards; the operator:
        a spectator's; an auditor: all). The dispute records the re-adjudication's counts and
        postings. A version not served is 422 `rules_version_not_served`; one older than the
        hand's, 422 `rules_version_older`.
        """
        found: dict[str, Any] = handle(Readjudicate(dispute_id, principal(),
                                                    body["rules_version"]))
        return found


@blp.route("/<dispute_id>/resolution")
class Resolution(MethodView):
    @require("operator", scope="disputes:write")
    @blp.operation("resolveDispute", 404, 409)
    @blp.arguments(ResolutionSchema)
    @blp.response(200, DisputeSchema)
    def post(self, body: dict[str, Any], dispute_id: str) -> dict[str, Any]:
        """Resolve a dispute with corrective postings through the ledger

        Each correction moves treasure between the house and the wallets of the hand's players
        (422 `not_of_the_hand` for anyone else), appended with the dispute and naming it in its
        reason. One that would overdraw a wallet refuses them all (422 `correction_overdraws`).
        """
        corrections = tuple(Correction(c["from_"], c["to"], c["amount"])
                            for c in body["corrections"])
        resolved: dict[str, Any] = handle(ResolveDispute(dispute_id, body["note"], corrections))
        return resolved


@blp.route("/<dispute_id>/rejection")
class Rejection(MethodView):
    @require("operator", scope="disputes:write")
    @blp.operation("rejectDispute", 404, 409)
    @blp.arguments(RejectionSchema)
    @blp.response(200, DisputeSchema)
    def post(self, body: dict[str, Any], dispute_id: str) -> dict[str, Any]:
        """Reject a dispute: closed, with nothing paid"""
        rejected: dict[str, Any] = handle(RejectDispute(dispute_id, body["note"]))
        return rejected
