"""Cassino deals and turns (RULES.md §3): players, the dealer draw, deals, rounds, variants."""

from __future__ import annotations

import json

import pytest

from games.cassino import ENGINE, ENGINES
from games.cassino.cards import DECK, draw_rank
from games.contract import AUDITOR, SPECTATOR, Event, IllegalMove, SeatInfo, SeedMaterial, Viewer
from games.deck import commitment, shuffled
from tests.games.gwt import replay

OPTS = {"variant": "classic"}


def seats(n: int, balance: int = 100) -> list[SeatInfo]:
    return [SeatInfo(i, f"p{i}", balance) for i in range(n)]


def material(i: int) -> SeedMaterial:
    return SeedMaterial(f"{i:064x}", ("x",))


def open_round(n: int, i: int = 1, options=OPTS, previous=None) -> list[Event]:
    return ENGINE.start(options, seats(n), material(i), previous=previous)


def play_out(events: list[Event], options=OPTS) -> list[Event]:
    """Every seat lets its time run out until the round is scored."""
    events = list(events)
    state = replay(ENGINE, options, events)
    while not ENGINE.is_terminal(state):
        new = ENGINE.decide(state, ENGINE.timeout(state, 0.0))
        for e in new:
            state = ENGINE.evolve(state, e)
        events += new
    return events


def test_two_three_or_four_players():
    """003_37d90c873e067319.txt: from two to four players."""
    assert ENGINES == {"cassino": ENGINE}
    assert (ENGINE.info.min_players, ENGINE.info.max_players) == (2, 4)
    for n in (1, 5):
        with pytest.raises(IllegalMove) as e:
            open_round(n)
        assert e.value.code == "bad_players"
    for n in (2, 3, 4):
        assert open_round(n)[0].data["players"] == n


def dealer_draws(events: list[Event]) -> list[Event]:
    return [e for e in events if e.type == "DealerCardsDrawn"]


def test_the_lowest_drawn_card_deals():
    """003_37d90c873e067319.txt: each player draws a card; the lowest becomes the dealer."""
    i = next(i for i in range(100) if len(dealer_draws(open_round(3, i))) == 1)
    events = open_round(3, i)
    [draw] = dealer_draws(events)
    top = shuffled(DECK, material(i), "dealer-draw-1")[:3]
    assert [d["card"] for d in draw.data["cards"]] == list(top)
    lowest = min(range(3), key=lambda s: draw_rank(top[s]))
    [chosen] = [e for e in events if e.type == "DealerChosen"]
    assert chosen.data == {"dealer": lowest, "how": "drawn"}


def test_tied_lowest_cards_draw_again():
    """003_37d90c873e067319.txt, Decision: ties for the lowest card redraw."""
    i = next(i for i in range(500) if len(dealer_draws(open_round(4, i))) >= 2)
    events = open_round(4, i)
    first, second = dealer_draws(events)[:2]
    low = min(draw_rank(d["card"]) for d in first.data["cards"])
    tied = [d["seat"] for d in first.data["cards"] if draw_rank(d["card"]) == low]
    assert len(tied) >= 2 and [d["seat"] for d in second.data["cards"]] == tied
    assert second.data["cards"][0]["card"] == shuffled(DECK, material(i), "dealer-draw-2")[0]


def test_four_each_two_at_a_time_clockwise_then_four_to_the_table():
    """003_37d90c873e067319.txt: two rounds of two cards face down, then four face up."""
    events = open_round(3, 7)
    dealer = next(e.data["dealer"] for e in events if e.type == "DealerChosen")
    deals = [e for e in events if e.type == "CardsDealt"]
    order = [(dealer + k) % 3 for k in (1, 2, 3)]
    assert [e.data["seat"] for e in deals] == order * 2
    deck = shuffled(DECK, material(7), "deck")
    assert [c for e in deals for c in e.data["cards"]] == list(deck[:12])
    for e in deals:
        assert e.visible_to == frozenset({e.data["seat"]})
        assert e.public == {"seat": e.data["seat"], "count": 2}
    [table] = [e for e in events if e.type == "TableDealt"]
    assert table.data["cards"] == list(deck[12:16]) and table.visible_to is None
    state = replay(ENGINE, OPTS, events)
    assert ENGINE.turn(state).seat == (dealer + 1) % 3  # the dealer's left starts


def test_the_opening_commits_to_the_seed_and_hides_it():
    """Fair decks: the commitment is public, the seeds and deck order are for auditors only."""
    [started] = [e for e in open_round(2, 3) if e.type == "RoundStarted"]
    assert started.visible_to == frozenset()
    assert started.public["commitment"] == commitment(material(3).server_seed)
    assert {"server_seed", "player_seeds", "deck"}.isdisjoint(started.public)
    assert started.data["server_seed"] == material(3).server_seed


