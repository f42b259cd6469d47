"""The table commands' handlers, on both units of work (tests/application/conftest.py): seats
and their buy-ins, deals, moves, races, settlement, leaving and the end of a table, with the
refusals of each and the treasure they move, conserved."""

from __future__ import annotations

import random
import secrets
import time

import pytest

from events import ledger
from events.model import ConcurrencyConflict
from projections.tables import TableRow
from service.application import handlers, settling
from service.application.errors import Conflict, Invalid, NotFound
from service.application.table_options import table_options
from tests.application.conftest import Work
from tests.games.test_sevenhalf_properties import concrete

SETTE = "sette-e-mezzo"
META = {"actor": "test"}


def player(work: Work, treasure: int) -> str:
    """A player id whose wallet holds `treasure`, issued by the house."""
    player_id = "pl_" + secrets.token_hex(8)
    if treasure:
        with work() as uow:
            deposit = ledger.Transfer(ledger.HOUSE, ledger.wallet(player_id), treasure, "deposit")
            uow.append(f"player-{player_id}", [deposit.event(META)], None)
    return player_id


def open_table(work: Work, players: list[tuple[str, int]], **options: int) -> str:
    """A Sette e mezzo table with `players` seated, each with his buy-in."""
    engine = handlers.engine_named(SETTE)
    with work() as uow:
        table = handlers.create_table(uow, SETTE, table_options(engine, None, {
            "min_bet": 1, "max_bet": 10, **options}), "operator", META)
    for player_id, buy_in in players:
        with work() as uow:
            handlers.seat_player(uow, handlers.load(uow, table.table_id), player_id, buy_in,
                                 None, None, META)
    return table.table_id


def load(work: Work, table_id: str, balances: bool = False) -> TableRow:
    with work() as uow:
        return handlers.load(uow, table_id, balances)


def treasure(work: Work, players: list[str], table_id: str) -> dict[str, int]:
    """Each player's wallet and seat, and the house's account."""
    with work() as uow:
        held = {a: uow.balance(a) for p in players
                for a in (ledger.wallet(p), ledger.seat(table_id, p))}
        held[ledger.HOUSE] = uow.balance(ledger.HOUSE)
    return held


def play_to_the_end(work: Work, table_id: str, rng: random.Random) -> TableRow:
    """Random legal moves, each in a unit of work of its own, until the hand is no longer in
    play."""
    for _ in range(500):
        table = load(work, table_id)
        if table.status != "playing":
            return table
        engine = handlers.engine_of(table)
        seat, offered = next((s["seat"], a) for s in table.seats
                             if (a := engine.legal_actions(table.state, s["seat"])))
        with work() as uow:
            handlers.act(uow, table, seat, concrete(rng.choice(offered), rng), META)
    raise AssertionError("the hand did not end")


def test_a_seat_moves_its_buy_in_from_the_wallet(work: Work):
    ann, bob = player(work, 100), player(work, 50)
    table_id = open_table(work, [(ann, 30), (bob, 50)])
    table = load(work, table_id, balances=True)
    assert [s["player_id"] for s in table.seats] == [ann, bob]
    assert table.balances == {ann: 30, bob: 50}
    assert table.version == 1 + 2 * 2  # created; each seat's event and its buy-in's posting
    held = treasure(work, [ann, bob], table_id)
    assert held[ledger.wallet(ann)] == 70 and held[ledger.wallet(bob)] == 0
    assert sum(v for a, v in held.items() if a != ledger.HOUSE) == 150


def test_refused_seats_write_nothing(work: Work):
    ann, bob = player(work, 100), player(work, 10)
    table_id = open_table(work, [(ann, 30)])
    before = load(work, table_id)
    with pytest.raises(Conflict) as seated, work() as uow:
        handlers.seat_player(uow, handlers.load(uow, table_id), ann, 10, None, None, META)
    assert seated.value.code == "already_seated"
    with pytest.raises(Invalid) as short, work() as uow:
        handlers.seat_player(uow, handlers.load(uow, table_id), bob, 11, None, None, META)
    assert short.value.code == "insufficient_treasure"
    after = load(work, table_id, balances=True)
    assert after.version == before.version and after.balances == {ann: 30}
    assert treasure(work, [bob], table_id)[ledger.wallet(bob)] == 10
    with pytest.raises(NotFound), work() as uow:
        handlers.load(uow, "tb_none")


