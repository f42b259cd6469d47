"""Auditors: read everything, change nothing."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from service.application import auditors
from service.application.auditors import RegisterAuditor
from service.http import db, tokens
from service.http.auth import require
from service.http.blueprint import Blueprint
from service.http.context import handle
from service.http.schemas import AuditorCreatedSchema, AuditorCreateSchema, AuditorSchema

blp = Blueprint("auditors", __name__, url_prefix="/v1/auditors",
                description="Read-only credentials for auditors.")


@blp.route("")
class Auditors(MethodView):
    @require("operator", scope="auditors:admin")
    @blp.operation("createAuditor")
    @blp.arguments(AuditorCreateSchema)
    @blp.response(201, AuditorCreatedSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register an auditor; the response holds his token, shown only once

        The token is stored only hashed. Replayed with its `Idempotency-Key`, the request issues
        a new token in place of the one the earlier answer carried, which stops working
        (`Idempotent-Replayed: true`): the last answer received holds the working token.
        """
        command = RegisterAuditor(body["name"])
        issued = tokens.kept(handle(command))
        return {"id": command.auditor_id, "name": command.name, "token": issued["token"]}


@blp.route("/<auditor_id>")
class Auditor(MethodView):
    @require("operator", "auditor", scope="auditors:admin")
    @blp.operation("getAuditor", 404)
    @blp.response(200, AuditorSchema)
    def get(self, auditor_id: str) -> dict[str, Any]:
        """An auditor"""
        return auditors.load(db.conn(), auditor_id)
