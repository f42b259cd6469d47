"""Every playable game by its public name, each at every rules version still served, and the page
that tells its rules.

A table plays, for its whole life, the rules version that was current when it was created, and
its hands are verified with that version: so a rule change is a new engine added here beside the
one it replaces (the same `info.name`, `info.version` one higher), and a served engine is never
edited. New tables take a game's highest version.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from types import ModuleType

from games.contract import Engine


class RulesNotServed(LookupError):
    """A game, or a rules version of it, that this Banco does not serve."""


def _families() -> tuple[ModuleType, ...]:
    from games import cassino, pirate_pairs, sevenhalf

    return sevenhalf, pirate_pairs, cassino


def served() -> list[Engine]:
    """Every engine served: each family's older rules versions still served (its `SUPERSEDED`),
    then its games at their current version (`ENGINES`)."""
    return [engine for family in _families()
            for engine in (*getattr(family, "SUPERSEDED", ()), *family.ENGINES.values())]


class Registry:
    """Engines by game and rules version."""

    def __init__(self, engines: Iterable[Engine]) -> None:
        self._games: dict[str, dict[int, Engine]] = {}
        for engine in engines:
            versions = self._games.setdefault(engine.info.name, {})
            if engine.info.version in versions:
                raise ValueError(f"{engine.info.name} rules version {engine.info.version} is"
                                 " registered twice: a changed rule is a new version")
            versions[engine.info.version] = engine

    def engines(self) -> dict[str, dict[int, Engine]]:
        """Every game's engines, by rules version."""
        return {name: dict(versions) for name, versions in sorted(self._games.items())}

    def current_version(self, game: str) -> int:
        """The rules version a table of `game` created now plays."""
        return max(self._versions(game))

    def engine(self, game: str, version: int | None = None) -> Engine:
        """The engine of `game` at rules `version` (the current one when None)."""
        versions = self._versions(game)
        found = versions.get(self.current_version(game) if version is None else version)
        if found is None:
            raise RulesNotServed(f"{game} rules version {version} is not served")
        return found

    def _versions(self, game: str) -> dict[int, Engine]:
        versions = self._games.get(game)
        if not versions:
            raise RulesNotServed(f"no game {game!r}")
        return versions


REGISTRY = Registry(served())


def engines() -> dict[str, dict[int, Engine]]:
    """Every game's engines by rules version, keyed by the name clients use."""
    return REGISTRY.engines()


def current() -> dict[str, Engine]:
    """Each game's engine at its current rules version."""
    return {name: REGISTRY.engine(name) for name in REGISTRY.engines()}


def engine(game: str, version: int | None = None) -> Engine:
    """The engine of `game` at rules `version` (the current one when None); `RulesNotServed` for a
    game or a version there is not."""
    return REGISTRY.engine(game, version)


def current_version(game: str) -> int:
    """The rules version a new table of `game` plays; `RulesNotServed` for no such game."""
    return REGISTRY.current_version(game)


def rules(name: str) -> str:
    """The rules page (Markdown) of the game `name`: its family's `rules.md`, shipped in the
    package so that an installed Banco serves it; KeyError for a game there is not."""
    for family in _families():
        if name in family.ENGINES:
            return (resources.files(family) / "rules.md").read_text(encoding="utf-8")
    raise KeyError(name)


def event_data() -> dict[str, list[type]]:
    """Each engine event type with the Structs of its data (games/event_data.py): one per shape
    the games give events of that type, in the order of the games."""
    out: dict[str, list[type]] = {}
    for family in _families():
        for name, struct in family.EVENT_DATA.items():
            structs = out.setdefault(name, [])
            if struct not in structs:
                structs.append(struct)
    return out
