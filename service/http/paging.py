"""Lists that page with `cursor`, as the README says every list does, and that also take the
name their parameter had before (`after` for a table's hands, `before` for disputes)."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import Schema, ValidationError, post_load, validates_schema


class CursorOrFormerName(Schema):
    """A query schema with a `cursor` field and one named `FORMER`, meaning the same: the loaded
    query holds `FORMER` (from whichever was given, else `DEFAULT`). Both at once is refused:
    two places to go on from, and nothing says which one counts."""

    FORMER: ClassVar[str]
    DEFAULT: ClassVar[Any] = None

    @validates_schema
    def _one_place(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("cursor") is not None and data.get(self.FORMER) is not None:
            raise ValidationError(f"Give cursor or {self.FORMER}, not both.", "cursor")

    @post_load
    def _as_former(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        cursor, former = data.pop("cursor"), data.get(self.FORMER)
        place = cursor if cursor is not None else former
        return {**data, self.FORMER: self.DEFAULT if place is None else place}
