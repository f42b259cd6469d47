"""Pirate pairs (RULES.md §2): attack, challenge, accuse or draw; the last pirate in wins."""

from __future__ import annotations

from games.contract import Engine
from games.pirate_pairs.engine import ENGINE, PiratePairsEngine
from games.pirate_pairs.event_data import EVENT_DATA

ENGINES: dict[str, Engine] = {"pirate-pairs": ENGINE}

__all__ = ["ENGINE", "ENGINES", "EVENT_DATA", "PiratePairsEngine"]