def test_empty_hands_get_four_more_and_the_table_none():
    """003_37d90c873e067319.txt: when hands are empty the dealer deals four more to each."""
    events = open_round(2, 4)
    state = replay(ENGINE, OPTS, events)
    for _ in range(7):
        for e in ENGINE.decide(state, ENGINE.timeout(state, 0.0)):
            state = ENGINE.evolve(state, e)
            events.append(e)
    assert ENGINE.view(state, SPECTATOR)["stock"]["count"] == 40
    new = ENGINE.decide(state, ENGINE.timeout(state, 0.0))
    assert [e.type for e in new[1:]] == ["CardsDealt"] * 4
    state = replay(ENGINE, OPTS, [*events, *new])
    assert [h["count"] for h in ENGINE.view(state, SPECTATOR)["hands"]] == [4, 4]
    assert ENGINE.view(state, SPECTATOR)["stock"]["count"] == 32


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_round_ends_when_the_stock_is_out_and_hands_are_played(n):
    """003_37d90c873e067319.txt: when the stock is exhausted (and hands played) the round ends."""
    events = play_out(open_round(n, 5))
    plays = [e for e in events if e.type in
             ("CardsCaptured", "BuildMade", "BuildReserved", "BuildExtended", "CardTrailed")]
    assert len(plays) == 48 and events[-1].type == "RoundScored"
    state = replay(ENGINE, OPTS, events)
    view = ENGINE.view(state, AUDITOR)
    assert ENGINE.is_terminal(state) and ENGINE.turn(state) is None
    assert view["stock"]["count"] == 0 and all(h["count"] == 0 for h in view["hands"])
    assert sum(c["count"] for c in view["captured"]) == 52


def test_the_deal_passes_left_and_scores_carry_over():
    """003_37d90c873e067319.txt: the next round is dealt by the player left of the dealer."""
    first = replay(ENGINE, OPTS, play_out(open_round(3, 6)))
    events = ENGINE.start(OPTS, seats(3), material(60), previous=first)
    assert [e.type for e in events[:2]] == ["RoundStarted", "DealerChosen"]
    assert events[1].data == {"dealer": (first.dealer + 1) % 3, "how": "passed_left"}
    assert events[0].data["scores"] == list(first.scores) and events[0].data["round"] == 2
    second = replay(ENGINE, OPTS, events)
    assert ENGINE.view(second, SPECTATOR)["scores"] == list(first.scores)


def test_draw_cassino_keeps_hands_at_four_while_the_stock_lasts():
    """003_37d90c873e067319.txt: "casino à la tire": after playing, take the stock's top card."""
    options = {"variant": "draw"}
    events = ENGINE.start(options, seats(2), material(8))
    state = replay(ENGINE, options, events)
    seat = ENGINE.turn(state).seat
    top = state.stock[0]
    new = ENGINE.decide(state, ENGINE.timeout(state, 0.0))
    assert new[1].type == "CardDrawn" and new[1].data == {"seat": seat, "card": top}
    assert new[1].visible_to == frozenset({seat}) and new[1].public == {"seat": seat}
    state = replay(ENGINE, options, [*events, *new])
    assert ENGINE.view(state, Viewer.at_seat(seat))["hands"][seat]["count"] == 4
    whole = play_out(events, options)
    assert sum(e.type == "CardDrawn" for e in whole) == 52 - 4 - 8
    assert sum(e.type == "CardsDealt" for e in whole) == 4  # only the opening deal


def test_hands_are_hidden_from_other_seats_and_spectators():
    """003_37d90c873e067319.txt: cards are dealt face down."""
    state = replay(ENGINE, OPTS, open_round(2, 9))
    mine = ENGINE.view(state, Viewer.at_seat(0))
    assert len(mine["hands"][0]["cards"]) == 4 and "cards" not in mine["hands"][1]
    assert all("cards" not in h for h in ENGINE.view(state, SPECTATOR)["hands"])
    assert "cards" not in ENGINE.view(state, SPECTATOR)["stock"]
    assert len(ENGINE.view(state, AUDITOR)["stock"]["cards"]) == 40


def test_unknown_events_are_ignored_and_json_replays_the_same():
    """Contract: the service adds its own events; stored events come back as JSON."""
    events = play_out(open_round(3, 10))
    state = replay(ENGINE, OPTS, events)
    assert ENGINE.evolve(state, Event("SeedRevealed", {"server_seed": "00"})) == state
    stored = [Event(e.type, json.loads(json.dumps(e.data)), e.visible_to,
                    json.loads(json.dumps(e.public)) if e.public is not None else None)
              for e in events]
    assert replay(ENGINE, OPTS, stored) == state


@pytest.mark.parametrize("payload", [
    {"type": "dance"}, {"card": "5h"}, {"type": "capture", "card": "5h", "take": []},
    {"type": "capture", "card": 5, "take": ["5c"]}, {"type": "build", "card": "5h",
                                                     "onto": ["3c"], "value": "8"},
    {"type": "extend", "card": "Ah", "build": "", "value": 3},
    {"type": "reserve", "card": "8h", "onto": "5d", "value": 8},
])
def test_malformed_actions_are_refused(payload):
    """Contract: a payload that is not an action of this game is `bad_action`."""
    with pytest.raises(IllegalMove) as e:
        ENGINE.parse_action(0, payload, 0.0)
    assert e.value.code == "bad_action"


def test_options_have_defaults_and_are_validated():
    """003_37d90c873e067319.txt: variants classic, spades and draw (table option `variant`)."""
    assert ENGINE.options_schema().load({}) == {"variant": "classic", "stake": 0,
                                                "turn_timeout_s": 60}
    with pytest.raises(IllegalMove) as e:
        ENGINE.start({"variant": "poker"}, seats(2), material(1))
    assert e.value.code == "bad_options"
    assert ENGINE.info.variants == {v: {"variant": v} for v in ("classic", "spades", "draw")}
