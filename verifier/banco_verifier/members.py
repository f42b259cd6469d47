"""A bundle read member by member: one it lacks, at any depth, fails the check that reads it,
named by where it sits (`the bundle has no seeds.server_seed`, `... no events[3].hash`), in the
words of the JavaScript verifier (js/members.mjs) and of Banco's own reading of a bundle.

A member read with `[]` is one the check needs; one read with `.get` may be absent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class Missing(Exception):
    """A member the bundle lacks, by where it sits."""


def within(value: Any, where: str) -> Any:
    """`value`, found at `where` in the bundle, read so that a member it lacks is named."""
    if isinstance(value, dict):
        return Members(value, where)
    if isinstance(value, list):
        return Items(value, where)
    return value


class Members(dict):
    """An object of the bundle (the bundle itself at `where` "")."""

    def __init__(self, value: dict, where: str = "") -> None:
        super().__init__(value)
        self.where = where

    def _at(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else str(key)

    def __missing__(self, key: str) -> Any:
        raise Missing(f"the bundle has no {self._at(key)}")

    def __getitem__(self, key: str) -> Any:
        return within(super().__getitem__(key), self._at(key))


class Items(list):
    """A list of the bundle (its events): each item read as a member of its own."""

    def __init__(self, value: list, where: str) -> None:
        super().__init__(value)
        self.where = where

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[n] for n in range(len(self))[index]]
        n = index + len(self) if isinstance(index, int) and index < 0 else index
        return within(super().__getitem__(index), f"{self.where}[{n}]")

    def __iter__(self) -> Iterator[Any]:
        return (self[n] for n in range(len(self)))
