"""Auditor tokens: read everything, change nothing."""

from __future__ import annotations

import secrets
from typing import Any

from flask.views import MethodView

from service import db
from service.auth import new_token, require
from service.blueprint import Blueprint
from service.schemas import AuditorCreatedSchema, AuditorCreateSchema

blp = Blueprint("auditors", __name__, url_prefix="/v1/auditors",
                description="Read-only credentials for auditors.")


@blp.route("")
class Auditors(MethodView):
    @require("operator")
    @blp.arguments(AuditorCreateSchema)
    @blp.response(201, AuditorCreatedSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Create an auditor token, shown only in this response"""
        auditor_id = "au_" + secrets.token_hex(8)
        token, digest = new_token()
        db.conn().execute(
            "INSERT INTO tokens (token_hash, role, subject) VALUES (%s, 'auditor', %s)",
            (digest, auditor_id),
        )
        return {"id": auditor_id, "name": body["name"], "token": token}
