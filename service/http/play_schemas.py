"""The games in the API, all together: a table's `view` is one game's view (told apart by
`game`), each of its `legal_actions` and each action sent is one game's action (by `type`).
Each game's own unions are components too, so a client can be generated for one game."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from apispec import APISpec
from marshmallow import Schema

from service.http import cassino_schemas as cassino
from service.http import pirate_pairs_schemas as pirate_pairs
from service.http import sevenhalf_schemas as sevenhalf
from service.http.unions import Alternatives, Union

GAME_UNIONS: tuple[type[Union], ...] = (
    sevenhalf.SetteEMezzoLegalActionSchema, sevenhalf.SetteEMezzoActionSchema,
    sevenhalf.SieteYMediaLegalActionSchema, sevenhalf.SieteYMediaActionSchema,
    sevenhalf.CasinoPirateLegalActionSchema, sevenhalf.CasinoPirateActionSchema,
    pirate_pairs.PiratePairsActionSchema, cassino.CassinoActionSchema,
)
OFFERED = (sevenhalf.SetteEMezzoLegalActionSchema, sevenhalf.SieteYMediaLegalActionSchema,
           sevenhalf.CasinoPirateLegalActionSchema, pirate_pairs.PiratePairsActionSchema,
           cassino.CassinoActionSchema)
SENT = (sevenhalf.SetteEMezzoActionSchema, sevenhalf.SieteYMediaActionSchema,
        sevenhalf.CasinoPirateActionSchema, pirate_pairs.PiratePairsActionSchema,
        cassino.CassinoActionSchema)


def merged(unions: Iterable[type[Union]]) -> dict[str, type[Schema]]:
    """Every game's alternatives by type: games that share a type share its schema."""
    out: dict[str, type[Schema]] = {}
    for union in unions:
        for kind, schema in union.alternatives.items():
            assert out.setdefault(kind, schema) is schema, f"two schemas for {kind!r}"
    return out


class ViewSchema(Union):
    """The hand in play (or the last one) as you may see it: its game's view."""

    tag = "game"
    alternatives: ClassVar[Alternatives] = {
        "sette-e-mezzo": sevenhalf.SetteEMezzoViewSchema,
        "siete-y-media": sevenhalf.SieteYMediaViewSchema,
        "casino-pirate": sevenhalf.CasinoPirateViewSchema,
        "pirate-pairs": pirate_pairs.PiratePairsViewSchema,
        "cassino": cassino.CassinoViewSchema,
    }


class LegalActionSchema(Union):
    """An action open to you: sent back as it is, but for each `{min, max}` range, for which
    you send a whole number in it (and `declare`, where you send any of its cards)."""

    alternatives: ClassVar[Alternatives] = merged(OFFERED)


class ActionSchema(Union):
    """`{"type": ..., ...parameters}`, one of your `legal_actions` with its ranges chosen."""

    alternatives: ClassVar[Alternatives] = merged(SENT)


def register(spec: APISpec) -> None:
    """Each game's unions as components of their own."""
    for union in GAME_UNIONS:
        name = union.__name__.removesuffix("Schema")
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=union)
