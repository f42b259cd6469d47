"""Given events / when command / then events: the one helper game tests use."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from games.contract import Engine, Event
from tests.games.snapshot_check import round_trips


def replay(engine: Engine, options: Mapping[str, Any], events: Iterable[Event]) -> Any:
    """The state after folding `events` into the engine's initial state."""
    state = engine.initial_state(options)
    for event in events:
        state = engine.evolve(state, event)
        round_trips(state)
    return state


def when(engine: Engine, options: Mapping[str, Any], given: Iterable[Event], command: Any) -> list[Event]:
    """The events `command` produces after `given`; raises what `decide` raises."""
    return engine.decide(replay(engine, options, given), command)
