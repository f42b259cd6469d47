"""Pirate pairs under random legal play (RULES.md §2, 002_ae078369b503c97e.txt)."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

from hypothesis import given, settings

from games import deck
from games.contract import SPECTATOR, IllegalMove, Viewer, payload_secret, redact
from games.pirate_pairs import ENGINE, EVENT_DATA
from tests.games import gwt
from tests.games.event_data_check import check_typed
from tests.games.pirate_pairs_play import (
    Table,
    json_round_trip,
    locations,
    play,
    players,
    tables,
)

DECK = frozenset(deck.pirate_pairs_55())
CARD_STRING = re.compile(r'"(\d+\.\d+)"')
Player = tuple[random.Random, float]
SETTINGS = settings(max_examples=30, deadline=None)


def card_ids(obj: Any) -> set[str]:
    """Every card id anywhere in a JSON value (keys included): they are all quoted strings."""
    return set(CARD_STRING.findall(json.dumps(obj))) & DECK


@given(tables(), players())
@SETTINGS
def test_every_game_ends_with_exactly_one_winner(table: Table, how: Player) -> None:
    """002_ae078369b503c97e.txt: "Le dernier joueur en jeu gagne la partie"."""
    *_, last = play(table, *how)
    final = last.after
    assert ENGINE.is_terminal(final) and ENGINE.turn(final) is None
    still_in = [p for p in ENGINE.view(final, SPECTATOR)["players"] if p["in"]]
    assert len(still_in) == 1
    assert last.events[-1].type == "GameWon"
    assert last.events[-1].data["seat"] == still_in[0]["seat"]


@given(tables(), players())
@SETTINGS
def test_the_55_cards_are_all_accounted_for_at_every_step(table: Table, how: Player):
    """002_ae078369b503c97e.txt: hands, face-up rows, draw pile and discards hold the 55 cards."""
    for step in play(table, *how):
        where = locations(step.after)
        cards = [c for h in where["hands"].values() for c in h]
        cards += [c for r in where["rows"].values() for c in r]
        cards += where["pile"] + where["discards"]
        assert Counter(cards) == Counter(DECK)
        for p in ENGINE.view(step.after, SPECTATOR)["players"]:
            assert p["hand_count"] == len(where["hands"][p["seat"]])
            assert not (where["hands"][p["seat"]] or where["rows"][p["seat"]]) or p["in"]


def allowed(where: dict[str, Any], viewer: Viewer) -> set[str]:
    """The cards `viewer` may see where they lie: face-up rows, discards, his own hand."""
    public = {c for r in where["rows"].values() for c in r} | set(where["discards"])
    return public | (set(where["hands"][viewer.seat]) if viewer.seat is not None else set())


@given(tables(), players())
@SETTINGS
def test_nobody_ever_sees_a_card_he_may_not(table: Table, how: Player) -> None:
    """002_ae078369b503c97e.txt: hands hidden, accusations shown "à vous seul", challenges unseen.

    Event by event, a viewer may see the face-up rows and the discards, a seat also its own
    hand, and the accuser and the accused the accused's cards at the moment of the accusation.
    """
    viewers = [Viewer.at_seat(s.seat) for s in table.seats] + [SPECTATOR]
    for step in play(table, *how):
        state = step.before
        for e in step.events:
            check_typed(e, EVENT_DATA)
            shown: dict[int | None, set[str]] = {}
            if e.type == "PlayerAccused":
                where = locations(state)
                target = e.public["target"]
                cards = set(where["hands"][target]) | set(where["rows"][target])
                shown = {e.public["seat"]: cards, target: cards}
            state = ENGINE.evolve(state, e)
            where = locations(state)
            for viewer in viewers:
                data = dict(redact(e, viewer).data)
                assert card_ids(data) <= allowed(where, viewer) | shown.get(viewer.seat, set())
                assert table.material.server_seed not in json.dumps(data)
        for viewer in viewers:
            seen = ENGINE.view(step.after, viewer)
            assert card_ids(seen) <= allowed(locations(step.after), viewer), viewer
            assert table.material.server_seed not in json.dumps(seen)
        # The move as sent is shown to the others (replays, evidence bundles) unless the game
        # names it secret: an opening card chosen goes face up only once all have chosen.
        if step.payload is not None and payload_secret(ENGINE.info, step.payload):
            # A secret move posts nothing: a bundle never withholds a posting.
            assert not [p for e in step.events for p in e.postings], step.payload
        elif step.payload is not None:
            for viewer in viewers:
                assert card_ids(step.payload) <= allowed(locations(step.after), viewer), (
                    step.payload, viewer)


@given(tables(), players())
@SETTINGS
def test_replaying_the_json_events_gives_the_same_state(table: Table, how: Player):
    """002_ae078369b503c97e.txt: the service stores events as jsonb and replays them."""
    steps = list(play(table, *how))
    events = [json_round_trip(e) for s in steps for e in s.events]
    assert gwt.replay(ENGINE, table.options, events) == steps[-1].after


@given(tables(), players())
@SETTINGS
def test_the_stakes_go_to_the_winner_and_no_account_goes_negative(table: Table,
                                                                  how: Player):
    """002_ae078369b503c97e.txt (RULES.md §2 optional stake): the winner takes the pot."""
    steps = list(play(table, *how))
    balances = Counter({f"seat:{s.seat}": s.balance for s in table.seats})
    postings = [p for s in steps for e in s.events for p in e.postings]
    postings += ENGINE.settle(steps[-1].after)
    for p in postings:
        balances[p.from_account] -= p.amount
        balances[p.to_account] += p.amount
        assert balances[p.from_account] >= 0
    assert balances["pot"] == 0 and balances["escrow"] == 0
    winner = steps[-1].events[-1].data["seat"]
    stake, n = table.options["stake"], len(table.seats)
    assert balances[f"seat:{winner}"] == table.seats[winner].balance + stake * (n - 1)


def random_payload(rnd: random.Random, n: int, hand: list[str]) -> dict[str, Any]:
    """A well-formed action, legal or not."""
    kind = rnd.choice(["choose", "attack", "challenge", "accuse", "draw"])
    card = rnd.choice([*hand, *rnd.sample(sorted(DECK), 2), "11.1"])
    target = rnd.randint(-1, n)
    return {
        "choose": {"type": "choose", "card": card},
        "attack": {"type": "attack", "target": target, "card": card},
        "challenge": {"type": "challenge", "target": target},
        "accuse": {"type": "accuse", "target": target},
        "draw": {"type": "draw"},
    }[kind]


@given(tables(), players())
@SETTINGS
def test_legal_actions_are_exactly_what_decide_accepts(table: Table, how: Player) -> None:
    """002_ae078369b503c97e.txt: every offered move is accepted, any other move is refused."""
    rnd = random.Random(how[0].random())
    n = len(table.seats)
    for step in play(table, *how):
        state = step.after
        if ENGINE.is_terminal(state):
            continue
        where = locations(state)
        for seat in range(-1, n + 1):
            offered = ENGINE.legal_actions(state, seat)
            for action in rnd.sample(offered, min(len(offered), 4)):
                assert ENGINE.decide(state, ENGINE.parse_action(seat, action, 0.0))
            for _ in range(3):
                payload = random_payload(rnd, n, where["hands"].get(seat, []))
                if payload in offered:
                    continue
                try:
                    ENGINE.decide(state, ENGINE.parse_action(seat, payload, 0.0))
                except IllegalMove:
                    continue
                raise AssertionError(f"seat {seat} may play {payload} though it is not offered")
