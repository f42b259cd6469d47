"""The seven-and-a-half family: Sette e mezzo, Siete y media and Casino pirate (RULES.md §1)."""

from __future__ import annotations

from games.contract import Engine
from games.sevenhalf.sette import ENGINE as SETTE

ENGINES: dict[str, Engine] = {"sette-e-mezzo": SETTE}
