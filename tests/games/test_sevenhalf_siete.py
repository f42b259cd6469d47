"""Siete y media, RULES.md §1b (seed 004_34f1b911eeb84e49.txt), one test per rule or Decision."""

from __future__ import annotations

from games.contract import SPECTATOR, Viewer, redact
from games.sevenhalf import ENGINES, cards
from games.sevenhalf.commands import AnnounceStake, Hit, PlaceBet, SitOut, Split, Stand, TimeOut
from tests.games.sevenhalf_support import only, open_table, types

E = ENGINES["siete-y-media"]


def dealt(top, balances=(50, 50, 50), stake=10, options=None, sit=()):
    """Banker 0 announces `stake`; players (2, then 1) bet it unless listed in `sit`."""
    t = open_table(E, balances, top, options)
    t.when(AnnounceStake(0, 1.0, stake))
    for h in t.state.hands:
        if h.seat in t.state.decided:
            continue
        t.when(SitOut(h.seat, 1.0) if h.seat in sit else PlaceBet(h.seat, 1.0, stake))
    return t


def nets(t):
    return [(r["seat"], r["net"]) for r in t.state.results if "net" in r]


def test_deck_is_forty_spanish_cards_with_figures_worth_half():
    """004_34f1b911eeb84e49.txt: 40 cards, no 8s and 9s; sota, caballo, rey are worth ½."""
    cs = cards.composition("siete-y-media", {})
    assert len(cs) == 40 and {c[-1] for c in cs} == {"o", "c", "e", "b"}
    assert cards.total("siete-y-media", ["7o", "12b"]) == 15
    assert all(cards.is_half("siete-y-media", f"{r}c") for r in (10, 11, 12))


def test_banker_announces_the_stake_before_the_deal_within_the_limits():
    """004_34f1b911eeb84e49.txt: the bank announces the stake before dealing."""
    t = open_table(E, options={"min_bet": 2, "max_bet": 20})
    assert E.turn(t.state).waiting_for == "announce" and E.turn(t.state).role == "banker"
    assert t.refused(AnnounceStake(0, 1.0, 21)) == "bet_out_of_range"
    assert t.refused(AnnounceStake(2, 1.0, 5)) == "not_your_turn"
    events = t.when(AnnounceStake(0, 1.0, 5))
    assert types(events)[:2] == ["StakeAnnounced", "CardDealt"]
    assert E.legal_actions(t.state, 2) == [{"type": "bet", "amount": {"min": 5, "max": 5}},
                                           {"type": "sit_out"}]


def test_banker_timeout_announces_the_minimum_stake():
    """Decision (seed 004_34f1b911eeb84e49.txt): a silent banker announces `min_bet`."""
    t = open_table(E, options={"min_bet": 3})
    events = t.when(E.timeout(t.state, 1000.0))
    assert only(events, "StakeAnnounced") == [{"seat": 0, "amount": 3, "timeout": True}]


def test_one_card_face_down_to_each_then_each_bets_the_stake_or_sits_out():
    """004_34f1b911eeb84e49.txt: a hidden card to all, bank included; then every player bets."""
    t = open_table(E, (50, 50, 50, 4), ["1o", "2o", "3o", "4o"])
    events = t.when(AnnounceStake(0, 1.0, 5))
    assert only(events, "SatOut") == [{"seat": 3, "timeout": False}]  # cannot cover the stake
    assert [(d["seat"], d["face_up"]) for d in only(events, "CardDealt")] == [
        (2, False), (1, False), (0, False)]
    assert t.refused(PlaceBet(2, 1.0, 4)) == "bet_out_of_range"
    t.when(SitOut(2, 1.0))
    events = t.when(PlaceBet(1, 1.0, 5))
    assert E.turn(t.state).seat == 1 and E.turn(t.state).waiting_for == "play"


def test_only_one_card_is_ever_hidden():
    """004_34f1b911eeb84e49.txt: with a hidden card the next is face up; with none, face down."""
    t = dealt(["4o", "2o", "3o", "1c"])
    (card,) = t.when(Hit(2, 2.0))
    assert card.data["face_up"] is True and card.visible_to is None


def test_at_seven_half_or_over_the_hidden_card_is_shown():
    """004_34f1b911eeb84e49.txt: at 7½ or over the player must show the hidden card."""
    t = dealt(["7o", "2o", "3o", "12c"])
    events = t.when(Hit(2, 2.0))
    assert only(events, "CardsShown")[0]["cards"] == ["7o", "12c"]
    t = dealt(["7o", "2o", "3o", "1c"])
    events = t.when(Hit(2, 2.0))
    assert types(events)[:3] == ["CardDealt", "CardsShown", "StakeLost"]


