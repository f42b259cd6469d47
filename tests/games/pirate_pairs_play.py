"""Random legal play of whole Pirate pairs games, for the property tests."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from games.contract import AUDITOR, Event, Json, SeatInfo, SeedMaterial
from games.pirate_pairs import ENGINE
from games.pirate_pairs.state import State
from tests.games.snapshot_check import round_trips

RISKY = frozenset({"accuse", "challenge"})


@dataclass(frozen=True)
class Table:
    """Everything a game depends on: seats, options and seeds."""

    seats: tuple[SeatInfo, ...]
    options: dict[str, int]
    material: SeedMaterial


@st.composite
def tables(draw: Callable[..., Any]) -> Table:
    """2 to 8 players with random ages, balances that cover the stake, random seeds."""
    n = draw(st.integers(2, 8))
    stake = draw(st.integers(0, 3))
    seats = tuple(
        SeatInfo(i, f"p{i}", draw(st.integers(stake, stake + 5)),
                 age=draw(st.one_of(st.none(), st.integers(18, 25))))
        for i in range(n)
    )
    material = SeedMaterial(draw(st.binary(min_size=32, max_size=32)).hex(),
                            tuple(draw(st.lists(st.text(max_size=4), min_size=n, max_size=n))))
    options = {"stake": stake, "turn_timeout_s": draw(st.integers(1, 120))}
    return Table(seats, options, material)


@st.composite
def players(draw: Callable[..., Any]) -> tuple[random.Random, float]:
    """A seeded random player and how much he likes risky moves."""
    return random.Random(draw(st.integers(0, 2**32))), draw(st.sampled_from([0.01, 0.1, 0.5]))


@dataclass(frozen=True)
class Step:
    """One command applied: the state before, the events, the state after."""

    before: State
    command: Any
    events: list[Event]
    after: State
    payload: Json | None = None  # the action as its client sent it; None for a timeout


def json_round_trip(event: Event) -> Event:
    """The event as the service stores and reloads it (jsonb)."""
    data = json.loads(json.dumps(event.data))
    public = json.loads(json.dumps(event.public)) if event.public is not None else None
    return Event(event.type, data, event.visible_to, public, event.postings)


def acting_seat(state: State, rnd: random.Random) -> int:
    """Anyone still choosing (they choose at the same time), else the seat to play."""
    turn = ENGINE.turn(state)
    assert turn is not None
    if turn.waiting_for == "choose":
        waiting = [p.seat for p in state.players if ENGINE.legal_actions(state, p.seat)]
        return rnd.choice(waiting)
    return turn.seat


def pick(actions: list[Json], rnd: random.Random, risk: float) -> Json:
    """A random action, risky moves weighted down so that piles run out and get reshuffled."""
    weights = [risk if a["type"] in RISKY else 1.0 for a in actions]
    return rnd.choices(actions, weights)[0]


def play(table: Table, rnd: random.Random, risk: float = 0.3,
         max_steps: int = 3000) -> Iterator[Step]:
    """Start the game, then apply random legal actions (and some timeouts) until it ends."""
    state = ENGINE.initial_state(table.options)
    opening = ENGINE.start(table.options, table.seats, table.material, now=0.0)
    after = state
    for e in opening:
        after = ENGINE.evolve(after, e)
        round_trips(after)
    yield Step(state, None, opening, after)
    state = after
    for step in range(1, max_steps + 1):
        if ENGINE.is_terminal(state):
            return
        now = float(step)
        seat = acting_seat(state, rnd)
        payload = None
        if rnd.random() < 0.1:
            command = ENGINE.timeout(state, now)
        else:
            # Past a while only risky moves are weighed, so that every run ends.
            weight = risk if step < max_steps // 2 else 1e6
            action = pick(ENGINE.legal_actions(state, seat), rnd, weight)
            payload = json.loads(json.dumps(action))
            command = ENGINE.parse_action(seat, payload, now)
        events = ENGINE.decide(state, command)
        after = state
        for e in events:
            after = ENGINE.evolve(after, e)
            round_trips(after)
        yield Step(state, command, events, after, payload)
        state = after
    raise AssertionError(f"no winner after {max_steps} moves")


def locations(state: State) -> dict[str, Any]:
    """Where every card is, read from the auditor's view."""
    v = ENGINE.view(state, AUDITOR)
    return {
        "hands": {p["seat"]: p["hand"] for p in v["players"]},
        "rows": {p["seat"]: p["row"] for p in v["players"]},
        "pile": v["pile"],
        "discards": v["discards"],
    }
