"""Signed evidence bundles of hands, and the house's public key that checks them."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from flask import current_app
from flask.views import MethodView

from service.application import evidence
from service.http import db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint
from service.http.evidence_schemas import EvidenceSchema, HouseKeySchema
from service.http.hand_audit import load_for_caller
from service.http.problems import Problem, retry_later
from service.runtime import house_key

blp = Blueprint("evidence", __name__, description="Signed evidence bundles, checkable offline.")


def _key(status: int = 503) -> Ed25519PrivateKey:
    """The house key; without one nothing can be signed (503), nor published (404)."""
    key = current_app.extensions.get("banco.house_key")
    if key is None:
        raise Problem(status, "house_key_missing", "no house key is configured (BANCO_HOUSE_KEY_FILE):"
                      " nothing can be signed")
    return key


def _record() -> None:
    with db.pool().connection() as conn:
        evidence.record_checkpoint(conn, current_app.config["BANCO"].tsa_url)


@blp.route("/v1/hands/<hand_id>/evidence")
class Evidence(MethodView):
    @require("operator", "auditor", "player", scope="audit:read")
    @blp.operation("getHandEvidence", 403, 404, 409, 503)
    @blp.response(200, EvidenceSchema)
    def get(self, hand_id: str) -> Any:
        """The hand's signed evidence bundle: events as stored, chain, seeds, postings, inclusion
        proof and signed checkpoint (withheld what you may not see). When no checkpoint covers
        the hand yet, one is recorded; 503 with Retry-After if even that cannot cover it yet."""
        key = _key()
        log, viewer, table = load_for_caller(hand_id)
        try:
            return evidence.bundle(db.conn(), log, table, principal(), viewer, key, _record)
        except evidence.NoCheckpointYet:
            return retry_later("checkpoint_pending", "no checkpoint can cover the hand's last"
                               " event yet (an older transaction is still open)", retry_after_s=1)
        except evidence.CheckpointDiffers:
            raise Problem(409, "checkpoint_differs", "the log no longer folds to the checkpoint"
                          " covering this hand: run `banco verify --all`") from None


@blp.route("/.well-known/banco-house-key")
class HouseKey(MethodView):
    @blp.doc(security=[])
    @blp.operation("getHouseKey", 404)
    @blp.response(200, HouseKeySchema)
    def get(self) -> dict[str, Any]:
        """The house's Ed25519 public key, which signs the checkpoints of evidence bundles"""
        key = _key(404)
        return {"algorithm": "Ed25519", "public_key": house_key.public_b64(key),
                "public_key_pem": house_key.public_pem(key), "key_id": house_key.key_id(key)}
