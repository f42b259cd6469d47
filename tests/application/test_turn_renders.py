"""A table followed for its turns (`?turns=true`) is rendered only for the followers with
something to do in it: at most moves that is the next mover alone."""

from __future__ import annotations

from typing import Any

from games import registry
from games.contract import SeatInfo, SeedMaterial, Viewer
from projections.tables import TableRow, turn_of
from service.application.notify import Change
from service.application.principal import Principal
from service.streaming.feeds import Feed

PLAYERS = ["pl_a", "pl_b", "pl_c", "pl_d"]


def dealt(game: str) -> TableRow:
    """A table of `game` whose hand was just dealt, as a request of this process wrote it."""
    engine = registry.engine(game)
    options = dict(engine.options_schema().load({}))
    seats = [SeatInfo(s, p, 100, age=20 + s, seed=f"s{s}") for s, p in enumerate(PLAYERS)]
    state = engine.initial_state(options)
    for event in engine.start(options, seats, SeedMaterial("ab" * 32, ("s0", "s1", "s2", "s3")),
                              now=0.0):
        state = engine.evolve(state, event)
    return TableRow(table_id="tb_0123456789abcdef", game=game, options=options, status="playing",
                    version=9, seats=[{"seat": s, "player_id": p} for s, p in enumerate(PLAYERS)],
                    hand_id="hd_0123456789abcdef", hand_number=1, state=state,
                    turn=turn_of(engine, state), balances=dict.fromkeys(PLAYERS, 100),
                    names=dict.fromkeys(PLAYERS, "n"), txid=77)


def heard(table: TableRow) -> Feed:
    feed = Feed(table.table_id)
    feed.offer(table)
    feed.heard([Change(table.table_id, table.version, None, table.status, None, table.txid)])
    return feed


def turn(feed: Feed, player_id: str, table: TableRow) -> Any:
    # The table is kept at its version with its balances: nothing is read, so no pool is needed.
    return feed.turn(None, Principal("player", player_id), table.version, 0)  # type: ignore[arg-type]


def test_only_the_follower_whose_turn_it_is_gets_the_table_rendered():
    table = dealt("sette-e-mezzo")
    engine = registry.engine(table.game)
    mover = table.turn["seat"] if table.turn else None
    assert mover is not None
    feed = heard(table)

    waiting = [p for s, p in enumerate(PLAYERS) if not engine.legal_actions(table.state, s)]
    assert len(waiting) == len(PLAYERS) - 1  # the test means something: three have no move
    for player_id in waiting:
        assert turn(feed, player_id, table) == (PLAYERS.index(player_id), None)
    assert feed.renders == 0

    seat, shown = turn(feed, PLAYERS[mover], table)
    assert seat == mover and feed.renders == 1
    assert shown.body["you"] == mover
    assert shown.body["legal_actions"] == engine.legal_actions(table.state, mover)
    assert shown.body["view"] == engine.view(table.state, Viewer.at_seat(mover))
    assert shown.chunk.startswith(f"id: {table.version}\nevent: table\n".encode())


def test_a_table_open_for_its_next_hand_is_shown_to_every_seat():
    table = dealt("sette-e-mezzo")
    table.status, table.turn = "open", None
    feed = heard(table)
    for seat, player_id in enumerate(PLAYERS):
        found, shown = turn(feed, player_id, table)
        assert found == seat and shown is not None and shown.body["status"] == "open"
    assert feed.renders == len(PLAYERS)


def test_a_settling_hand_is_news_for_no_seat():
    table = dealt("sette-e-mezzo")
    table.status, table.turn = "settling", None
    feed = heard(table)
    assert [turn(feed, p, table)[1] for p in PLAYERS] == [None] * len(PLAYERS)
    assert feed.renders == 0

