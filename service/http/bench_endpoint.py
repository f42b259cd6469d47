"""A ceiling for HTTP benchmarks: one INSERT per POST through the app's own request machinery.

Registered only when `BANCO_BENCH_ENDPOINTS=1` (`Config.bench_endpoints`): it is not part of the
API, and the default app (and so `openapi.yaml`) never has it. A POST is authenticated like any
other (bearer token, looked up for players and auditors), takes the request's pooled connection,
runs in the request's transaction and commits in `db`'s after-request hook, exactly as a table
action does; only its work differs: one single-row INSERT into a scratch table.
"""

from __future__ import annotations

from typing import Any

import psycopg
from flask.views import MethodView

from service.http import db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint

TABLE = "bench_ceiling"

blp = Blueprint("bench", __name__, url_prefix="/v1/bench",
                description="Benchmark ceiling (only with BANCO_BENCH_ENDPOINTS=1).")


def create_table(conn: psycopg.Connection) -> None:
    """The scratch table the endpoint writes to (the benchmark creates it before a run)."""
    conn.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id bigint GENERATED ALWAYS AS IDENTITY"
                 " PRIMARY KEY, actor text NOT NULL, at timestamptz NOT NULL DEFAULT now())")


@blp.route("/inserts")
class Inserts(MethodView):
    @require("operator", "auditor", "player")
    @blp.operation("benchInsert")
    @blp.response(201)
    def post(self) -> dict[str, Any]:
        """Insert one row into the scratch table"""
        row = db.conn().execute(f"INSERT INTO {TABLE} (actor) VALUES (%s) RETURNING id",
                                (principal().key,)).fetchone()
        assert row is not None
        return {"id": row[0]}
