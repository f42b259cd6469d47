"""Liveness and readiness probes (outside `/v1`, no authentication)."""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView
from marshmallow import Schema, fields

from projections import migrate
from service.http import db
from service.http.blueprint import Blueprint
from service.http.problems import PROBLEM, Problem, ProblemSchema
from workers import jobs_report

blp = Blueprint("probes", __name__, description="Liveness and readiness.")


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})


class ReadySchema(Schema):
    status = fields.String(required=True, metadata={"example": "ready"})
    checks = fields.Dict(keys=fields.String(), values=fields.String(), required=True)


@blp.route("/healthz")
class Health(MethodView):
    @blp.doc(security=[])
    @blp.operation("getHealth")
    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, Any]:
        """The process is up"""
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.doc(security=[])
    @blp.operation("getReadiness")
    @blp.response(200, ReadySchema)
    @blp.alt_response(503, schema=ProblemSchema, content_type=PROBLEM,
                      description="A dependency is down or migrations are pending: `checks` says which")
    def get(self) -> dict[str, Any]:
        """PostgreSQL and Redis reachable, migrations current"""
        checks: dict[str, str] = {}
        try:
            pending = migrate.pending(db.conn())
            checks["postgres"] = "ok"
            checks["migrations"] = "current" if not pending else f"pending: {pending}"
        except Exception as e:  # any failure to reach the database means not ready
            checks["postgres"] = f"down: {type(e).__name__}"
        try:
            connection = current_app.extensions["banco.redis"]
            connection.ping()
            checks["redis"] = "ok"
            # Workers are reported, not required: actions are accepted without them, and their
            # deadlines wait in PostgreSQL for the first worker's sweeper. Those of the queue
            # and of its webhooks' lane, each counted once: `banco worker` runs one of each.
            name = current_app.config["BANCO"].queue_name
            checks["workers"] = jobs_report.alive(jobs_report.workers(connection, name), name)
        except Exception as e:  # any failure to reach Redis means not ready
            checks["redis"] = f"down: {type(e).__name__}"
            checks["workers"] = "unknown"
        if checks.get("postgres") != "ok" or checks.get("migrations") != "current" or checks["redis"] != "ok":
            raise Problem(503, "not_ready", "a dependency is not ready", checks=checks)
        return {"status": "ready", "checks": checks}
