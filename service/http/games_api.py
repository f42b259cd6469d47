"""`GET /v1/games`: every game, its variants and its table options, from the engines."""

from __future__ import annotations

from typing import Any

import marshmallow
from flask.views import MethodView
from marshmallow import fields

from service.commands.handlers import ENGINES
from service.http.auth import require
from service.http.blueprint import Blueprint
from service.http.table_schemas import GameSchema

blp = Blueprint("games", __name__, url_prefix="/v1/games",
                description="The games Banco can run and their table options.")


def _describe(field: fields.Field) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(field).__name__.lower(), "required": field.required}
    default = field.load_default
    if default is not marshmallow.missing and not callable(default):
        out["default"] = default
    for check in field.validators:
        for attr in ("min", "max", "choices"):
            value = getattr(check, attr, None)
            if value is not None:
                out[attr] = list(value) if attr == "choices" else value
    return out


def options_of(schema: type[marshmallow.Schema]) -> dict[str, Any]:
    """Each option with its type, default and limits."""
    return {f.data_key or name: _describe(f) for name, f in schema().fields.items()
            if not f.dump_only}


@blp.route("")
class Games(MethodView):
    @require("operator", "auditor", "player")
    @blp.response(200, GameSchema(many=True))
    def get(self) -> list[dict[str, Any]]:
        """Every game, its variants, player counts and table options with their defaults"""
        return [{"name": name, "title": e.info.title, "min_players": e.info.min_players,
                 "max_players": e.info.max_players, "variants": list(e.info.variants),
                 "variant_options": {k: dict(v) for k, v in e.info.variants.items()},
                 "rules_source": e.info.rules_source, "options": options_of(e.options_schema)}
                for name, e in sorted(ENGINES.items())]
