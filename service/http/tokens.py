"""Bearer tokens of players and auditors over HTTP: rotated, revoked and reissued in the
request's transaction, by the application's token changes (`service.commands.tokens`).

Each change is appended to the subject's stream (`player-<id>`, `auditor-<id>`) with the
subject's row locked, so two changes of one subject's tokens queue and a rotation leaves exactly
one token alive.
"""

from __future__ import annotations

from typing import Any

from flask import g
from flask.views import MethodView

from events.model import NewEvent
from service.commands import notify
from service.commands import tokens as commands
from service.commands.tokens import Holder, stream
from service.http import db
from service.http.auth import require
from service.http.blueprint import Blueprint
from service.http.context import metadata, store
from service.http.problems import Problem
from service.http.schemas import TokenSchema

blp = Blueprint("tokens", __name__, url_prefix="/v1",
                description="Bearer tokens of players and auditors: rotate and revoke.")


def lock_subject(role: Holder, subject: str) -> bool:
    """Lock the player's or auditor's row for the rest of the request's transaction (404 when
    unknown); whether he was erased."""
    return commands.lock_subject(db.conn(), role, subject)


def issued_ids(role: Holder, subject: str) -> list[str]:
    return commands.issued_ids(db.conn(), role, subject)


def kept(issued: dict[str, Any]) -> dict[str, Any]:
    """`issued`, its id noted for the request's idempotency record, which keeps the token's id,
    never the token (service/http/idempotency.py)."""
    g.issued_token_id = issued["token_id"]
    return issued


def issue(role: Holder, subject: str, command: str) -> tuple[dict[str, Any], NewEvent]:
    """A new token for `subject` (shown once, in the returned dict) and its `TokenIssued` event."""
    issued, event = commands.issue(db.conn(), role, subject, metadata(command))
    return kept(issued), event


def revoke_all(role: Holder, subject: str, command: str) -> list[NewEvent]:
    """Revoke every token of `subject`; a `TokenRevoked` event each."""
    return commands.revoke_all(db.conn(), role, subject, metadata(command))


def append(role: Holder, subject: str, events: list[NewEvent]) -> None:
    if events:
        c = db.conn()
        store().append(stream(role, subject), events, None, conn=c)


def rotate(role: Holder, subject: str, command: str) -> dict[str, Any]:
    """Revoke `subject`'s tokens and issue one in their place (never to an erased player)."""
    if lock_subject(role, subject):
        raise Problem(409, "player_erased", f"{subject} was erased: no token is issued to him")
    revoked = revoke_all(role, subject, command)
    issued, event = issue(role, subject, command)
    append(role, subject, [*revoked, event])
    return issued


def reissue(token_id: str) -> dict[str, Any] | None:
    """Replace the token `token_id` by a new one of the same subject; None if it was revoked.

    For the replay of a response that issued `token_id`: its client may have lost it.
    """
    c = db.conn()
    row = c.execute("SELECT role, subject FROM tokens WHERE token_id = %s", (token_id,)).fetchone()
    if row is None:
        return None
    role, subject = row
    lock_subject(role, subject)
    if c.execute("DELETE FROM tokens WHERE token_id = %s RETURNING 1", (token_id,)).fetchone() is None:
        return None  # revoked or rotated while we waited for the subject's lock
    notify.revoked(c, f"{role}:{subject}")
    revoked = commands.event("TokenRevoked", role, subject, token_id, metadata("ReissueToken"))
    issued, event = issue(role, subject, "ReissueToken")
    append(role, subject, [revoked, event])
    return issued


@blp.route("/players/<player_id>/token")
class PlayerToken(MethodView):
    @require("operator", self_param="player_id")
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

    @require("operator")
    @blp.operation("revokePlayerToken", 404)
    @blp.response(204)
    def delete(self, player_id: str) -> None:
        """Revoke a player's token(s): a 401 at once, until the operator issues him a new one"""
        lock_subject("player", player_id)
        append("player", player_id, revoke_all("player", player_id, "RevokePlayerToken"))


@blp.route("/auditors/<auditor_id>/token")
class AuditorToken(MethodView):
    @require("operator")
    @blp.operation("issueAuditorToken", 404)
    @blp.response(201, TokenSchema)
    def post(self, auditor_id: str) -> dict[str, Any]:
        """Rotate an auditor's token

        His current token stops working at once; the response holds the new one, shown only
        once. Replayed with its `Idempotency-Key`, it issues yet another in place of the one the
        earlier answer carried (`Idempotent-Replayed: true`), which stops working.
        """
        return rotate("auditor", auditor_id, "RotateAuditorToken")

    @require("operator")
    @blp.operation("revokeAuditorToken", 404)
    @blp.response(204)
    def delete(self, auditor_id: str) -> None:
        """Revoke an auditor's token(s): a 401 at once, until the operator issues a new one"""
        lock_subject("auditor", auditor_id)
        append("auditor", auditor_id, revoke_all("auditor", auditor_id, "RevokeAuditorToken"))
