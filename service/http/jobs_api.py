"""The service's queues as `banco jobs` shows them (the queue and its webhooks' lane, as
`GET /metrics` counts them): lengths, failed jobs and workers, and failed jobs put back on their
queue."""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask.views import MethodView
from marshmallow import Schema, fields, validate
from rq.job import Job

from service.http.auth import require
from service.http.blueprint import Blueprint
from service.http.problems import Problem
from workers import jobs_report

blp = Blueprint("jobs", __name__, url_prefix="/v1/jobs",
                description="The service's queues: their jobs, failed ones and workers.")


class JobsQuerySchema(Schema):
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=200), metadata={
        "description": "How many of the failed jobs to list, latest failures first."})


class FailedJobSchema(Schema):
    id = fields.String(required=True)
    queue = fields.String(required=True, metadata={
        "description": "The queue it failed on: the queue's own, or its webhooks' lane.",
        "example": "banco"})
    call = fields.String(required=True, metadata={"example": "workers.jobs.check_ledger()"})
    error = fields.String(required=True, metadata={"description": "The last line of its error."})


class WorkerSchema(Schema):
    name = fields.String(required=True)
    state = fields.String(required=True, metadata={"example": "idle"})
    queues = fields.List(fields.String(), required=True, metadata={
        "description": "The queues it takes jobs from: the queue's own, and its webhooks' lane"
                       " (`<queue>-webhooks`), which each worker works in a thread of its own"
                       " and `banco worker --webhooks` alone.",
        "example": ["banco-webhooks"]})


class QueueSchema(Schema):
    name = fields.String(required=True, metadata={"example": "banco-webhooks"})
    queued = fields.Integer(required=True)
    scheduled = fields.Integer(required=True)
    started = fields.Integer(required=True)
    failed = fields.Integer(required=True)
    workers = fields.Integer(required=True, metadata={
        "description": "Workers alive on this queue (one working both is counted on each)."})


class JobsSchema(Schema):
    queue = fields.String(required=True, metadata={"example": "banco"})
    queued = fields.Integer(required=True, metadata={"description": "The queue's own (as"
                                                     " `scheduled`, `started` and `failed`);"
                                                     " every queue's are in `queues`."})
    scheduled = fields.Integer(required=True)
    started = fields.Integer(required=True)
    failed = fields.Integer(required=True)
    queues = fields.List(fields.Nested(QueueSchema), required=True, metadata={
        "description": "Every queue the service runs, the queue's own first, then its webhooks'"
                       " lane (`<queue>-webhooks`): the queues `GET /metrics` reports."})
    failed_jobs = fields.List(fields.Nested(FailedJobSchema), required=True, metadata={
        "description": "The failed jobs of every queue, the queue's own first, at most `limit`."})
    workers = fields.List(fields.Nested(WorkerSchema), required=True, metadata={
        "description": "Every worker alive on the queue or its webhooks' lane, the queue's"
                       " first: a `banco worker` process runs one on each."})


class RequeuedSchema(Schema):
    id = fields.String(required=True)
    status = fields.String(required=True, metadata={"example": "queued"})


def _redis() -> Any:
    return current_app.extensions["banco.redis"]


def _queue_name() -> str:
    return current_app.config["BANCO"].queue_name


@blp.route("")
class Jobs(MethodView):
    @require("operator", "auditor", scope="jobs:read")
    @blp.operation("listJobs")
    @blp.arguments(JobsQuerySchema, location="query")
    @blp.response(200, JobsSchema)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """The queues' lengths, their failed jobs with their errors, and their workers"""
        return jobs_report.report(_redis(), _queue_name(), query["limit"])


@blp.route("/<job_id>/requeue")
class Requeue(MethodView):
    @require("operator", scope="jobs:admin")
    @blp.operation("requeueJob", 404, 409)
    @blp.response(200, RequeuedSchema)
    def post(self, job_id: str) -> dict[str, Any]:
        """Put a failed job back on its queue (409 `job_not_failed` for a job that has not failed)"""
        if jobs_report.failed_in(_redis(), _queue_name(), job_id) is None:
            if Job.exists(job_id, connection=_redis()):
                raise Problem(409, "job_not_failed", f"job {job_id} has not failed")
            raise Problem(404, "job_not_found", f"no job {job_id}")
        jobs_report.requeue(_redis(), _queue_name(), [job_id])
        status = Job.fetch(job_id, connection=_redis()).get_status()
        return {"id": job_id, "status": str(status.value if status else "unknown")}
