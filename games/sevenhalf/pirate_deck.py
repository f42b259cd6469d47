"""How many seats a Casino pirate deck can serve a whole hand (RULES.md §1c, decided in
games/sevenhalf/rules.md, "The deck's size").

No card goes back into the deck during a hand and a player may ask for as many cards as he
likes: a hand that runs the deck dry leaves the players after it, and the meneur, without the
cards they ask for. The worst a hand can take is counted in points, each card at its least
value (a skeleton's holder may count it 1): a hand under 7½ draws again and one over 7½ stops,
so a hand holds at most 7½ before its last card, and that card adds at most 7. Every hand of
a deck worth more than (seats - 1) x 14½ + 7½ therefore busts or stands before the deck runs
out, whatever its order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import ValidationError, validates_schema

from games.sevenhalf.cards import SEVEN_HALF
from games.sevenhalf.options import PirateOptionsV2

SEATS = 8  # the most a Casino pirate table seats (PirateEngine.info.max_players)
LAST_CARD = 14  # the most a card adds, in half-points: a gem 7
# Each card at its least value in half-points: a gem v is 2v, a gold coin ½, a pebble 0, a
# skeleton 1 point.
GEMS_WORTH = sum(2 * v for v in range(1, 8))
GOLD_WORTH, PEBBLE_WORTH, SKELETON_WORTH = 1, 0, 2


def worth(options: Mapping[str, Any]) -> int:
    """The deck's total in half-points, each card at its least value."""
    return (int(options["gems"]) * GEMS_WORTH + int(options["gold_coins"]) * GOLD_WORTH
            + int(options["pebbles"]) * PEBBLE_WORTH + int(options["skeletons"]) * SKELETON_WORTH)


def needed(seats: int) -> int:
    """The least a deck must be worth, in half-points, for every hand of `seats` seats (the
    meneur's included) to bust or stand before it runs out."""
    return (seats - 1) * (SEVEN_HALF + LAST_CARD) + SEVEN_HALF + 1


def shortfall(options: Mapping[str, Any], seats: int) -> str | None:
    """Why the deck of `options` cannot serve a hand of `seats` seats, or None when it can."""
    have, need = worth(options), needed(seats)
    if have >= need:
        return None
    return (f"the deck (gems {options['gems']}, gold_coins {options['gold_coins']}, pebbles"
            f" {options['pebbles']}, skeletons {options['skeletons']}) is worth {_points(have)}"
            f" points, each card at its least; a hand of {seats} seats needs a deck worth at least"
            f" {_points(need)}, or a player may draw the cards the others, and the meneur, are"
            " still to ask for (no card is reshuffled in)")


def _points(half_points: int) -> str:
    return f"{half_points // 2}" + ("½" if half_points % 2 else "")


class PirateOptionsV4(PirateOptionsV2):
    """Casino pirate from rules version 4: a deck that serves a whole hand at a full table."""

    @validates_schema
    def _deck_serves_a_full_table(self, data: dict[str, Any], **_: Any) -> None:
        why = shortfall(data, SEATS)
        if why is not None:
            raise ValidationError(why, "gems")
