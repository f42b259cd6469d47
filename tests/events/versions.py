"""A test-only earlier schema version of a real event type, and its upcaster.

`TreasurePosted` version 1 here named its `reason` `memo`; version 2 is the catalog's payload.
A registry moved from one to the other is what a release renaming the field would ship.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from events.catalog import Account, Payload, TreasurePosted
from events.types import EventTypes


class TreasurePostedV1(Payload):
    from_: Account = msgspec.field(name="from")
    to: Account
    amount: Annotated[int, Meta(ge=1)]
    memo: Annotated[str, Meta(min_length=1, max_length=200)]
    table: str | None = None
    hand: str | None = None


def memo_to_reason(data: dict[str, Any]) -> dict[str, Any]:
    data["reason"] = data.pop("memo")
    return data


def as_v1(data: dict[str, Any]) -> dict[str, Any]:
    """A current posting's payload as version 1 stored it."""
    old = dict(data)
    old["memo"] = old.pop("reason")
    return old


def before_the_rename(types: EventTypes) -> EventTypes:
    """`types` as a release before the rename had it: TreasurePosted at version 1, with `memo`."""
    types.register("TreasurePosted", TreasurePostedV1)
    return types


def after_the_rename(types: EventTypes) -> EventTypes:
    """`types` with TreasurePosted at version 2 (the catalog's shape) and the upcaster from 1."""
    types.register("TreasurePosted", TreasurePosted, version=2, upcasters={1: memo_to_reason})
    return types
