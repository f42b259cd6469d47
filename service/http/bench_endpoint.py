"""Ceilings for HTTP benchmarks, through the app's own request machinery: one INSERT per POST, and
the least any event-sourced move must do.

Registered only when `BANCO_BENCH_ENDPOINTS=1` (`Config.bench_endpoints`): it is not part of the
API, and the default app (and so `openapi.yaml`) never has it. A POST is authenticated like any
other (bearer token, looked up for players and auditors), takes the request's pooled connection,
runs in the request's transaction and commits in `db`'s after-request hook, exactly as a table
action does; only its work differs. `POST /v1/bench/inserts`: one single-row INSERT into a
scratch table. `POST /v1/bench/moves`, the minimal move: lock the caller's row in a scratch
table of tables, insert two events (a move and its deadline) at the versions after the row's into
a copy of the log's table (its columns, defaults, identity and indexes, not its append function,
hash chain or triggers), and write the row's new version back, all in the request's transaction.
"""

from __future__ import annotations

from typing import Any

import psycopg
from flask.views import MethodView
from psycopg.types.json import Jsonb

from service.http import db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint

TABLE = "bench_ceiling"
MOVE_ROWS = "bench_move_tables"
MOVE_EVENTS = "bench_move_events"
_HASH = bytes(32)  # a hash of the right size; computing the chain is the store's work

blp = Blueprint("bench", __name__, url_prefix="/v1/bench",
                description="Benchmark ceiling (only with BANCO_BENCH_ENDPOINTS=1).")


def create_table(conn: psycopg.Connection) -> None:
    """The scratch table the endpoint writes to (the benchmark creates it before a run)."""
    conn.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id bigint GENERATED ALWAYS AS IDENTITY"
                 " PRIMARY KEY, actor text NOT NULL, at timestamptz NOT NULL DEFAULT now())")
    conn.execute(f"CREATE TABLE IF NOT EXISTS {MOVE_ROWS} (actor text PRIMARY KEY,"
                 " version integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())")
    conn.execute(f"CREATE TABLE IF NOT EXISTS {MOVE_EVENTS} (LIKE events INCLUDING ALL)")


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


@blp.route("/moves")
class Moves(MethodView):
    @require("operator", "auditor", "player")
    @blp.operation("benchMove")
    @blp.response(201)
    def post(self) -> dict[str, Any]:
        """Lock the caller's row, insert two events after its version, write its version back"""
        conn, actor = db.conn(), principal().key
        # The row lock serialises moves at one table, as the table's stream row does for actions.
        row = conn.execute(f"SELECT version FROM {MOVE_ROWS} WHERE actor = %s FOR UPDATE",
                           (actor,)).fetchone()
        if row is None:  # the caller's first move: its table's row, locked by the insert
            conn.execute(f"INSERT INTO {MOVE_ROWS} (actor, version) VALUES (%s, 0)", (actor,))
        version = 0 if row is None else int(row[0])
        stream = f"bench-{actor}"
        conn.execute(
            f"INSERT INTO {MOVE_EVENTS} (stream_id, version, type, data, hash)"
            " VALUES (%s, %s, 'game.Moved', %s, %s), (%s, %s, 'DeadlineSet', %s, %s)",
            (stream, version + 1, Jsonb({"hand": "h1", "data": {"seat": 0, "card": version % 40}}),
             _HASH, stream, version + 2,
             Jsonb({"hand": "h1", "seat": 1, "waiting_for": "move", "deadline": 0}), _HASH))
        conn.execute(f"UPDATE {MOVE_ROWS} SET version = %s, updated_at = now() WHERE actor = %s",
                     (version + 2, actor))
        return {"version": version + 2}
