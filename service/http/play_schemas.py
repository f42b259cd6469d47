"""The games in the API, all together: a table is one game's (told apart by `game`), with that
game's options, turn, view and `legal_actions`; each action sent is one game's action (by `type`).
Each game's own unions are components, so a client can be generated for one game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from marshmallow import Schema, fields

from games.sevenhalf.options import PirateOptions, SetteOptions, SieteOptions
from service.http import cassino_schemas as cassino
from service.http import pirate_pairs_schemas as pirate_pairs
from service.http import sevenhalf_schemas as sevenhalf
from service.http.unions import Alternatives, AnyOf, Union

# Each game's actions as sent: `ActionSchema` is any of them.
SENT = (sevenhalf.SetteEMezzoActionSchema, sevenhalf.SieteYMediaActionSchema,
        sevenhalf.CasinoPirateActionSchema, pirate_pairs.PiratePairsActionSchema,
        cassino.CassinoActionSchema)


@dataclass(frozen=True)
class GameSchemas:
    """What a table of one game shows, in the document: a table response is typed per game."""

    title: str  # the components' prefix: `SetteEMezzoTable`, ...
    options: type[Schema]
    view: type[Schema]
    legal_action: type[Union]
    waiting_for: tuple[str, ...]  # what a turn of the game waits for
    roles: tuple[str, ...] = ("player",)


SEVENHALF_TURNS = tuple(sevenhalf.WAITING_FOR), tuple(sevenhalf.ROLES)
GAMES: dict[str, GameSchemas] = {
    "sette-e-mezzo": GameSchemas("SetteEMezzo", SetteOptions, sevenhalf.SetteEMezzoViewSchema,
                                 sevenhalf.SetteEMezzoLegalActionSchema, *SEVENHALF_TURNS),
    "siete-y-media": GameSchemas("SieteYMedia", SieteOptions, sevenhalf.SieteYMediaViewSchema,
                                 sevenhalf.SieteYMediaLegalActionSchema, *SEVENHALF_TURNS),
    "casino-pirate": GameSchemas("CasinoPirate", PirateOptions, sevenhalf.CasinoPirateViewSchema,
                                 sevenhalf.CasinoPirateLegalActionSchema, *SEVENHALF_TURNS),
    "pirate-pairs": GameSchemas("PiratePairs", pirate_pairs.PiratePairsOptionsSchema,
                                pirate_pairs.PiratePairsViewSchema,
                                pirate_pairs.PiratePairsActionSchema,
                                tuple(pirate_pairs.WAITING_FOR)),
    "cassino": GameSchemas("Cassino", cassino.CassinoOptionsSchema, cassino.CassinoViewSchema,
                           cassino.CassinoActionSchema, tuple(cassino.WAITING_FOR)),
}


class ViewSchema(Union):
    """The hand in play (or the last one) as you may see it: its game's view."""

    tag = "game"
    alternatives: ClassVar[Alternatives] = {name: game.view for name, game in GAMES.items()}


class ActionSchema(AnyOf):
    """`{"type": ..., ...parameters}`, one of your `legal_actions` with its ranges chosen: an
    action of the table's game (an action several games share is each game's)."""

    unions = SENT
    # The engines judge the rest; the seat named is the service's to check (`Act`), and only a
    # whole number names one (`true` and `1.0` are no seat, and "1" is a 422, not a 403).
    seat = fields.Integer(strict=True)

