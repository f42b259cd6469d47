"""Sette e mezzo, RULES.md §1a (seed 001_6b5bbd2473d5c47f.txt), one test per rule or Decision."""

from __future__ import annotations

import pytest

from games import deck
from games.contract import AUDITOR, SPECTATOR, Event, IllegalMove, SeatInfo, Viewer, redact
from games.sevenhalf import ENGINES, cards
from games.sevenhalf.commands import Hit, PlaceBet, Stand, TimeOut
from tests.games.sevenhalf_support import SEED, only, open_table, types

E = ENGINES["sette-e-mezzo"]


def betted(top, balances=(50, 50, 50), bets=None, options=None, full=True):
    """Three seats by default: banker 0, play order 2 then 1; every player bets 10."""
    t = open_table(E, balances, top, options, full=full)
    for seat in t.state.order:
        t.when(PlaceBet(seat, 1.0, (bets or {}).get(seat, 10)))
    return t


def test_deck_is_forty_cards_without_eight_nine_ten():
    """001_6b5bbd2473d5c47f.txt: 52 cards without the 8s, 9s and 10s."""
    cs = cards.composition("sette-e-mezzo", {})
    assert len(cs) == 40 and not any(c[:-1] in ("8", "9", "10") for c in cs)


def test_half_point_totals_are_integers():
    """001_6b5bbd2473d5c47f.txt: ace..7 count face value, figures ½; 7½ is 15 half-points."""
    assert cards.total("sette-e-mezzo", ["7s", "Kd"]) == cards.SEVEN_HALF == 15
    assert cards.total("sette-e-mezzo", ["As", "Jh", "Qc"]) == 4
    assert isinstance(cards.total("sette-e-mezzo", ["Jh"]), int)


def test_two_to_twelve_players():
    """001_6b5bbd2473d5c47f.txt: between 2 and 12 players including the banker."""
    assert (E.info.min_players, E.info.max_players) == (2, 12)
    for n in (1, 13):
        with pytest.raises(IllegalMove) as e:
            E.start({}, [SeatInfo(i, f"p{i}", 10) for i in range(n)], SEED)
        assert e.value.code == "bad_player_count"


def test_banker_is_seat_zero_unless_drawn_by_lot():
    """001_6b5bbd2473d5c47f.txt: players name or draw a banker; Decision: seat 0 or `lot`."""
    assert open_table(E, (5, 5, 5, 5)).state.banker == 0
    lot = open_table(E, (5, 5, 5, 5), options={"banker": "lot"}).state.banker
    assert lot == int(deck.shuffled(["0", "1", "2", "3"], SEED, "banker")[0])


def test_bets_come_before_the_deal_within_min_and_max():
    """001_6b5bbd2473d5c47f.txt: stakes are laid down while the banker shuffles and deals."""
    t = open_table(E, (50, 50, 8), options={"min_bet": 2, "max_bet": 20})
    assert E.turn(t.state).waiting_for == "bet" and E.turn(t.state).seat == 2
    assert t.refused(PlaceBet(2, 1.0, 1)) == "bet_out_of_range"
    assert t.refused(PlaceBet(2, 1.0, 9)) == "bet_out_of_range"  # more than the balance
    assert t.refused(PlaceBet(1, 1.0, 5)) == "not_your_turn"
    assert E.legal_actions(t.state, 2) == [{"type": "bet", "amount": {"min": 2, "max": 8}}]
    first = t.when(PlaceBet(2, 1.0, 8))
    assert "CardDealt" not in types(first)
    assert first[0].postings[0].to_account == "escrow" and first[0].postings[0].amount == 8
    assert "CardDealt" in types(t.when(PlaceBet(1, 1.0, 20)))


