"""Table options of Pirate pairs (RULES.md §2) and their validated, typed form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import marshmallow
from marshmallow import fields, validate

MIN_PLAYERS = 2
MAX_PLAYERS = 8


class OptionsSchema(marshmallow.Schema):
    """`stake` paid by every player into the pot at the start; `turn_timeout_s` per turn."""

    stake = fields.Integer(load_default=0, strict=True, validate=validate.Range(min=0, max=1_000_000))
    turn_timeout_s = fields.Integer(load_default=60, strict=True, validate=validate.Range(min=1, max=86_400))


@dataclass(frozen=True)
class Options:
    """The loaded options a hand runs with."""

    stake: int = 0
    turn_timeout_s: int = 60


# Made once (its declared fields copied), loaded from any thread as webargs' schemas are.
_SCHEMA = OptionsSchema()


def load_options(raw: Mapping[str, Any] | Options | None) -> Options:
    """Validated options with defaults; raises `marshmallow.ValidationError` on bad input."""
    if isinstance(raw, Options):
        return raw
    loaded = _SCHEMA.load(dict(raw or {}))
    return Options(stake=loaded["stake"], turn_timeout_s=loaded["turn_timeout_s"])
