"""`GET /v1/games`: every game, its variants and its table options, from the engines, and each
game's rules page. Public: they describe the games, not anyone's play."""

from __future__ import annotations

from typing import Any

import marshmallow
from flask import Response
from flask.views import MethodView
from marshmallow import fields

from games import registry
from games.contract import Engine
from service.application.errors import NotFound
from service.http.auth import public
from service.http.blueprint import Blueprint
from service.http.table_schemas import GameSchema

blp = Blueprint("games", __name__, url_prefix="/v1/games",
                description="The games Banco can run, their table options and their rules.")


def _describe(field: fields.Field) -> dict[str, Any]:
    # The JSON type it takes, by marshmallow's field it is made from (a game's stricter Boolean
    # is still a boolean).
    kind = next(c for c in type(field).__mro__ if c.__module__ == fields.__name__)
    out: dict[str, Any] = {"type": kind.__name__.lower(), "required": field.required}
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


def _game(name: str, versions: dict[int, Engine]) -> dict[str, Any]:
    """The game as its current version presents it, with every version still served."""
    engine = registry.engine(name)
    return {"name": name, "title": engine.info.title, "min_players": engine.info.min_players,
            "max_players": engine.info.max_players, "variants": list(engine.info.variants),
            "variant_options": {k: dict(v) for k, v in engine.info.variants.items()},
            "rules_source": f"/v1/games/{name}/rules", "options": options_of(engine.options_schema),
            "rules_version": engine.info.version, "rules_versions": sorted(versions)}


def _versions(game: str) -> dict[int, Engine]:
    versions = registry.engines().get(game)
    if versions is None:
        raise NotFound("unknown_game", f"no game {game!r}; see GET /v1/games")
    return versions


@blp.route("")
class Games(MethodView):
    @blp.doc(security=[])
    @public
    @blp.operation("listGames")
    @blp.response(200, GameSchema(many=True))
    def get(self) -> list[dict[str, Any]]:
        """Every game, its variants, player counts and table options with their defaults"""
        return [_game(name, versions) for name, versions in registry.engines().items()]


@blp.route("/<game>")
class Game(MethodView):
    @blp.doc(security=[])
    @public
    @blp.operation("getGame", 404)
    @blp.response(200, GameSchema)
    def get(self, game: str) -> dict[str, Any]:
        """One game, its variants, player counts and table options with their defaults"""
        return _game(game, _versions(game))


@blp.route("/<game>/rules")
class Rules(MethodView):
    @blp.doc(security=[])
    @public
    @blp.operation("getGameRules", 404)
    @blp.response(200, {"type": "string"}, content_type="text/markdown",
                  description="The game's rules page, in Markdown")
    def get(self, game: str) -> Response:
        """The rules of a game as Banco enforces them, in Markdown

        Its table options and what the engine settles where the rule text is silent: the page
        `rules_source` names."""
        _versions(game)
        return Response(registry.rules(game), mimetype="text/markdown")
