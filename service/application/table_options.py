"""The options a new table plays with: a listed variant's options, the client's, the defaults."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import ValidationError

from games.contract import Engine
from service.application.errors import Invalid


def table_options(engine: Engine, variant: str | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """The validated options, defaults filled in, of a table created with `variant` (a name
    `GET /v1/games` lists, standing for the options it lists with it) and `options`."""
    listed = engine.info.variants
    sets: Mapping[str, Any] = {}
    if variant is not None:
        if variant not in listed:
            raise Invalid("unknown_variant",
                          f"{engine.info.name} has no variant {variant!r}; see GET /v1/games",
                          variants=list(listed))
        sets = listed[variant]
        clash = sorted(k for k, v in sets.items() if k in options and options[k] != v)
        if clash:
            raise Invalid("variant_conflict",
                          f"variant {variant!r} sets {', '.join(clash)} otherwise than the options",
                          variant_options=dict(sets))
    try:
        return dict(engine.options_schema().load({**options, **sets}))
    except ValidationError as e:
        raise Invalid("invalid_options", "the options do not fit this game",
                      errors={"options": e.messages}) from e
