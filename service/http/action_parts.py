"""What the games' action schemas share: the optional `seat` of every action, actions without
parameters, and the numeric range an offered action leaves to the client."""

from __future__ import annotations

from marshmallow import fields

from service.http.unions import Strict, tag


class RangeSchema(Strict):
    """Any whole number from `min` to `max`, both included."""

    min = fields.Integer(required=True)
    max = fields.Integer(required=True)


class SeatedSchema(Strict):
    seat = fields.Integer(metadata={"description": "Your seat, if you name it."})


def plain(kind: str) -> type[SeatedSchema]:
    """The schema of an action with no parameter."""
    name = "".join(w.title() for w in kind.split("_")) + "ActionSchema"
    return type(name, (SeatedSchema,), {"type": tag(kind)})