def test_deal_is_counter_clockwise_face_down_ending_with_the_banker():
    """001_6b5bbd2473d5c47f.txt: one card face down each, counter-clockwise, banker last."""
    t = open_table(E, (50, 50, 50, 50), ["As", "2s", "3s", "4s"])
    for seat in (3, 2, 1):
        events = t.when(PlaceBet(seat, 1.0, 5))
    dealt = only(events, "CardDealt")
    assert [(d["seat"], d["card"], d["face_up"]) for d in dealt] == [
        (3, "As", False), (2, "2s", False), (1, "3s", False), (0, "4s", False)]
    hidden = [e for e in events if e.type == "CardDealt"]
    assert all(e.visible_to == frozenset({e.data["seat"]}) for e in hidden)
    assert E.turn(t.state).seat == 3  # the banker's right plays first


def test_a_card_asked_for_is_dealt_face_up():
    """001_6b5bbd2473d5c47f.txt: the card asked for is dealt face up."""
    t = betted(["As", "2s", "3s", "4s"])
    (dealt,) = t.when(Hit(2, 2.0))
    assert dealt.visible_to is None and dealt.data["card"] == "4s"


def test_over_seven_half_shows_all_cards_and_loses_the_stake_at_once():
    """001_6b5bbd2473d5c47f.txt: over 7½ the player shows all his cards and loses his stake."""
    t2 = betted(["7s", "2s", "3s", "Ah"])
    events = t2.when(Hit(2, 2.0))
    assert types(events)[:3] == ["CardDealt", "CardsShown", "StakeLost"]
    assert only(events, "CardsShown")[0]["cards"] == ["7s", "Ah"]
    lost = next(e for e in events if e.type == "StakeLost")
    assert [(p.from_account, p.to_account, p.amount) for p in lost.postings] == [
        ("escrow", "seat:0", 10)]
    assert E.turn(t2.state).seat == 1


def test_exactly_seven_half_shows_all_cards_and_stops():
    """001_6b5bbd2473d5c47f.txt: at exactly 7½ the player shows his cards and stops playing."""
    t = betted(["7s", "2s", "3s", "Kd"])
    events = t.when(Hit(2, 2.0))
    assert only(events, "CardsShown")[0]["reason"] == "seven_half"
    assert E.turn(t.state).seat == 1


def test_under_seven_half_the_player_may_ask_again():
    """001_6b5bbd2473d5c47f.txt: under 7½ he may stand or ask again, as often as he likes."""
    t = betted(["As", "2s", "3s", "Ah", "Ad"])
    t.when(Hit(2, 2.0))
    t.when(Hit(2, 2.0))
    assert E.turn(t.state).seat == 2 and {"type": "hit"} in E.legal_actions(t.state, 2)


def test_banker_turns_his_card_up_and_sees_exposed_cards_only():
    """001_6b5bbd2473d5c47f.txt: the banker sees every exposed card but no hidden one."""
    t = betted(["As", "2s", "3s", "Ah"])
    t.when(Hit(2, 2.0))
    t.when(Stand(2, 2.0))
    events = t.when(Stand(1, 2.0))
    assert only(events, "CardTurnedUp")[0]["card"] == "3s"
    seen = E.view(t.state, Viewer.at_seat(0))
    assert seen["hands"][0]["cards"] == [None, "Ah"] and seen["hands"][1]["cards"] == [None]
    assert E.turn(t.state).role == "banker"


def test_banker_bust_pays_every_player_still_in():
    """001_6b5bbd2473d5c47f.txt: a busted banker doubles the stake of every player still in."""
    t = betted(["7s", "2s", "6s", "Kd", "3h"], bets={2: 10, 1: 5})
    t.when(Hit(2, 2.0))  # 7½
    t.when(Stand(1, 2.0))
    t.when(Hit(0, 3.0))  # 6 + 3 = 9, bust
    assert E.is_terminal(t.state)
    net = {r["seat"]: r.get("net") for r in t.state.results if "net" in r}
    assert net == {2: 10, 1: 5}


