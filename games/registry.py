"""Every playable game by its public name, and the page that tells its rules."""

from __future__ import annotations

from importlib import resources
from types import ModuleType

from games.contract import Engine


def _families() -> tuple[ModuleType, ...]:
    from games import cassino, pirate_pairs, sevenhalf

    return sevenhalf, pirate_pairs, cassino


def engines() -> dict[str, Engine]:
    """The engines of every game family, keyed by the name clients use."""
    return {name: engine for family in _families() for name, engine in family.ENGINES.items()}


def rules(name: str) -> str:
    """The rules page (Markdown) of the game `name`: its family's `rules.md`, shipped in the
    package so that an installed Banco serves it; KeyError for a game there is not."""
    for family in _families():
        if name in family.ENGINES:
            return (resources.files(family) / "rules.md").read_text(encoding="utf-8")
    raise KeyError(name)
