"""Who the caller's token speaks for: what a client (a page, say) shows as signed in."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields

from service.application.principal import BOOTSTRAP_KEY_ID
from service.application.scopes import SCOPES
from service.http import db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint

blp = Blueprint("me", __name__, url_prefix="/v1/me",
                description="The caller: the role and id its token speaks for.")


class MeSchema(Schema):
    role = fields.String(required=True, metadata={"enum": ["operator", "auditor", "player"],
                                                  "example": "player"})
    id = fields.String(required=True, metadata={
        "description": "The player's or auditor's id; for the operator, his key's id, or"
                       " `operator` with the bootstrap key.",
        "example": "pl_3f9a1c2b7d4e5f60"})
    name = fields.String(required=True, allow_none=True, metadata={
        "description": "The player's or auditor's name, or the operator key's; null for the"
                       " bootstrap key (and for an auditor registered before names were kept).",
        "example": "Ada"})
    key_id = fields.String(required=True, allow_none=True, metadata={
        "description": "The id of the token or key sent (`tk_...`, `ok_...`, `bootstrap`):"
                       " what log lines and events name it by. Never the secret.",
        "example": "tk_3f9a1c2b7d4e5f60"})
    scopes = fields.List(fields.String(), required=True, metadata={
        "description": "What the operator's key may do (every scope for the bootstrap key);"
                       " empty for players and auditors, whose role decides.",
        "example": []})


_NAMES = {"player": "SELECT name FROM players WHERE player_id = %s",
          "auditor": "SELECT name FROM auditors WHERE auditor_id = %s",
          "operator": "SELECT name FROM operator_keys WHERE key_id = %s"}


@blp.route("")
class Me(MethodView):
    @require("operator", "auditor", "player")
    @blp.operation("getMe")
    @blp.response(200, MeSchema)
    def get(self) -> dict[str, Any]:
        """The role and id of the token sent, the name of whom it speaks for, and what an
        operator's key may do"""
        who = principal()
        name = None
        if who.key_id != BOOTSTRAP_KEY_ID:
            row = db.conn().execute(_NAMES[who.role], (who.subject,)).fetchone()
            name = row[0] if row else None
        scopes = [s for s in SCOPES if who.role == "operator" and s in who.scopes]
        return {"role": who.role, "id": who.subject, "name": name, "key_id": who.key_id,
                "scopes": scopes}