def test_a_deal_needs_its_players_and_commits_to_its_deck(work: Work):
    ann, bob = player(work, 100), player(work, 100)
    table_id = open_table(work, [(ann, 50)])
    with pytest.raises(Conflict) as alone, work() as uow:
        handlers.open_hand(uow, handlers.load(uow, table_id, balances=True), META)
    assert alone.value.code == "not_enough_players"
    with work() as uow:
        handlers.seat_player(uow, handlers.load(uow, table_id), bob, 50, None, None, META)
    with work() as uow:
        dealt = handlers.open_hand(uow, handlers.load(uow, table_id, balances=True), META)
    assert dealt.status == "playing" and dealt.hand_number == 1
    with work() as uow:
        hand = uow.hand(str(dealt.hand_id))
        [began] = [e for e in uow.read_stream(handlers.stream(table_id), 0, 100)
                   if e.type == "HandBegan"]
    assert hand is not None and hand["status"] == "playing"
    assert hand["first_version"] == began.version
    assert hand["commitment"] == began.data["commitment"]
    with pytest.raises(Conflict) as again, work() as uow:
        handlers.open_hand(uow, handlers.load(uow, table_id, balances=True), META)
    assert again.value.code == "hand_in_play"


def test_a_move_from_a_stale_read_loses_the_race_and_writes_nothing(work: Work):
    ann, bob = player(work, 100), player(work, 100)
    table_id = open_table(work, [(ann, 50), (bob, 50)])
    with work() as uow:
        handlers.open_hand(uow, handlers.load(uow, table_id, balances=True), META)
    read = load(work, table_id)
    engine = handlers.engine_of(read)
    seat, offered = next((s["seat"], a) for s in read.seats
                         if (a := engine.legal_actions(read.state, s["seat"])))
    rng = random.Random(3)
    with work() as uow:
        first = handlers.act(uow, load(work, table_id), seat, concrete(offered[0], rng), META)
    with pytest.raises(ConcurrencyConflict), work() as uow:
        handlers.act(uow, read, seat, concrete(offered[0], rng), META)
    assert load(work, table_id).version == first.version


def test_an_illegal_move_is_refused(work: Work):
    ann, bob = player(work, 100), player(work, 100)
    table_id = open_table(work, [(ann, 50), (bob, 50)])
    with pytest.raises(Conflict) as between, work() as uow:
        handlers.act(uow, handlers.load(uow, table_id), 0, {"type": "stand"}, META)
    assert between.value.code == "no_hand_in_play"
    with work() as uow:
        dealt = handlers.open_hand(uow, handlers.load(uow, table_id, balances=True), META)
    with pytest.raises(Invalid) as junk, work() as uow:
        handlers.act(uow, handlers.load(uow, table_id), 0, {"type": "stand", "extra": 1}, META)
    assert junk.value.code == "bad_action"
    assert load(work, table_id).version == dealt.version


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_hand_settles_once_and_conserves_treasure(work: Work, seed: int):
    ann, bob, cy = player(work, 200), player(work, 200), player(work, 200)
    table_id = open_table(work, [(ann, 100), (bob, 100), (cy, 100)])
    with work() as uow:
        handlers.open_hand(uow, handlers.load(uow, table_id, balances=True), META)
    ended = play_to_the_end(work, table_id, random.Random(seed))
    assert ended.status == "settling"
    hand_id = str(ended.hand_id)
    with work() as uow:
        assert uow.hand(hand_id)["status"] == "settling"  # type: ignore[index]
    with work() as uow:
        assert settling.settle(uow, table_id, hand_id, META)
    with work() as uow:
        hand = uow.hand(hand_id)
    assert hand is not None and hand["status"] == "settled"
    settled = load(work, table_id, balances=True)
    assert settled.status in ("open", "over")
    # What the seats hold now is their buy-ins moved by the hand's postings, in play and at
    # its settlement, as the log records them.
    with work() as uow:
        logged = uow.read_stream(handlers.stream(table_id), hand["first_version"], 1000)
    postings = [e.data for e in logged if e.type == "TreasurePosted"]
    settled_with = [e.data["postings"] for e in logged if e.type == "HandSettled"]
    assert settled_with == [hand["postings"]]
    paid = {p: 100 for p in (ann, bob, cy)}
    for posting in postings:
        for account, sign in ((posting["from"], -1), (posting["to"], 1)):
            for p in paid:
                if account == ledger.seat(table_id, p):
                    paid[p] += sign * posting["amount"]
    held = treasure(work, [ann, bob, cy], table_id)
    assert {p: held[ledger.seat(table_id, p)] for p in paid} == paid
    # Conserved: the players' treasure, in wallets and seats, is what the house issued them.
    theirs = {a: v for a, v in held.items() if a != ledger.HOUSE}
    assert sum(theirs.values()) == 600 and min(theirs.values()) >= 0
    # A second settlement of the same hand (a duplicate job) writes nothing.
    with work() as uow:
        assert not settling.settle(uow, table_id, hand_id, META)
    assert load(work, table_id).version == settled.version