def test_a_short_banker_pays_the_winners_in_the_order_of_play():
    """Money in the 7½ family (seed 001_6b5bbd2473d5c47f.txt: play goes counter-clockwise from
    the banker): a banker who cannot cover every winner pays them in the hand's order, seat 2
    before seat 1, as far as his seat goes (Decision: "table order" is the order of play)."""
    t = betted(["5s", "5h", "6s", "7s"], balances=(1, 10, 10), bets={2: 2, 1: 2})
    assert t.state.order[:2] == (2, 1)
    t.when(Stand(2, 2.0))
    t.when(Stand(1, 2.0))
    t.when(Hit(0, 3.0))  # 6 + 7 = 13: bust, owes 2 to each
    short = [e.data for e in t.given if e.type == "ShortfallRecorded"]
    assert [(s["payee"], s["owed"], s["paid"]) for s in short] == [(2, 2, 1), (1, 2, 0)]
    assert all(b >= 0 for b in t.state.balances.values())


def test_ties_go_to_the_banker_and_higher_totals_win_even_money():
    """001_6b5bbd2473d5c47f.txt: the banker wins totals equal to or below his, pays higher ones."""
    t = betted(["5s", "4s", "5h", "Ah"])
    t.when(Stand(2, 2.0))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 3.0))
    outcome = {r["seat"]: (r["outcome"], r["net"]) for r in t.state.results if "net" in r}
    assert outcome == {2: ("lost", -10), 1: ("lost", -10)}
    t = betted(["6s", "4s", "5h"])
    t.when(Stand(2, 2.0))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 3.0))
    outcome = {r["seat"]: (r["outcome"], r["net"]) for r in t.state.results if "net" in r}
    assert outcome == {2: ("won", 10), 1: ("lost", -10)}
    assert sum(p.amount for p in E.settle(t.state) if p.to_account == "seat:2") == 20


def test_seven_half_wins_even_money_unless_the_banker_has_it_too():
    """001_6b5bbd2473d5c47f.txt: 7½ wins, unless the banker also reaches 7½."""
    t = betted(["7s", "2s", "7h", "Kd", "Kh"])
    t.when(Hit(2, 2.0))
    t.when(Stand(1, 2.0))
    t.when(Hit(0, 3.0))  # banker 7½
    outcome = {r["seat"]: r["net"] for r in t.state.results if "net" in r}
    assert outcome == {2: -10, 1: -10}
    t = betted(["7s", "2s", "6h", "Kd"])
    t.when(Hit(2, 2.0))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 3.0))
    assert {r["seat"]: r["net"] for r in t.state.results if "net" in r}[2] == 10


def test_a_single_seven_half_takes_the_bank():
    """001_6b5bbd2473d5c47f.txt: the only player at 7½ takes the bank for the next hand."""
    t = betted(["2s", "7s", "3h", "Kd"])
    t.when(Stand(2, 2.0))
    t.when(Hit(1, 2.0))  # seat 1: 7½
    t.when(Stand(0, 3.0))
    assert t.state.next_banker == 1
    nxt = open_table(E, (50, 50, 50), previous=t.state)
    assert nxt.state.banker == 1 and nxt.state.order == (0, 2)


def test_the_bank_a_seven_half_took_follows_its_player_past_a_leave():
    """001_6b5bbd2473d5c47f.txt: the only player at 7½ banks the next hand. A leave between the
    hands renumbers the seats (`Engine.reseated`): the bank still goes to that player; and
    when he is the one who left, the banker keeps it (it went to seat 0 or a lot)."""
    t = betted(["2s", "7s", "3h", "Kd"])
    t.when(Stand(2, 2.0))
    t.when(Hit(1, 2.0))  # seat 1: 7½
    t.when(Stand(0, 3.0))
    banker_left = E.reseated(t.state, {1: 0, 2: 1})
    assert open_table(E, (50, 50), previous=banker_left).state.banker == 0  # seat 1 before
    other_left = E.reseated(t.state, {0: 0, 1: 1})
    assert open_table(E, (50, 50), previous=other_left).state.banker == 1
    he_left = E.reseated(t.state, {0: 0, 2: 1})
    for options in ({}, {"banker": "lot"}):
        assert open_table(E, (50, 50), options=options, previous=he_left).state.banker == 0
    assert he_left.table_started_at == t.state.table_started_at


