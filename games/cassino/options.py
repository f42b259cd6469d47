"""Table options of Cassino and how the game presents itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from marshmallow import Schema, fields, validate

from games.contract import GameInfo

VARIANTS = ("classic", "spades", "draw")
TARGETS = {"classic": 21, "spades": 61, "draw": 21}
MIN_PLAYERS = 2
MAX_PLAYERS = 4


class OptionsSchema(Schema):
    """`variant` picks the rules; `stake` is paid into the pot once, when the first round opens."""

    variant = fields.String(load_default="classic", validate=validate.OneOf(VARIANTS))
    stake = fields.Integer(load_default=0, strict=True,
                           validate=validate.Range(min=0, max=1_000_000))
    turn_timeout_s = fields.Integer(load_default=60, strict=True,
                                    validate=validate.Range(min=5, max=3600))


@dataclass(frozen=True)
class Options:
    """The loaded table options."""

    variant: str = "classic"
    stake: int = 0
    turn_timeout_s: int = 60

    @property
    def target(self) -> int:
        """Points that end the game: 21, or 61 at spades cassino."""
        return TARGETS[self.variant]


# Made once (its declared fields copied), loaded from any thread as webargs' schemas are.
_SCHEMA = OptionsSchema()


def load_options(raw: Mapping[str, Any]) -> Options:
    """Validated options with their defaults (raises marshmallow's ValidationError)."""
    loaded = _SCHEMA.load(dict(raw))
    return Options(loaded["variant"], loaded["stake"], loaded["turn_timeout_s"])


INFO = GameInfo(
    name="cassino",
    title="Cassino",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    variants={v: {"variant": v} for v in VARIANTS},
    rules_source="003_37d90c873e067319.txt",
    extra={"teams": "with 4 players seats 0+2 and 1+3 score together", "targets": TARGETS,
           # Every player pays the stake into the pot when the game is dealt: the service
           # seats nobody with less (422 buy_in_too_low).
           "min_buy_in_option": "stake"},
)
