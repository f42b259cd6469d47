"""Helpers for the 7½-family tests: a rigged deck and a table that records given events."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest

from games import deck
from games.contract import Engine, Event, IllegalMove, SeatInfo, SeedMaterial
from tests.games import gwt

SEED = SeedMaterial("00" * 31 + "07", ("alice",))


@contextmanager
def rigged(top: Sequence[str], full: bool = True) -> Iterator[None]:
    """Shuffles put `top` first (and, unless `full`, nothing after it)."""
    original = deck.shuffled

    def fake(cards: Sequence[str], material: SeedMaterial, label: str = "deck") -> tuple[str, ...]:
        order = original(cards, material, label)
        if label != "deck" or (not top and full):
            return order
        rest = tuple(c for c in order if c not in top) if full else ()
        return tuple(top) + rest

    with mock.patch.object(deck, "shuffled", fake):
        yield


class Table:
    """One hand under test: `given` events grow with every accepted command."""

    def __init__(self, engine: Engine, options: Mapping[str, Any], given: list[Event]) -> None:
        self.engine, self.options, self.given = engine, dict(options), given

    @property
    def state(self) -> Any:
        return gwt.replay(self.engine, self.options, self.given)

    def when(self, command: Any) -> list[Event]:
        """Run `command`, keep its events as given, return them."""
        events = gwt.when(self.engine, self.options, self.given, command)
        self.given = [*self.given, *events]
        return events

    def refused(self, command: Any) -> str:
        """The IllegalMove code `command` is refused with."""
        with pytest.raises(IllegalMove) as e:
            gwt.when(self.engine, self.options, self.given, command)
        return e.value.code


def open_table(engine: Engine, balances: Sequence[int] = (50, 50, 50), top: Sequence[str] = (),
               options: Mapping[str, Any] | None = None, ages: Sequence[int | None] | None = None,
               previous: Any = None, now: float = 0.0, full: bool = True) -> Table:
    """A hand opened with these balances and the deck starting with `top`."""
    seats = [SeatInfo(i, f"p{i}", b, None if ages is None else ages[i])
             for i, b in enumerate(balances)]
    with rigged(top, full):
        events = engine.start(options or {}, seats, SEED, previous, now)
    return Table(engine, options or {}, list(events))


def types(events: Sequence[Event]) -> list[str]:
    """The event types, in order."""
    return [e.type for e in events]


def only(events: Sequence[Event], kind: str) -> list[Mapping[str, Any]]:
    """The data of the events of one type."""
    return [e.data for e in events if e.type == kind]