def test_leaving_pays_the_seat_back_between_hands_only(work: Work):
    ann, bob = player(work, 100), player(work, 100)
    table_id = open_table(work, [(ann, 40), (bob, 60)])
    with work() as uow:
        assert handlers.leave(uow, handlers.load(uow, table_id), ann, META) == 40
    held = treasure(work, [ann], table_id)
    assert held[ledger.wallet(ann)] == 100 and held[ledger.seat(table_id, ann)] == 0
    with pytest.raises(NotFound) as gone, work() as uow:
        handlers.leave(uow, handlers.load(uow, table_id), ann, META)
    assert gone.value.code == "not_seated"
    cy = player(work, 100)
    with work() as uow:
        handlers.seat_player(uow, handlers.load(uow, table_id), cy, 50, None, None, META)
    with work() as uow:
        handlers.open_hand(uow, handlers.load(uow, table_id, balances=True), META)
    with pytest.raises(Conflict) as playing, work() as uow:
        handlers.leave(uow, handlers.load(uow, table_id), bob, META)
    assert playing.value.code == "hand_in_play"


def test_a_timeout_plays_the_games_rule_for_the_turn_once_it_is_due(work: Work):
    ann, bob = player(work, 100), player(work, 100)
    slow = open_table(work, [(ann, 50), (bob, 50)])  # 30 and 60 s turns
    with work() as uow:
        dealt = handlers.open_hand(uow, handlers.load(uow, slow, balances=True), META)
    with work() as uow:
        assert handlers.time_out(uow, handlers.load(uow, slow), META) is None  # too early
    assert load(work, slow).version == dealt.version
    table_id = open_table(work, [(player(work, 100), 50), (player(work, 100), 50)],
                          turn_timeout_s=1, banker_timeout_s=1)
    with work() as uow:
        dealt = handlers.open_hand(uow, handlers.load(uow, table_id, balances=True), META)
    assert dealt.turn is not None
    time.sleep(1.05)  # the turn's limit: the engine reads the command's time, not a timer
    with work() as uow:
        after = handlers.time_out(uow, handlers.load(uow, table_id), {**META, "timeout": True})
    assert after is not None and after.version > dealt.version
    with work() as uow:
        recorded = uow.read_stream(handlers.stream(table_id), dealt.version, 100)
    assert recorded[0].metadata["command"]["name"] == "TimeOut"
    assert recorded[0].metadata["command"]["seat"] == dealt.turn["seat"]


def test_an_ended_table_cashes_every_seat_out(work: Work):
    ann, bob = player(work, 100), player(work, 100)
    table_id = open_table(work, [(ann, 30), (bob, 70)])
    with work() as uow:
        settling.end(uow, handlers.load(uow, table_id), "closed", META)
    ended = load(work, table_id)
    assert ended.status == "over" and ended.seats == []
    held = treasure(work, [ann, bob], table_id)
    assert held[ledger.wallet(ann)] == 100 and held[ledger.wallet(bob)] == 100
    assert held[ledger.seat(table_id, ann)] == 0 and held[ledger.seat(table_id, bob)] == 0
