"""Ledger checks run by the worker, requested and read over the API."""

from __future__ import annotations

import uuid
from typing import Any

from flask import current_app
from flask.views import MethodView
from marshmallow import Schema, fields
from rq.exceptions import DeserializationError, NoSuchJobError
from rq.job import Job

from service.http import db
from service.http.audit_schemas import CheckpointListSchema, CheckpointSchema
from service.http.auth import require
from service.http.blueprint import Blueprint
from service.http.problems import Problem
from service.verification import checkpoints, timestamps
from workers import jobs
from workers.queues import queue

blp = Blueprint("audit", __name__, url_prefix="/v1/audit",
                description="Checks of the whole ledger and digests of the event log.")


class DriftSchema(Schema):
    account = fields.String(required=True)
    projected = fields.Integer(required=True, metadata={"description": "Its balance as projected."})
    from_log = fields.Integer(required=True, metadata={"description": "Its postings' sum in the log."})


class StrandedSchema(Schema):
    account = fields.String(required=True, metadata={"example": "pot:tb_5d1f0c2a9e3b7a61:pot"})
    balance = fields.Integer(required=True)


class LedgerCheckResultSchema(Schema):
    accounts = fields.Integer(required=True)
    total = fields.Integer(required=True, metadata={"description": "The sum of every balance: 0."})
    negative_accounts = fields.Integer(required=True, metadata={
        "description": "Accounts below 0 other than house:issued."})
    drifting_accounts = fields.List(fields.Nested(DriftSchema), required=True)
    stranded_accounts = fields.List(fields.Nested(StrandedSchema), required=True, metadata={
        "description": "Accounts of tables that are over (a seat, a pot, an escrow) that still"
                       " hold treasure: an ended table pays everything out."})
    as_of_position = fields.Integer(required=True)
    ok = fields.Boolean(required=True)


class LedgerCheckSchema(Schema):
    id = fields.String(required=True, metadata={"example": "b7f1c0de-0000-4000-8000-000000000000"})
    status = fields.String(required=True, metadata={"example": "finished"})
    result = fields.Nested(LedgerCheckResultSchema, allow_none=True, metadata={
        "description": "Null until the check has finished."})


# Ledger checks share the queue's job ids with settlements and timeouts: a job is one only if
# its function is, and an id of any other form (RQ reads `<id>:<execution>` as `<id>`) is none.
CHECK_LEDGER = f"{jobs.check_ledger.__module__}.{jobs.check_ledger.__qualname__}"


def _ledger_check(job_id: str) -> Job:
    """The ledger check `job_id`, or 404."""
    missing = Problem(404, "job_not_found", f"no ledger check {job_id}")
    try:
        if str(uuid.UUID(job_id)) != job_id:
            raise missing
        job = Job.fetch(job_id, connection=current_app.extensions["banco.redis"])
        if job.func_name != CHECK_LEDGER:
            raise missing
    except (ValueError, NoSuchJobError, DeserializationError):
        raise missing from None
    return job


def _describe(job: Job) -> dict[str, Any]:
    status = job.get_status()
    # The result only with the status that has one: read after a `started`, it could be that of a
    # check which finished in between, shown as still started.
    finished = status is not None and status.value == "finished"
    return {"id": job.id, "status": str(status.value if status else "unknown"),
            "result": job.return_value() if finished else None}


@blp.route("/ledger-checks")
class LedgerChecks(MethodView):
    @require("operator", "auditor", scope="audit:read")
    @blp.operation("startLedgerCheck")
    @blp.response(202, LedgerCheckSchema)
    def post(self) -> dict[str, Any]:
        """Start a check of the whole ledger: conservation, no negative balance, no drift, nothing
        left at an ended table"""
        config = current_app.config["BANCO"]
        job = queue(current_app.extensions["banco.redis"], config.queue_name).enqueue(
            jobs.check_ledger, job_id=str(uuid.uuid4()), result_ttl=86400)
        return _describe(job)


@blp.route("/ledger-checks/<job_id>")
class LedgerCheck(MethodView):
    @require("operator", "auditor", scope="audit:read")
    @blp.operation("getLedgerCheck", 404)
    @blp.response(200, LedgerCheckSchema)
    def get(self, job_id: str) -> dict[str, Any]:
        """A ledger check's status and, once finished, its result"""
        return _describe(_ledger_check(job_id))


@blp.route("/checkpoints")
class Checkpoints(MethodView):
    @require("operator", "auditor", scope="audit:read")
    @blp.operation("listCheckpoints")
    @blp.response(200, CheckpointListSchema)
    def get(self) -> dict[str, Any]:
        """The latest digests of the event log (Merkle roots up to a watermark), newest first"""
        return {"items": checkpoints.listed(db.conn())}

    @require("operator", scope="audit:write")
    @blp.operation("recordCheckpoint")
    @blp.response(201, CheckpointSchema)
    def post(self) -> dict[str, Any]:
        """Record a digest of the event log now (time-stamped when an authority is configured);
        keep a copy outside the database"""
        found = checkpoints.record(db.conn())
        tsa = current_app.config["BANCO"].tsa_url
        if tsa:
            timestamps.stamp(db.conn(), found, tsa)
        return found
