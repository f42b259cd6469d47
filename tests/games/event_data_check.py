"""Every engine event, as each viewer receives it, is of its type's Struct (the `data` the API's
contract gives it: games/event_data.py)."""

from __future__ import annotations

import json

import msgspec

from games.contract import Event
from games.event_data import EventData


def check_typed(event: Event, types: dict[str, type[EventData]]) -> None:
    """`event`'s data, whole and as those who may not read it receive it (its public part), decode
    as JSON into its type's Struct: exactly its keys, each of its type."""
    assert event.type in types, f"{event.type} has no data type in EVENT_DATA"
    shown = [event.data] if event.visible_to is None else [event.data, event.public or {}]
    for data in shown:
        try:
            msgspec.json.decode(json.dumps(dict(data)), type=types[event.type], strict=True)
        except msgspec.ValidationError as e:
            raise AssertionError(f"{event.type} {dict(data)}: {e}") from e
