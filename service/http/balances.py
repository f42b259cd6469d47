"""Every account's balance at a point of the log: the figures a period's close is made of."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from service.application import balances_at
from service.http import db, exports
from service.http.auth import require
from service.http.blueprint import TEXT, Blueprint
from service.http.feed_schemas import BalancesPageSchema, BalancesQuerySchema
from service.http.problems import Problem

blp = Blueprint("balances", __name__, url_prefix="/v1/balances",
                description="Every account's balance at a position or a time of the log.")


@blp.route("")
class Balances(MethodView):
    @require("operator", "auditor", scope="treasure:read")
    @blp.operation("getBalancesAsOf", 409)
    @blp.arguments(BalancesQuerySchema, location="query")
    @blp.response(200, BalancesPageSchema, content_type="application/json",
                  description="A page of accounts by name; with `Accept: text/csv`, every account"
                  " streamed (constant memory), one a line: account, balance, last_position (an"
                  " account beginning with `=`, `+`, `-`, `@`, a tab or a carriage return after a"
                  " `'`, as a spreadsheet would otherwise run it)")
    @blp.alt_response(200, schema=TEXT, content_type="text/csv", success=True)
    def get(self, query: dict[str, Any]) -> Any:
        """Every account's balance as of a position or a time: JSON pages, or CSV by `Accept`"""
        point = query["as_of"]
        csv = request.accept_mimetypes.best_match(["application/json", "text/csv"]) == "text/csv"
        paged = [name for name in ("limit", "cursor") if name in request.args]
        if csv and paged:
            raise Problem(422, "invalid_input", "text/csv exports every account; limit and cursor"
                          " page the JSON one",
                          errors={"query": {name: ["Pages application/json only."] for name in paged}})
        balances_at.settle(db.conn(), point)
        if csv:
            return exports.streamed(lambda conn: balances_at.csv(conn, point), "text/csv")
        items, next_cursor = balances_at.page(db.conn(), point, query["cursor"], query["limit"])
        return {"as_of": point.shown(), "items": items, "next_cursor": next_cursor}