def test_split_on_consecutive_figures_follows_the_worked_example():
    """004_34f1b911eeb84e49.txt worked example: caballo, sota (two bets), rey (three bets), then
    a 6 for the first bet (6½, stands); the second gets a ½ (1 point) then a 7 (busts); then
    the third bet draws."""
    t = dealt(["11o", "5c", "10e", "12b", "6o", "10c", "7c", "3e"], balances=(50, 50))
    assert E.turn(t.state).seat == 1
    t.when(Hit(1, 2.0))  # sota, face up
    assert {"type": "split"} in E.legal_actions(t.state, 1)
    split = t.when(Split(1, 2.0))
    assert split[0].postings[0].amount == 10
    t.when(Hit(1, 2.0))  # rey
    t.when(Split(1, 2.0))
    assert [h.cards for h in t.state.hands] == [("11o",), ("10e",), ("12b",)]
    t.when(Hit(1, 2.0))  # 6 goes to the first bet
    first = t.state.hands[0]
    assert first.cards == ("11o", "6o") and cards.total("siete-y-media", first.cards) == 13
    assert {"type": "split"} not in E.legal_actions(t.state, 1)
    events = t.when(Stand(1, 2.0))
    assert only(events, "TurnPassed")[0]["index"] == 1
    (half,) = t.when(Hit(1, 2.0))  # the second bet's cards were all face up: this one is hidden
    assert half.data["face_up"] is False and half.data["index"] == 1
    assert cards.total("siete-y-media", t.state.hands[1].cards) == 2
    events = t.when(Hit(1, 2.0))  # 7: the second bet busts
    assert only(events, "StakeLost")[0]["index"] == 1
    assert E.turn(t.state).seat == 1 and t.state.phase.index == 2  # the third bet draws next
    (third,) = t.when(Hit(1, 2.0))
    assert third.data["index"] == 2 and third.data["card"] == "3e"


def test_declining_a_split_ends_the_run_of_figures():
    """Decision (seed 004_34f1b911eeb84e49.txt): splits only while every bet holds one figure."""
    t = dealt(["11o", "5c", "10e", "12b"], balances=(50, 50))
    t.when(Hit(1, 2.0))
    t.when(Hit(1, 2.0))
    assert t.refused(Split(1, 2.0)) == "cannot_split"


def test_split_needs_a_balance_covering_another_stake():
    """004_34f1b911eeb84e49.txt: each split bet is for the announced stake."""
    t = dealt(["11o", "5c", "10e"], balances=(50, 15))
    t.when(Hit(1, 2.0))
    assert t.refused(Split(1, 2.0)) == "cannot_split"


def test_bank_shows_its_card_and_plays_openly():
    """004_34f1b911eeb84e49.txt: the bank then shows its card and plays in view of all."""
    t = dealt(["4o", "5c", "3o"], balances=(50, 50))
    events = t.when(Stand(1, 2.0))
    assert only(events, "CardTurnedUp") == [{"seat": 0, "index": -1, "card": "5c",
                                             "timeout": False}]
    seen = E.view(t.state, SPECTATOR)
    assert seen["bank"]["cards"] == ["5c"] and seen["hands"][0]["cards"] == [None]
    to_player = next(e for e in t.given if e.type == "CardDealt" and e.data["seat"] == 1)
    assert "4o" not in str(redact(to_player, Viewer.at_seat(0)).data)


def test_payout_bust_pays_the_stake_whatever_the_bank_does():
    """004_34f1b911eeb84e49.txt: a player over 7½ pays the stake to the bank."""
    t = dealt(["7o", "5c", "1c", "6o"], balances=(50, 50))
    t.when(Hit(1, 2.0))
    assert nets(t) == [(1, -10)]  # the bank need not play


def test_payout_tie_pays_the_stake():
    """004_34f1b911eeb84e49.txt: a tie with the bank pays the stake to the bank."""
    t = dealt(["5o", "5c"], balances=(50, 50))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 3.0))
    assert nets(t) == [(1, -10)]


def test_payout_seven_half_receives_double():
    """004_34f1b911eeb84e49.txt: a player with 7½ receives double the stake."""
    t = dealt(["7o", "5c", "12o"], balances=(50, 50))
    t.when(Hit(1, 2.0))
    t.when(Stand(0, 3.0))
    assert nets(t) == [(1, 20)]


def test_payout_bank_seven_half_takes_double_and_both_seven_half_four_times():
    """004_34f1b911eeb84e49.txt: bank at 7½: players pay double, a player at 7½ four times."""
    t = dealt(["7o", "4b", "7c", "12o", "12c"], balances=(50, 50, 50))
    t.when(Hit(2, 2.0))  # 7½
    t.when(Stand(1, 2.0))
    t.when(Hit(0, 3.0))  # bank 7½
    assert nets(t) == [(2, -40), (1, -20)]
    post = [(p.from_account, p.to_account, p.amount) for p in E.settle(t.state)]
    assert ("seat:2", "seat:0", 30) in post and ("seat:1", "seat:0", 10) in post


