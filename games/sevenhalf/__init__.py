"""The seven-and-a-half family: Sette e mezzo, Siete y media and Casino pirate (RULES.md §1)."""

from __future__ import annotations

from games.contract import Engine
from games.sevenhalf.event_data import EVENT_DATA
from games.sevenhalf.pirate import ENGINE as PIRATE_V1
from games.sevenhalf.pirate import ENGINE_V2 as PIRATE_V2
from games.sevenhalf.pirate import ENGINE_V3 as PIRATE_V3
from games.sevenhalf.pirate import ENGINE_V4 as PIRATE
from games.sevenhalf.sette import ENGINE as SETTE
from games.sevenhalf.siete import ENGINE as SIETE

ENGINES: dict[str, Engine] = {"sette-e-mezzo": SETTE, "siete-y-media": SIETE,
                              "casino-pirate": PIRATE}
# Older rules versions still served, for the tables created with them (games/registry.py).
SUPERSEDED: tuple[Engine, ...] = (PIRATE_V1, PIRATE_V2, PIRATE_V3)

__all__ = ["ENGINES", "EVENT_DATA", "SUPERSEDED"]