def test_a_single_seven_half_takes_the_bank_even_when_the_banker_has_it_too():
    """RULES.md 1a Decision (seed 001_6b5bbd2473d5c47f.txt): the text ties the bank to the 7½,
    not to the win, so the player at 7½ banks next even though the banker's 7½ took his stake."""
    t = betted(["7s", "2s", "7h", "Kd", "Kh"])
    t.when(Hit(2, 2.0))  # seat 2: 7½
    t.when(Stand(1, 2.0))
    t.when(Hit(0, 3.0))  # banker 7½
    assert {r["seat"]: r["net"] for r in t.state.results if "net" in r}[2] == -10
    assert t.state.next_banker == 2
    assert open_table(E, (50, 50, 50), previous=t.state).state.banker == 2


def test_of_several_seven_halves_the_first_counter_clockwise_takes_the_bank():
    """001_6b5bbd2473d5c47f.txt: the first of them counter-clockwise from the banker."""
    t = betted(["7s", "7h", "3h", "Kd", "Kh"], balances=(50, 50, 50))
    t.when(Hit(2, 2.0))
    t.when(Hit(1, 2.0))
    t.when(Stand(0, 3.0))
    assert t.state.next_banker == 2


def test_timeout_player_stands():
    """RULES.md §1a Decision (seed 001_6b5bbd2473d5c47f.txt): a player who does not act stands."""
    t = betted(["As", "2s", "3s"])
    assert t.refused(TimeOut(2, 10.0)) == "too_early"
    events = t.when(E.timeout(t.state, 100.0))
    assert events[0].type == "Stood" and events[0].data["timeout"] is True


def test_timeout_on_a_bet_sits_the_player_out():
    """Decision (seed 001_6b5bbd2473d5c47f.txt): a player who does not bet sits the hand out."""
    t = open_table(E, (50, 50, 50))
    events = t.when(E.timeout(t.state, 100.0))
    assert only(events, "SatOut") == [{"seat": 2, "timeout": True}]


def test_timeout_banker_draws_under_banker_stand_at_then_stands():
    """Decision (seed 001_6b5bbd2473d5c47f.txt): banker draws while under `banker_stand_at`."""
    t = betted(["As", "2s", "Ah", "2h", "Ad", "Kd", "Kh"], options={"banker_stand_at": 5})
    t.when(Stand(2, 2.0))
    t.when(Stand(1, 2.0))
    events = t.when(E.timeout(t.state, 500.0))
    drawn = [d["card"] for d in only(events, "CardDealt")]
    assert drawn == ["2h", "Ad", "Kd", "Kh"]  # 1, 3, 4, 4½, then 5: stands
    assert cards.total("sette-e-mezzo", t.state.bank.cards) == 10
    assert all(d["timeout"] for d in only(events, "CardDealt"))


def test_banker_policy_stops_at_the_threshold():
    """Decision (seed 001_6b5bbd2473d5c47f.txt): the banker stands once he reaches 5."""
    t = betted(["As", "2s", "Ah", "4h", "3d"], options={"banker_stand_at": 5})
    t.when(Stand(2, 2.0))
    t.when(Stand(1, 2.0))
    events = t.when(E.timeout(t.state, 500.0))
    assert [d["card"] for d in only(events, "CardDealt")] == ["4h"]
    assert only(events, "Stood")[0]["timeout"] is True
    assert E.is_terminal(t.state)


def test_no_card_can_be_drawn_from_an_empty_deck():
    """Decision (seed 001_6b5bbd2473d5c47f.txt): when the deck runs out only standing is left."""
    t = betted(["As", "2s", "3s"], full=False)
    assert t.refused(Hit(2, 2.0)) == "no_cards_to_draw"
    assert E.legal_actions(t.state, 2) == [{"type": "stand"}]