def test_both_seven_half_pays_is_an_option():
    """004_34f1b911eeb84e49.txt multiplier kept as `both_seven_half_pays`."""
    t = dealt(["7o", "7c", "12o", "12c"], balances=(50, 50), options={"both_seven_half_pays": 3})
    t.when(Hit(1, 2.0))
    t.when(Hit(0, 3.0))
    assert nets(t) == [(1, -30)]


def test_payout_higher_total_wins_even_money():
    """004_34f1b911eeb84e49.txt: otherwise the higher total wins 1:1."""
    t = dealt(["6o", "5c"], balances=(50, 50))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 3.0))
    assert nets(t) == [(1, 10)]


def test_payout_bank_bust_pays_stake_or_double_for_seven_half():
    """004_34f1b911eeb84e49.txt: bank over 7½: players still in win 1:1, or double with 7½."""
    t = dealt(["7o", "3o", "5c", "12o", "6c"], balances=(50, 50, 50))
    t.when(Hit(2, 2.0))
    t.when(Stand(1, 2.0))
    t.when(Hit(0, 3.0))
    assert nets(t) == [(2, 20), (1, 10)]


def test_player_loss_beyond_the_stake_is_capped_by_the_balance():
    """Money in the 7½ family (seed 004_34f1b911eeb84e49.txt): shortfall recorded, no debt."""
    t = dealt(["7o", "7c", "12o", "12c"], balances=(50, 15))
    t.when(Hit(1, 2.0))
    t.when(Hit(0, 3.0))  # seat 1 owes 4 times 10 but holds 5 beyond the stake
    short = [e.data for e in t.given if e.type == "ShortfallRecorded"]
    assert short == [{"payer": 1, "payee": 0, "owed": 30, "paid": 5, "shortfall": 25}]
    assert t.state.balances[1] == 0


def test_seven_half_takes_bank_is_an_optional_local_rule():
    """004_34f1b911eeb84e49.txt: in some local variants the 7½ player becomes the bank."""
    for flag, banker in ((False, 0), (True, 1)):
        t = dealt(["7o", "5c", "12o"], balances=(50, 50),
                  options={"seven_half_takes_bank": flag})
        t.when(Hit(1, 2.0))
        t.when(Stand(0, 3.0))
        assert t.state.next_banker == banker


def test_timeouts_sit_out_stand_and_follow_the_banker_policy():
    """Decision (seed 004_34f1b911eeb84e49.txt): timeouts as in Sette e mezzo."""
    t = open_table(E, (50, 50), ["2o", "1c", "3o", "12o"])
    t.when(AnnounceStake(0, 1.0, 5))
    assert types(t.when(E.timeout(t.state, 1000.0)))[0] == "SatOut"
    t = dealt(["2o", "1c", "3o", "12o", "11b"], balances=(50, 50))
    assert t.refused(TimeOut(1, 3.0)) == "too_early"
    assert types(t.when(E.timeout(t.state, 1000.0)))[0] == "Stood"
    events = t.when(E.timeout(t.state, 5000.0))
    drawn = [d["card"] for d in only(events, "CardDealt")]
    assert drawn == ["3o", "12o", "11b"]  # 1 → 4 → 4½ → 5
    assert cards.total("siete-y-media", t.state.bank.cards) == 10


def test_the_table_ends_when_fewer_than_two_seats_hold_treasure():
    """RULES.md "Money in the 7½ family", Decision (seed 004_34f1b911eeb84e49.txt is silent): a
    table ends once fewer than two seats hold treasure, the bank's included, and not before."""
    t = dealt(["7o", "5c", "1c"], balances=(50, 10))
    t.when(Hit(1, 2.0))  # seat 1 busts and has nothing left
    assert E.is_terminal(t.state) and E.table_over(t.state, 0.0)
    # The bank pays seat 1 all it has: seat 1 alone holds treasure, though he could bet again.
    t = dealt(["6o", "5c"], balances=(10, 50))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 3.0))
    assert t.state.balances == {0: 0, 1: 60} and E.table_over(t.state, 0.0)
    # The bank alone has nothing: two players still hold treasure, so the table goes on.
    t = dealt(["6o", "6c", "5c"], balances=(10, 50, 50))
    t.when(Stand(2, 2.0))
    t.when(Stand(1, 2.0))
    t.when(Stand(0, 3.0))
    assert t.state.balances == {0: 0, 1: 50, 2: 60} and not E.table_over(t.state, 0.0)
    # Two seats hold treasure, one of them less than `min_bet`: the Decision counts treasure.
    t = dealt(["7o", "5c", "1c"], balances=(50, 10), stake=8, options={"min_bet": 5})
    t.when(Hit(1, 2.0))
    assert t.state.balances == {0: 58, 1: 2} and not E.table_over(t.state, 0.0)
