"""How a rules engine's event is kept in the log and read back: `game.<type>`, with its hand, its
data, the seats that may read that data (None: everyone) and what everyone else is shown.

One codec for all who meet these records: the table commands that append them, the projections
and audits that fold them back into engine states, and the rules check that compares what an
engine decides again with what was kept.
"""

from __future__ import annotations

from typing import Any

from events.catalog import GAME_EVENT_PREFIX
from events.model import NewEvent, StoredEvent
from games.contract import Event


def record_data(hand_id: str | None, event: Event) -> dict[str, Any]:
    """The payload of `event`'s record (a `GameEvent` of the catalog)."""
    visible = None if event.visible_to is None else sorted(event.visible_to)
    return {"hand": hand_id, "data": dict(event.data), "visible_to": visible,
            "public": None if event.public is None else dict(event.public)}


def recorded(hand_id: str | None, event: Event, metadata: dict[str, Any]) -> NewEvent:
    """`event` of the hand `hand_id` as the store keeps it."""
    return NewEvent(GAME_EVENT_PREFIX + event.type, record_data(hand_id, event), metadata)


def engine_event(stored: StoredEvent) -> Event:
    """A rules engine's event back from its record."""
    d = stored.data
    visible = None if d["visible_to"] is None else frozenset(d["visible_to"])
    return Event(stored.type[len(GAME_EVENT_PREFIX):], d["data"], visible, d["public"])
