"""Who the caller's token speaks for: what a client (a page, say) shows as signed in."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields

from service.http import db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint

blp = Blueprint("me", __name__, url_prefix="/v1/me",
                description="The caller: the role and id its token speaks for.")


class MeSchema(Schema):
    role = fields.String(required=True, metadata={"enum": ["operator", "auditor", "player"],
                                                  "example": "player"})
    id = fields.String(required=True, metadata={
        "description": "The player's or auditor's id; `operator` for the operator.",
        "example": "pl_3f9a1c2b7d4e5f60"})
    name = fields.String(required=True, allow_none=True, metadata={
        "description": "The player's or auditor's name; null for the operator (and for an"
                       " auditor registered before names were kept).", "example": "Ada"})


_NAMES = {"player": "SELECT name FROM players WHERE player_id = %s",
          "auditor": "SELECT name FROM auditors WHERE auditor_id = %s"}


@blp.route("")
class Me(MethodView):
    @require("operator", "auditor", "player")
    @blp.operation("getMe")
    @blp.response(200, MeSchema)
    def get(self) -> dict[str, Any]:
        """The role and id of the token sent, and the name of whom it speaks for"""
        who = principal()
        name = None
        if who.role in _NAMES:
            row = db.conn().execute(_NAMES[who.role], (who.subject,)).fetchone()
            name = row[0] if row else None
        return {"role": who.role, "id": who.subject, "name": name}
