"""Charts of a wallet's balance history, with the same filters and rights as the history."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from marshmallow import fields, validate

from events import ledger
from projections import history
from service.application import chart
from service.http import db
from service.http.auth import require
from service.http.blueprint import Blueprint
from service.http.players import read_player
from service.http.schemas import HistoryQuerySchema


class ChartQuerySchema(HistoryQuerySchema):
    """The history's filters; the chart always covers every matching row."""

    class Meta:
        exclude = ("limit", "cursor")

    width = fields.Integer(load_default=chart.WIDTH,
                           validate=validate.Range(min=chart.MIN_WIDTH, max=chart.MAX_WIDTH),
                           metadata={"description": "The chart's width in pixels: a page asks for"
                                                    " the width it shows it at, so that its labels"
                                                    " keep their size (the height stays 360)."})


blp = Blueprint("charts", __name__, url_prefix="/v1/players",
                description="Charts of players' balance history.")


@blp.route("/<player_id>/balance-history.svg")
class BalanceChart(MethodView):
    @require("operator", "auditor", self_param="player_id", scope="players:read")
    @blp.operation("getBalanceChart", 404)
    @blp.arguments(ChartQuerySchema, location="query")
    @blp.response(200, {"type": "string"}, content_type="image/svg+xml",
                  description="The wallet's balance over time as SVG, times in UTC"
                              " (downsampled past 600 buckets)")
    def get(self, query: dict[str, Any], player_id: str) -> Response:
        """A chart of the wallet's balance over time (filters as for balance-history)"""
        player = read_player(player_id)
        filters = history.Filters(ledger.wallet(player_id), query["since"], query["until"],
                                  query["reason"], query["table"], query["hand"])
        count = history.count(db.reading(), filters)
        rows = ((r[1], r[4], chart.kind(r[3], r[6])) for r in history.stream(db.reading(), filters))
        title = f"Wallet balance of {player['name']} ({player_id})"
        drawn = chart.svg(title, chart.downsample(rows, count), query["width"])
        return Response(drawn, mimetype="image/svg+xml")
