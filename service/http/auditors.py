"""Auditors: read everything, change nothing."""

from __future__ import annotations

import secrets
from typing import Any

from flask.views import MethodView

from events.model import NewEvent
from service.http import db, tokens
from service.http.auth import require
from service.http.blueprint import Blueprint
from service.http.context import metadata, store
from service.http.problems import Problem
from service.http.schemas import AuditorCreatedSchema, AuditorCreateSchema, AuditorSchema

blp = Blueprint("auditors", __name__, url_prefix="/v1/auditors",
                description="Read-only credentials for auditors.")


@blp.route("")
class Auditors(MethodView):
    @require("operator")
    @blp.operation("createAuditor")
    @blp.arguments(AuditorCreateSchema)
    @blp.response(201, AuditorCreatedSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register an auditor; the response holds his token, shown only once

        The token is stored only hashed. Replayed with its `Idempotency-Key`, the request issues
        a new token in place of the one the earlier answer carried, which stops working
        (`Idempotent-Replayed: true`): the last answer received holds the working token.
        """
        auditor_id = "au_" + secrets.token_hex(8)
        c = db.conn()
        event = NewEvent("AuditorRegistered", {"auditor_id": auditor_id, "name": body["name"]},
                         metadata("RegisterAuditor"))
        issued, token_event = tokens.issue("auditor", auditor_id, "RegisterAuditor")
        [registered, _] = store().append(tokens.stream("auditor", auditor_id),
                                         [event, token_event], 0, conn=c)
        c.execute("INSERT INTO auditors (auditor_id, name, created_at) VALUES (%s, %s, %s)",
                  (auditor_id, body["name"], registered.recorded_at))
        return {"id": auditor_id, "name": body["name"], "token": issued["token"]}


@blp.route("/<auditor_id>")
class Auditor(MethodView):
    @require("operator", "auditor")
    @blp.operation("getAuditor", 404)
    @blp.response(200, AuditorSchema)
    def get(self, auditor_id: str) -> dict[str, Any]:
        """An auditor"""
        row = db.conn().execute("SELECT auditor_id, name, created_at FROM auditors"
                                " WHERE auditor_id = %s", (auditor_id,)).fetchone()
        if row is None:
            raise Problem(404, "auditor_not_found", f"no auditor {auditor_id}")
        return {"id": row[0], "name": row[1], "created_at": row[2]}
