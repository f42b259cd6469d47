"""Every state the property tests visit goes through its stored form (projections/snapshots.py)."""

from __future__ import annotations

from typing import Any

from projections import snapshots


def round_trips(state: Any) -> None:
    """The state's snapshot decodes to an equal state, which encodes to the same bytes."""
    stored = snapshots.encode(state)
    back = snapshots.decode(type(state), stored)
    assert back == state, f"{stored!r} decodes to another state"
    assert snapshots.encode(back) == stored
