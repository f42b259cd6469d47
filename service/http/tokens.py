"""Bearer tokens of players and auditors over HTTP: rotated, revoked and reissued in the
request's transaction, by the application's token commands (`service.application.tokens`), which
append each change to the subject's stream with his row locked: two changes of one subject's
tokens queue and a rotation leaves exactly one token alive.
"""

from __future__ import annotations

from typing import Any

from flask import g
from flask.views import MethodView

from service.application.tokens import Holder, RevokeTokens, RotateTokens
from service.http.auth import require
from service.http.blueprint import Blueprint
from service.http.context import handle
from service.http.schemas import TokenSchema

blp = Blueprint("tokens", __name__, url_prefix="/v1",
                description="Bearer tokens of players and auditors: rotate and revoke.")


def kept(issued: dict[str, Any]) -> dict[str, Any]:
    """`issued`, its id noted for the request's idempotency record, which keeps the token's id,
    never the token (service/http/idempotency.py)."""
    g.issued_token_id = issued["token_id"]
    return issued


def rotate(role: Holder, subject: str, command: str) -> dict[str, Any]:
    return kept(handle(RotateTokens(role, subject), command))


def revoke(role: Holder, subject: str, command: str) -> None:
    handle(RevokeTokens(role, subject), command)


@blp.route("/players/<player_id>/token")
class PlayerToken(MethodView):
    @require("operator", self_param="player_id", scope="players:write")
    @blp.operation("issuePlayerToken", 404, 409)
    @blp.response(201, TokenSchema)
    def post(self, player_id: str) -> dict[str, Any]:
        """Rotate a player's token: the operator, or the player himself

        His current token stops working at once; the response holds the new one, shown only
        once. Replayed with its `Idempotency-Key`, it issues yet another in place of the one the
        earlier answer carried (`Idempotent-Replayed: true`), which stops working. An erased
        player is issued none (409 `player_erased`).
        """
        return rotate("player", player_id, "RotatePlayerToken")

    @require("operator", scope="players:write")
    @blp.operation("revokePlayerToken", 404)
    @blp.response(204)
    def delete(self, player_id: str) -> None:
        """Revoke a player's token(s): a 401 at once, until the operator issues him a new one"""
        revoke("player", player_id, "RevokePlayerToken")


@blp.route("/auditors/<auditor_id>/token")
class AuditorToken(MethodView):
    @require("operator", scope="auditors:admin")
    @blp.operation("issueAuditorToken", 404)
    @blp.response(201, TokenSchema)
    def post(self, auditor_id: str) -> dict[str, Any]:
        """Rotate an auditor's token

        His current token stops working at once; the response holds the new one, shown only
        once. Replayed with its `Idempotency-Key`, it issues yet another in place of the one the
        earlier answer carried (`Idempotent-Replayed: true`), which stops working.
        """
        return rotate("auditor", auditor_id, "RotateAuditorToken")

    @require("operator", scope="auditors:admin")
    @blp.operation("revokeAuditorToken", 404)
    @blp.response(204)
    def delete(self, auditor_id: str) -> None:
        """Revoke an auditor's token(s): a 401 at once, until the operator issues a new one"""
        revoke("auditor", auditor_id, "RevokeAuditorToken")