def test_shortfall_is_paid_in_table_order_and_recorded():
    """Money in the 7½ family (seed 001_6b5bbd2473d5c47f.txt): a banker short pays in order."""
    t = betted(["6s", "6h", "Ah", "Kd"], balances=(15, 10, 10), bets={2: 10, 1: 10})
    t.when(Stand(2, 2.0))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 3.0))
    short = [e for e in t.given if e.type == "ShortfallRecorded"]
    assert [(e.data["payee"], e.data["owed"], e.data["paid"]) for e in short] == [(1, 10, 5)]
    post = E.settle(t.state)
    assert [(p.from_account, p.to_account, p.amount) for p in post] == [
        ("escrow", "seat:2", 10), ("seat:0", "seat:2", 10),
        ("escrow", "seat:1", 10), ("seat:0", "seat:1", 5)]
    # The result says what the rules award; the view says, beside it, what was paid in fact.
    seen = E.view(t.state, SPECTATOR)
    assert {r["seat"]: r["net"] for r in seen["results"] if "net" in r} == {2: 10, 1: 10}
    assert seen["balance_changes"] == {"0": -15, "1": 5, "2": 10}
    assert sum(seen["balance_changes"].values()) == 0


def test_hand_opening_commits_publicly_and_keeps_seeds_for_auditors():
    """Fair decks (seed 001_6b5bbd2473d5c47f.txt shuffles): commitment public, seed hidden."""
    opened = open_table(E).given[0]
    assert opened.type == "HandStarted" and opened.visible_to == frozenset()
    public = redact(opened, SPECTATOR).data
    assert public["commitment"] == deck.commitment(SEED.server_seed)
    assert "server_seed" not in public and "deck" not in public
    assert redact(opened, AUDITOR).data["server_seed"] == SEED.server_seed


def test_unknown_events_are_ignored():
    """The service adds its own events (seed 001_6b5bbd2473d5c47f.txt hands)."""
    t = open_table(E)
    assert E.evolve(t.state, Event("SeedRevealed", {"seed": "x"})) == t.state


def test_options_have_defaults_and_are_validated():
    """001_6b5bbd2473d5c47f.txt: players agree the minimum and maximum bets."""
    opts = E.options_schema().load({})
    assert opts["banker_stand_at"] == 5 and opts["banker"] == "seat0"
    with pytest.raises(IllegalMove):
        E.start({"min_bet": 5, "max_bet": 2}, [SeatInfo(0, "a", 9), SeatInfo(1, "b", 9)], SEED)


def test_the_table_ends_when_fewer_than_two_seats_hold_treasure():
    """RULES.md "Money in the 7½ family", Decision (seed 001_6b5bbd2473d5c47f.txt is silent): a
    table ends once fewer than two seats hold treasure, the banker's included, and not before."""
    t = betted(["7s", "Kd", "5h"], balances=(50, 10))
    t.when(Hit(1, 2.0))  # seat 1 busts and has nothing left
    assert E.is_terminal(t.state) and E.table_over(t.state, 0.0)
    # The banker pays seat 1 all he has: seat 1 alone holds treasure, though he could bet again.
    t = betted(["6s", "5h"], balances=(10, 50))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 2.0))
    assert t.state.balances == {0: 0, 1: 60} and E.table_over(t.state, 0.0)
    # The banker alone has nothing: two players still hold treasure, so the table goes on.
    t = betted(["6s", "6h", "5h"], balances=(10, 50, 50))
    t.when(Stand(2, 2.0))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 2.0))
    assert t.state.balances == {0: 0, 1: 50, 2: 60} and not E.table_over(t.state, 0.0)
    # Two seats hold treasure, one of them less than `min_bet`: the Decision counts treasure.
    t = betted(["7s", "Kd", "5h"], balances=(50, 10), bets={1: 8}, options={"min_bet": 5})
    t.when(Hit(1, 2.0))
    assert t.state.balances == {0: 58, 1: 2} and not E.table_over(t.state, 0.0)


def test_an_action_of_another_game_is_refused_naming_this_games():
    """`split` is Siete y media's (seed 004); Sette e mezzo's refusal says what it takes instead."""
    with pytest.raises(IllegalMove) as e:
        E.parse_action(1, {"type": "split"}, 1.0)
    assert e.value.code == "bad_action"
    assert str(e.value).endswith("this game's are bet, hit, stand")
