"""Every playable game by its public name."""

from __future__ import annotations

from games.contract import Engine

ENGINES: dict[str, Engine] = {}


def register(name: str, engine: Engine) -> None:
    """Add an engine under its public name (done once, by the game module's import)."""
    ENGINES[name] = engine
