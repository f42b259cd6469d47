"""Every playable game by its public name."""

from __future__ import annotations

from games.contract import Engine


def engines() -> dict[str, Engine]:
    """The engines of every game family, keyed by the name clients use."""
    from games import cassino, pirate_pairs, sevenhalf

    return {**sevenhalf.ENGINES, **pirate_pairs.ENGINES, **cassino.ENGINES}
