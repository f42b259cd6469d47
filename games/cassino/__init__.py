"""Cassino (RULES.md §3): the fishing game with captures, builds and sweeps, in three variants."""

from __future__ import annotations

from games.cassino.engine import ENGINE, CassinoEngine
from games.cassino.event_data import EVENT_DATA
from games.contract import Engine

ENGINES: dict[str, Engine] = {"cassino": ENGINE}

__all__ = ["ENGINE", "ENGINES", "EVENT_DATA", "CassinoEngine"]
