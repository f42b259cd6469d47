"""Cassino under random legal play (RULES.md §3, 003_37d90c873e067319.txt): every rule holds
over random seeds, player counts, variants and stakes."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.cassino import ENGINE, EVENT_DATA
from games.cassino.cards import CARDS, DECK
from games.contract import (
    AUDITOR,
    SPECTATOR,
    Event,
    IllegalMove,
    SeatInfo,
    SeedMaterial,
    Viewer,
    redact,
)
from tests.games.event_data_check import check_typed
from tests.games.gwt import replay
from tests.games.snapshot_check import round_trips

PLAYS = ("CardsCaptured", "BuildMade", "BuildReserved", "BuildExtended", "CardTrailed")


def card_ids(data: Any) -> set[str]:
    """Every card id appearing anywhere in a JSON value."""
    if isinstance(data, str):
        return {data} if data in CARDS else set()
    if isinstance(data, dict):
        return set().union(*(card_ids(v) for v in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(card_ids(v) for v in data)) if data else set()
    return set()


FIELDS = {"capture": ("take",), "build": ("onto", "value"), "reserve": ("onto", "value"),
          "extend": ("build", "value"), "trail": ()}


def canonical(action: dict[str, Any]) -> tuple:
    """What an action means, whatever the order of its items or any extra keys."""
    fields = FIELDS[action["type"]]
    return (action["type"], action["card"],
            *(tuple(sorted(v)) if isinstance(v := action.get(f), list) else v for f in fields))


def near_miss(rng: random.Random, view: dict, seat: int, offered: list[dict]) -> dict:
    """A random action, often a small change to an offered one."""
    ids = [i["id"] for i in view["table"]]
    if offered and rng.random() < 0.6:
        action = json.loads(json.dumps(rng.choice(offered)))
        for key in ("take", "onto"):
            if key in action:
                extra = [i for i in ids if i not in action[key]]
                if extra and rng.random() < 0.5:
                    action[key].append(rng.choice(extra))
                elif len(action[key]) > 1:
                    action[key].pop(rng.randrange(len(action[key])))
        if "value" in action and rng.random() < 0.5:
            action["value"] += rng.choice((-1, 1))
        if rng.random() < 0.3:
            action["card"] = rng.choice(view["hands"][seat]["cards"] or list(DECK))
        return action
    kind = rng.choice(["capture", "build", "reserve", "extend", "trail"])
    card = rng.choice([*view["hands"][seat]["cards"], rng.choice(DECK)])
    items = rng.sample(ids, rng.randint(0, min(4, len(ids))))
    return {"type": kind, "card": card, "take": items, "onto": items,
            "build": rng.choice([*ids, "build-99"]), "value": rng.randint(1, 11)}


class Table:
    """One round driven by random legal play, checking the rules after every step."""

    def __init__(self, n: int, options: dict, material: SeedMaterial, previous: Any = None):
        self.n, self.options = n, options
        seats = [SeatInfo(i, f"p{i}", 50) for i in range(n)]
        self.events = ENGINE.start(options, seats, material, previous=previous)
        self.state = replay(ENGINE, options, self.events)
        round_trips(self.state)
        self.public: set[str] = set()
        self.held: list[set[str]] = [set() for _ in range(n)]
        for e in self.events:
            if e.type == "DealerCardsDrawn":
                self.public |= card_ids(e.data)
        self.check(self.events)

    def step(self, rng: random.Random, thorough: bool) -> None:
        seat = ENGINE.turn(self.state).seat
        offered = ENGINE.legal_actions(self.state, seat)
        assert offered, "the seat to play always has a legal action"
        for other in range(self.n):
            if other != seat:
                assert ENGINE.legal_actions(self.state, other) == []
        if thorough:
            self.check_legal_iff_decide(rng, seat, offered)
        action = rng.choice(offered)
        new = ENGINE.decide(self.state, ENGINE.parse_action(seat, action, 0.0))
        assert new[0].type in PLAYS and new[0].data["card"] == action["card"]
        for e in new:
            self.state = ENGINE.evolve(self.state, e)
            round_trips(self.state)
        self.events += new
        self.check(new if thorough else [])

    def check_legal_iff_decide(self, rng: random.Random, seat: int, offered: list) -> None:
        for action in rng.sample(offered, min(8, len(offered))):
            ENGINE.decide(self.state, ENGINE.parse_action(seat, action, 0.0))
        legal = {canonical(a) for a in offered}
        view = ENGINE.view(self.state, AUDITOR)
        for _ in range(4):
            action = near_miss(rng, view, seat, offered)
            try:
                ENGINE.decide(self.state, ENGINE.parse_action(seat, action, 0.0))
                accepted = True
            except IllegalMove:
                accepted = False
            assert accepted == (canonical(action) in legal), action
        other = (seat + 1) % self.n
        try:
            ENGINE.decide(self.state, ENGINE.parse_action(other, offered[0], 0.0))
            raise AssertionError("a seat played out of turn")
        except IllegalMove as e:
            assert e.code == "not_your_turn"

    def check(self, new: list[Event]) -> None:
        for e in new:
            check_typed(e, EVENT_DATA)
        truth = ENGINE.view(self.state, AUDITOR)
        everywhere = Counter(truth["stock"]["cards"])
        for h in truth["hands"]:
            everywhere.update(h["cards"])
            self.held[h["seat"]] |= set(h["cards"])
        for item in truth["table"]:
            everywhere.update(item["cards"])
            self.public |= set(item["cards"])
        for c in truth["captured"]:
            everywhere.update(c["cards"])
            self.public |= set(c["cards"])
        assert everywhere == Counter(DECK), "all 52 cards, each once"
        viewers = [Viewer.at_seat(s) for s in range(self.n)] + [SPECTATOR]
        for viewer in viewers:
            allowed = self.public | (self.held[viewer.seat] if viewer.seat is not None else set())
            view = ENGINE.view(self.state, viewer)
            assert card_ids(view) <= allowed, f"view leaks to {viewer}"
            for h in view["hands"]:
                assert ("cards" in h) == (h["seat"] == viewer.seat)
            for e in new:
                shown = redact(e, viewer)
                assert card_ids(dict(shown.data)) <= allowed, f"{e.type} leaks to {viewer}"

    def check_round_points(self) -> None:
        scored = self.events[-1].data
        variant = self.options["variant"]
        sides = scored["sides"]
        cards = [[c for s in side["seats"] for c in self.state.captured[s]] for side in sides]
        sweeps = sum(side["points"]["sweeps"] for side in sides)
        taken = [c for pile in cards for c in pile]
        expected = (sweeps + sum(c[0] == "A" for c in taken) + ("2s" in taken)
                    + 2 * ("10d" in taken) + 3 * any(len(p) >= 27 for p in cards)
                    + any(sum(c.endswith("s") for c in p) >= 7 for p in cards))
        if variant == "spades":
            expected += sum(2 if c in ("Js", "2s") else 1 for c in taken if c.endswith("s"))
        total = sum(side["points"]["total"] for side in sides)
        assert total == expected
        if len(taken) == 52 and len(sides) == 2:
            tie = len(cards[0]) == 26
            assert total == 11 - 3 * tie + sweeps + (15 if variant == "spades" else 0)

    def check_json_replay(self) -> None:
        stored = [Event(e.type, json.loads(json.dumps(e.data)), e.visible_to,
                        json.loads(json.dumps(e.public)) if e.public is not None else None)
                  for e in self.events]
        assert replay(ENGINE, self.options, stored) == self.state


def material(seed: int, round_no: int = 0) -> SeedMaterial:
    return SeedMaterial(f"{seed:056x}{round_no:08x}", ("p",))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 4),
       variant=st.sampled_from(["classic", "spades", "draw"]), play=st.integers(0, 2**32))
def test_random_rounds_keep_every_rule(seed, n, variant, play):
    """Cards accounted for, no leak, legal actions iff accepted, points add up, JSON replay."""
    rng = random.Random(play)
    table = Table(n, {"variant": variant}, material(seed))
    while not ENGINE.is_terminal(table.state):
        table.step(rng, thorough=True)
    assert table.events[-1].type == "RoundScored"
    table.check_round_points()
    table.check_json_replay()


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 4),
       variant=st.sampled_from(["classic", "spades", "draw"]), stake=st.integers(0, 7),
       play=st.integers(0, 2**32))
def test_every_game_ends_with_a_winner_who_takes_the_pot(seed, n, variant, stake, play):
    """Rounds follow until one side wins; the pot is paid out and no account goes negative."""
    rng = random.Random(play)
    options = {"variant": variant, "stake": stake}
    balances = {f"seat:{s}": 50 for s in range(n)} | {"pot": 0}
    previous = None
    for round_no in range(40):
        table = Table(n, options, material(seed, round_no), previous)
        while not ENGINE.is_terminal(table.state):
            table.step(rng, thorough=False)
        table.check_round_points()
        postings = [p for e in table.events for p in e.postings] + ENGINE.settle(table.state)
        for p in postings:
            balances[p.from_account] -= p.amount
            balances[p.to_account] += p.amount
            assert balances[p.from_account] >= 0
        previous = table.state
        if ENGINE.table_over(previous, 0.0):
            break
        assert ENGINE.settle(previous) == []
    assert ENGINE.table_over(previous, 0.0), "a game ends with a winner"
    view = ENGINE.view(previous, SPECTATOR)
    winners = view["phase"]["winning_seats"]
    assert max(view["scores"]) >= view["target"] and winners
    assert balances["pot"] == 0 and sum(balances.values()) == 50 * n
    assert all(balances[f"seat:{s}"] == 50 - stake + (stake * n if s in winners else 0)
               for s in range(n)) or len(winners) == 2
