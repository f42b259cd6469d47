"""Casino pirate, RULES.md §1c (seed 000_1414b0b0fea70c86.txt), one test per rule or Decision."""

from __future__ import annotations

import pytest

from games import registry
from games.contract import AUDITOR, SPECTATOR, IllegalMove, Viewer, redact
from games.sevenhalf import ENGINES, cards
from games.sevenhalf.commands import (
    Call,
    Concede,
    Declare,
    Hide,
    Hit,
    PlaceBet,
    Reveal,
    Stand,
    TimeOut,
    Volunteer,
)
from tests.games.sevenhalf_support import only, open_table, types

E = ENGINES["casino-pirate"]
G = "casino-pirate"


def betted(top, balances=(10, 10, 10), bets=None, options=None, ages=None, previous=None):
    """Meneur seat 0 by default; players 1 then 2 (clockwise) bet 1 unless told otherwise."""
    t = open_table(E, balances, top, options, ages=ages, previous=previous)
    for h in t.state.hands:
        t.when(PlaceBet(h.seat, 1.0, (bets or {}).get(h.seat, 1)))
    return t


def nets(t):
    return {r["seat"]: r["net"] for r in t.state.results if "net" in r}


def test_deck_is_42_cards_with_counts_as_options():
    """Decision (seed 000_1414b0b0fea70c86.txt): 4 of each gem, 8 gold, 4 pebbles, 2 skeletons."""
    opts = E.options_schema().load({})
    assert len(cards.composition(G, opts)) == 42
    # From rules version 4 a deck serves a full table (test_sevenhalf_pirate_deck.py): 4 of
    # each gem at least, here with fewer of the other cards.
    small = E.options_schema().load({"gems": 4, "gold_coins": 3, "pebbles": 1, "skeletons": 0})
    assert len(cards.composition(G, small)) == 32


def test_card_values_in_half_points():
    """000_1414b0b0fea70c86.txt: gems 1..7, gold coins ½, pebbles 0, the skeleton 1..7."""
    assert cards.total(G, ["gem7.1", "gold.1", "pebble.1"]) == 15
    assert cards.total(G, ["gem3.1", "skeleton.1"]) == 14  # the skeleton at its best: 4
    assert cards.total(G, ["gem3.1", "skeleton.1"], {"skeleton.1": 1}) == 8
    assert cards.total(G, ["gem7.1", "gem1.1", "skeleton.1"]) == 18  # bust whatever: 1


def test_buy_in_defaults_to_ten_treasures():
    """000_1414b0b0fea70c86.txt: each player gets 10 treasures to bet."""
    assert E.options_schema().load({})["buy_in"] == 10
    assert E.info.extra["buy_in_option"] == "buy_in"


def test_meneur_is_the_oldest_player_ties_to_the_lowest_seat():
    """000_1414b0b0fea70c86.txt: the oldest player is the first meneur (Decision on ties)."""
    assert open_table(E, ages=(30, 60, 45)).state.banker == 1
    assert open_table(E, ages=(30, 60, 60)).state.banker == 1


def test_one_card_face_down_to_every_other_player_then_bets_of_one_or_two():
    """000_1414b0b0fea70c86.txt: one card to each other player, who looks and bets 1 or 2."""
    t = open_table(E, (10, 10, 1), ["gem1.1", "gem2.1"])
    dealt = [e for e in t.given if e.type == "CardDealt"]
    assert [(e.data["seat"], e.visible_to) for e in dealt] == [(1, {1}), (2, {2})]
    assert not t.state.bank.cards
    assert t.refused(PlaceBet(1, 1.0, 3)) == "bet_out_of_range"
    t.when(PlaceBet(1, 1.0, 2))
    assert E.legal_actions(t.state, 2) == [{"type": "bet", "amount": {"min": 1, "max": 1}}]


def test_play_goes_clockwise_from_the_meneurs_left():
    """000_1414b0b0fea70c86.txt: play goes clockwise, from the player left of the meneur."""
    t = betted([], balances=(10, 10, 10, 10), ages=(20, 20, 70, 20))
    assert t.state.order == (3, 0, 1)
    assert E.turn(t.state).seat == 3


def test_carte_deals_face_down_and_the_player_chooses_which_card_stays_hidden():
    """000_1414b0b0fea70c86.txt: one hidden card only, which may change as the hand grows."""
    t = betted(["gem2.1", "gem3.1", "gem4.1"])
    (card,) = t.when(Hit(1, 2.0))
    assert card.visible_to == frozenset({1}) and "card" not in card.public
    assert E.turn(t.state).waiting_for == "choose"
    assert E.legal_actions(t.state, 1) == [{"type": "hide", "card": "gem2.1"},
                                          {"type": "hide", "card": "gem4.1"}]
    assert t.refused(Stand(1, 2.0)) == "wrong_phase"
    (up,) = t.when(Hide(1, 2.0, "gem4.1"))
    assert up.type == "CardTurnedUp" and up.data["card"] == "gem2.1"
    assert E.view(t.state, Viewer.at_seat(2))["hands"][0]["cards"] == ["gem2.1", None]


def test_going_over_seven_half_is_not_announced():
    """000_1414b0b0fea70c86.txt: the hidden card keeps a bust secret (bluffing)."""
    t = betted(["gem5.1", "gem3.1", "gem6.1"])
    t.when(Hit(1, 2.0))
    events = t.when(Hide(1, 2.0, "gem6.1"))  # 11 points, unannounced
    assert "CardsShown" not in types(events) and E.turn(t.state).seat == 1
    public = E.view(t.state, SPECTATOR)["hands"][0]
    assert "total" not in public and public["status"] == "open"


def test_the_meneur_turns_up_cards_face_up():
    """000_1414b0b0fea70c86.txt: for the meneur every card is face up."""
    t = betted(["gem5.1", "gem3.1", "gem2.1"])
    t.when(Stand(1, 2.0))
    t.when(Stand(2, 2.0))
    assert E.turn(t.state).role == "banker"
    (card,) = t.when(Hit(0, 3.0))
    assert card.visible_to is None and card.data["card"] == "gem2.1"


def test_the_meneur_turns_up_a_card_before_his_first_call():
    """Decision (seed 000_1414b0b0fea70c86.txt): he turns up one card, then another, ..."""
    t = betted(["gem5.1", "gem3.1", "gem2.1"])
    t.when(Stand(1, 2.0))
    t.when(Stand(2, 2.0))
    assert t.refused(Call(0, 3.0, 1)) == "bad_target"
    assert [a["type"] for a in E.legal_actions(t.state, 0)] == ["hit"]


def meneur_at(top, stands=(1, 2), draws=1, **kw):
    t = betted(top, **kw)
    for seat in stands:
        t.when(Stand(seat, 2.0))
    for _ in range(draws):
        t.when(Hit(0, 3.0))
    return t


def test_called_player_loses_ties_and_worse_totals_and_gives_his_stake():
    """000_1414b0b0fea70c86.txt: ties and better totals go to the meneur."""
    t = meneur_at(["gem5.1", "gem3.1", "gem5.2"], bets={1: 2})
    t.when(Call(0, 3.0, 1))
    assert E.turn(t.state).seat == 1 and E.turn(t.state).waiting_for == "answer"
    events = t.when(Reveal(1, 4.0))
    assert only(events, "CardsShown")[0]["cards"] == ["gem5.1"]
    assert only(events, "CallDecided")[0]["net"] == -2


def test_called_player_with_a_better_total_takes_the_same_amount():
    """000_1414b0b0fea70c86.txt: a better player takes back his stake and as much again."""
    t = meneur_at(["gem5.1", "gem3.1", "gem4.1"], bets={1: 2})
    t.when(Call(0, 3.0, 1))
    t.when(Reveal(1, 4.0))
    t.when(Call(0, 5.0, 2))
    t.when(Reveal(2, 6.0))
    assert nets(t) == {1: 2, 2: -1}
    post = [(p.from_account, p.to_account, p.amount) for p in E.settle(t.state)]
    assert ("seat:0", "seat:1", 2) in post and ("escrow", "seat:1", 2) in post


def test_bust_players_always_lose():
    """000_1414b0b0fea70c86.txt: a player over 7½ loses when called."""
    t = betted(["gem5.1", "gem3.1", "gem6.1", "gem1.1"])
    t.when(Hit(1, 2.0))
    t.when(Hide(1, 2.0, "gem6.1"))
    t.when(Stand(1, 2.0))
    t.when(Stand(2, 2.0))
    t.when(Hit(0, 3.0))
    t.when(Call(0, 3.0, 1))
    t.when(Reveal(1, 4.0))
    assert nets(t)[1] == -1


def test_the_meneur_may_draw_between_calls():
    """000_1414b0b0fea70c86.txt: after a call he may turn up more cards before the next."""
    t = meneur_at(["gem5.1", "gem3.1", "gem2.1", "gem2.2"])
    t.when(Call(0, 3.0, 2))
    t.when(Reveal(2, 4.0))
    assert E.turn(t.state).role == "banker"
    t.when(Hit(0, 5.0))
    t.when(Call(0, 5.0, 1))
    events = t.when(Reveal(1, 6.0))
    assert only(events, "CallDecided")[0]["meneur_total"] == 8
    assert nets(t) == {2: 1, 1: 1}


def test_a_busted_meneur_pays_every_uncalled_player_his_stake():
    """000_1414b0b0fea70c86.txt: over 7½ the meneur pays the others their stake."""
    t = meneur_at(["gem5.1", "gem3.1", "gem6.1", "gem2.2"], bets={1: 2, 2: 1})
    t.when(Call(0, 3.0, 1))
    t.when(Reveal(1, 4.0))  # 5 against 6: lost
    t.when(Hit(0, 5.0))  # 8: bust
    assert E.is_terminal(t.state)
    assert nets(t) == {1: -2, 2: 1}
    uncalled = [r for r in t.state.results if r.get("uncalled")]
    assert [r["seat"] for r in uncalled] == [2]
    assert t.state.hands[1].hidden == ("gem3.1",)  # paid without showing


def test_a_busted_meneur_pays_an_uncalled_player_who_busted_too():
    """RULES.md 1c Decision (seed 000_1414b0b0fea70c86.txt): busts are never announced, so a
    busted meneur pays every player not yet called his stake, whatever his hidden total."""
    t = betted(["gem5.1", "gem6.1", "gem3.1", "gem5.2", "gem4.1"], bets={1: 1, 2: 2})
    t.when(Stand(1, 2.0))
    t.when(Hit(2, 2.0))
    t.when(Hide(2, 2.0, "gem6.1"))  # 9 points, unannounced
    t.when(Stand(2, 2.0))
    t.when(Hit(0, 3.0))
    t.when(Hit(0, 3.0))  # 9: the meneur busts before any call
    assert E.is_terminal(t.state)
    assert nets(t) == {1: 1, 2: 2}
    assert sorted(r["seat"] for r in t.state.results if r.get("uncalled")) == [1, 2]


def test_conceding_keeps_the_cards_hidden_from_all_but_auditors():
    """000_1414b0b0fea70c86.txt: a beaten player may give his stake without showing his game."""
    t = meneur_at(["gem5.1", "gem3.1", "gem7.1"])
    t.when(Call(0, 3.0, 1))
    events = t.when(Concede(1, 4.0))
    assert "CardsShown" not in types(events)
    t.when(Call(0, 5.0, 2))
    t.when(Concede(2, 6.0))
    assert E.is_terminal(t.state)
    for viewer in (SPECTATOR, Viewer.at_seat(0), Viewer.at_seat(2)):
        assert E.view(t.state, viewer)["hands"][0]["cards"] == [None]
        assert all("gem5.1" not in str(redact(e, viewer).data) for e in t.given)
    assert E.view(t.state, AUDITOR)["hands"][0]["cards"] == ["gem5.1"]
    assert nets(t) == {1: -1, 2: -1}


def test_first_revealed_seven_half_is_paid_double_and_becomes_meneur():
    """000_1414b0b0fea70c86.txt: the first to show 7½ gets double and is the next meneur."""
    t = betted(["gem7.1", "gem7.2", "gold.1", "gold.2", "gem5.1"], bets={1: 2, 2: 2})
    t.when(Hit(1, 2.0))
    t.when(Hide(1, 2.0, "gold.1"))
    t.when(Stand(1, 2.0))
    t.when(Hit(2, 2.0))
    t.when(Hide(2, 2.0, "gold.2"))
    t.when(Stand(2, 2.0))
    t.when(Hit(0, 3.0))
    t.when(Call(0, 3.0, 2))
    t.when(Reveal(2, 4.0))
    t.when(Call(0, 5.0, 1))
    t.when(Reveal(1, 6.0))
    assert nets(t) == {2: 4, 1: 2}
    assert t.state.next_banker == 2
    assert open_table(E, previous=t.state).state.banker == 2


def test_seven_half_is_not_doubled_when_the_meneur_has_it_too():
    """000_1414b0b0fea70c86.txt: double the stake, unless the meneur also has 7½."""
    t = betted(["gem7.1", "gem3.1", "gold.1", "gem7.2", "gold.2"])
    t.when(Hit(1, 2.0))
    t.when(Hide(1, 2.0, "gold.1"))
    t.when(Stand(1, 2.0))
    t.when(Stand(2, 2.0))
    t.when(Hit(0, 3.0))
    t.when(Hit(0, 3.0))  # meneur 7½
    t.when(Call(0, 3.0, 1))
    t.when(Reveal(1, 4.0))
    t.when(Call(0, 5.0, 2))
    t.when(Concede(2, 6.0))
    assert nets(t)[1] == -1 and t.state.next_banker == 1


def test_otherwise_the_meneur_stays_unless_a_player_volunteers():
    """000_1414b0b0fea70c86.txt: the meneur stays, unless another player volunteers."""
    t = meneur_at(["gem5.1", "gem3.1", "gem7.1"])
    t.when(Call(0, 3.0, 1))
    t.when(Concede(1, 4.0))
    t.when(Call(0, 5.0, 2))
    t.when(Concede(2, 6.0))
    assert t.state.next_banker is None
    assert open_table(E, previous=t.state).state.banker == 0
    assert E.legal_actions(t.state, 2) == [{"type": "volunteer"}]
    assert t.refused(Volunteer(0, 7.0)) == "cannot_volunteer"
    events = t.when(Volunteer(2, 7.0))
    assert types(events) == ["Volunteered"] and E.settle(t.state)
    assert open_table(E, previous=t.state).state.banker == 2


def test_the_next_meneur_is_a_seven_half_else_one_volunteer_else_the_same_else_the_oldest():
    """000_1414b0b0fea70c86.txt: the first to show 7½ is the next meneur; otherwise the meneur
    stays unless another player volunteers. Volunteering is offered between hands only, to the
    other seats, once, and not when a 7½ took the post (RULES.md 1c's order; a line-up that
    changed starts afresh with the oldest)."""
    during = betted(["gem5.1", "gem3.1", "gem7.1"])
    assert all(a["type"] != "volunteer" for s in (0, 1, 2) for a in E.legal_actions(during.state, s))
    assert during.refused(Volunteer(1, 2.0)) == "wrong_phase"

    seven = betted(["gem7.1", "gem3.1", "gold.1", "gem5.1"])
    seven.when(Hit(1, 2.0))
    seven.when(Hide(1, 2.0, "gold.1"))
    seven.when(Stand(1, 2.0))
    seven.when(Stand(2, 2.0))
    seven.when(Hit(0, 3.0))
    seven.when(Call(0, 3.0, 1))
    seven.when(Reveal(1, 4.0))
    seven.when(Call(0, 5.0, 2))
    seven.when(Concede(2, 6.0))
    assert seven.state.next_banker == 1
    assert [E.legal_actions(seven.state, s) for s in (0, 1, 2)] == [[], [], []]
    assert seven.refused(Volunteer(2, 7.0)) == "cannot_volunteer"
    assert open_table(E, previous=seven.state).state.banker == 1

    quiet = meneur_at(["gem5.1", "gem3.1", "gem7.1"])
    quiet.when(Call(0, 3.0, 1))
    quiet.when(Concede(1, 4.0))
    quiet.when(Call(0, 5.0, 2))
    quiet.when(Concede(2, 6.0))
    assert [E.legal_actions(quiet.state, s) for s in (0, 1, 2)] == [[], *[[{"type": "volunteer"}]] * 2]
    assert open_table(E, previous=quiet.state).state.banker == 0  # nobody volunteered: he stays
    stays = quiet.state
    quiet.when(Volunteer(2, 7.0))
    assert [E.legal_actions(quiet.state, s) for s in (0, 1, 2)] == [[], [], []]
    assert quiet.refused(Volunteer(1, 8.0)) == "volunteer_taken"
    assert open_table(E, previous=quiet.state).state.banker == 2
    assert open_table(E, previous=stays).state.banker == 0
    assert open_table(E, ages=(30, 60, 45), previous=None).state.banker == 1


def test_a_second_volunteer_is_told_the_post_is_taken_and_the_view_names_the_first():
    """000_1414b0b0fea70c86.txt: when no 7½ took the post, the meneur stays unless another player
    volunteers; once one has, the next meneur is known: another volunteer is refused as taken
    (not as the meneur's own, `cannot_volunteer`) and every view names the volunteer."""
    t = meneur_at(["gem5.1", "gem3.1", "gem7.1"])
    t.when(Call(0, 3.0, 1))
    t.when(Concede(1, 4.0))
    t.when(Call(0, 5.0, 2))
    t.when(Concede(2, 6.0))
    assert E.view(t.state, SPECTATOR)["next_banker"] is None  # the meneur stays, unless ...
    assert t.refused(Volunteer(0, 7.0)) == "cannot_volunteer"
    t.when(Volunteer(2, 7.0))
    for viewer in (SPECTATOR, AUDITOR, *(Viewer.at_seat(s) for s in (0, 1, 2))):
        assert E.view(t.state, viewer)["next_banker"] == 2
    for seat in (0, 1, 2):
        with pytest.raises(IllegalMove) as e:
            E.decide(t.state, Volunteer(seat, 8.0))
        assert e.value.code == "volunteer_taken" and "seat 2" in e.value.message
    assert open_table(E, previous=t.state).state.banker == 2


def test_skeleton_value_is_declared_privately_when_standing():
    """000_1414b0b0fea70c86.txt: the skeleton's holder gives it a whole value 1..7."""
    t = betted(["skeleton.1", "gem3.1", "gem2.1"])
    assert E.legal_actions(t.state, 1) == [
        {"type": "hit"}, {"type": "stand", "declare": {"skeleton.1": {"min": 1, "max": 7}}}]
    assert t.refused(Stand(1, 2.0, {"skeleton.1": 8})) == "bad_declaration"
    assert t.refused(Stand(1, 2.0, {"gem3.1": 2})) == "bad_declaration"
    (stood,) = t.when(Stand(1, 2.0, {"skeleton.1": 6}))[:1]
    assert stood.visible_to == frozenset({1}) and "declared" not in stood.public
    t.when(Stand(2, 2.0))
    t.when(Hit(0, 3.0))
    t.when(Call(0, 3.0, 1))
    events = t.when(Reveal(1, 4.0))
    assert only(events, "CardsShown")[0]["declared"] == {"skeleton.1": 6}


def test_skeleton_value_declared_when_revealing_or_chosen_best_by_the_engine():
    """000_1414b0b0fea70c86.txt: undeclared, the engine picks the best value (Decision)."""
    t = meneur_at(["skeleton.1", "skeleton.2", "gem6.1"])
    t.when(Call(0, 3.0, 1))
    events = t.when(Reveal(1, 4.0, {"skeleton.1": 2}))
    assert only(events, "CallDecided")[0]["total"] == 4
    t.when(Call(0, 5.0, 2))
    events = t.when(Reveal(2, 6.0))
    assert only(events, "CardsShown")[0]["declared"] == {"skeleton.2": 7}


def test_the_meneur_declares_a_skeleton_he_turns_up():
    """000_1414b0b0fea70c86.txt: the meneur fixes the value of his skeleton when turned up."""
    t = meneur_at(["gem5.1", "gem3.1", "skeleton.1"])
    assert {"type": "declare", "card": "skeleton.1", "value": {"min": 1, "max": 7}} in (
        E.legal_actions(t.state, 0))
    (declared,) = t.when(Declare(0, 3.0, "skeleton.1", 4))
    assert declared.visible_to is None and declared.data["value"] == 4
    t.when(Call(0, 3.0, 1))
    t.when(Reveal(1, 4.0))
    assert nets(t)[1] == 1  # 5 beats the meneur's declared 4


def skeleton_first(engine=E):
    """Meneur seat 0 (the oldest), seats 1 and 2 dealt gem 6s, betting 1 and standing; the
    meneur turns up a skeleton, then a gem 5 lies on top of the deck."""
    t = open_table(engine, (10, 10, 10), ["gem6.1", "gem6.2", "skeleton.1", "gem5.1", "gem3.1"],
                   ages=(50, 20, 20))
    for seat in (1, 2):
        t.when(PlaceBet(seat, 1.0, 1))
    for seat in (1, 2):
        t.when(Stand(seat, 2.0))
    t.when(Hit(0, 3.0))
    return t


def test_the_meneurs_skeleton_keeps_the_value_it_was_given_for_the_whole_hand():
    """RULES.md §1c, "Skeleton value" (seed 000_1414b0b0fea70c86.txt: the skeleton's holder gives
    it the value he wishes, 1 to 7): the meneur declares it when he turns it up; if he calls
    without declaring it, it is fixed then at its best (7 here, beating a 6), and the gem 5 he
    draws next takes him to 12: bust, he pays the uncalled seat 2 (rules version 3)."""
    assert E.info.version >= 3  # and kept by version 4
    t = skeleton_first()
    events = t.when(Call(0, 4.0, 1))
    assert [(e.type, dict(e.data)) for e in events[:1]] == [("SkeletonDeclared", {
        "seat": 0, "index": -1, "card": "skeleton.1", "value": 7, "picked": True})]
    assert only(t.when(Reveal(1, 5.0)), "CallDecided")[0]["meneur_total"] == 14
    assert {"type": "declare", "card": "skeleton.1", "value": {"min": 1, "max": 7}} not in (
        E.legal_actions(t.state, 0))
    assert t.refused(Declare(0, 6.0, "skeleton.1", 1)) == "bad_declaration"
    events = t.when(Hit(0, 6.0))
    assert only(events, "CardsShown")[0]["reason"] == "bust"
    assert nets(t) == {1: -1, 2: 1}


def test_the_meneur_who_declares_his_skeleton_as_he_turns_it_up_keeps_that_value():
    """Seed 000_1414b0b0fea70c86.txt: the value is the holder's to choose: declared 1, the
    skeleton stays 1 when he draws the gem 5 (6 in all) and calls."""
    t = skeleton_first()
    t.when(Declare(0, 4.0, "skeleton.1", 1))
    events = t.when(Hit(0, 5.0))
    assert "SkeletonDeclared" not in types(events) and "CardsShown" not in types(events)
    t.when(Call(0, 6.0, 1))
    assert only(t.when(Reveal(1, 7.0)), "CallDecided")[0]["meneur_total"] == 12


def test_the_meneurs_timeout_fixes_each_skeleton_as_it_is_turned_up():
    """RULES.md §1c: the timed-out meneur follows the banker policy; a skeleton it turns up is
    fixed at its best then (7, over `banker_stand_at` 5: he stops and calls seat 1)."""
    t = open_table(E, (10, 10, 10), ["gem6.1", "gem6.2", "skeleton.1", "gem5.1"], ages=(50, 20, 20),
                   options={"banker_stand_at": 5})
    for seat in (1, 2):
        t.when(PlaceBet(seat, 1.0, 1))
    for seat in (1, 2):
        t.when(Stand(seat, 2.0))
    events = t.when(E.timeout(t.state, 1000.0))
    assert types(events)[:3] == ["CardDealt", "SkeletonDeclared", "PlayerCalled"]
    assert events[1].data["value"] == 7 and events[1].data["picked"] is True


@pytest.mark.parametrize("version", [1, 2])
def test_rules_versions_1_and_2_valued_the_meneurs_open_skeleton_anew_at_every_look(version):
    """Versions 1 and 2, still served for their tables: the same skeleton counted 7 against
    seat 1, then 2 beside the gem 5 the meneur drew (no bust), and seat 2 lost to his 7."""
    old = registry.engine(G, version)
    t = skeleton_first(old)
    assert "SkeletonDeclared" not in types(t.when(Call(0, 4.0, 1)))
    assert only(t.when(Reveal(1, 5.0)), "CallDecided")[0]["meneur_total"] == 14
    assert "CardsShown" not in types(t.when(Hit(0, 6.0)))
    t.when(Call(0, 7.0, 2))
    assert only(t.when(Reveal(2, 8.0)), "CallDecided")[0]["meneur_total"] == 14
    assert nets(t) == {1: -1, 2: -1}


def test_timeouts_stand_turn_up_the_new_card_and_reveal():
    """RULES.md §1c (seed 000_1414b0b0fea70c86.txt): a player who does not act stands."""
    t = betted(["gem2.1", "gem3.1", "gem4.1", "gem1.1", "gem1.2"])
    t.when(Hit(1, 2.0))
    events = t.when(E.timeout(t.state, 100.0))
    assert [(e.type, e.data.get("card")) for e in events[:2]] == [
        ("CardTurnedUp", "gem4.1"), ("Stood", None)]
    assert types(t.when(E.timeout(t.state, 200.0)))[0] == "Stood"
    t.when(Hit(0, 300.0))
    t.when(Call(0, 300.0, 1))
    events = t.when(E.timeout(t.state, 400.0))
    assert types(events)[:2] == ["CardsShown", "CallDecided"]
    assert only(events, "CallDecided")[0]["timeout"] is True


def test_meneur_timeout_follows_the_banker_policy_then_calls_clockwise():
    """RULES.md §1c (seed 000_1414b0b0fea70c86.txt): banker policy of 1a, then calls in order."""
    t = meneur_at(["gem2.1", "gem3.1", "gem1.1", "gem2.2", "gem1.2"], draws=0,
                  options={"banker_stand_at": 4})
    assert t.refused(TimeOut(0, 10.0)) == "too_early"
    events = t.when(E.timeout(t.state, 1000.0))
    assert [d["card"] for d in only(events, "CardDealt")] == ["gem1.1", "gem2.2", "gem1.2"]
    assert only(events, "PlayerCalled") == [{"seat": 0, "target": 1, "timeout": True}]
    t.when(Reveal(1, 1001.0))
    events = t.when(E.timeout(t.state, 5000.0))
    assert only(events, "PlayerCalled") == [{"seat": 0, "target": 2, "timeout": True}]


def test_a_player_who_lets_the_betting_timer_run_bets_the_minimum_and_stands():
    """RULES.md §1c (seed 000_1414b0b0fea70c86.txt): every player who was dealt a card bets 1 or
    2 treasures ("misent 1 ou 2 de leurs trésors"), and one who does not act stands: the timeout
    is no fold after seeing one's card (from rules version 2)."""
    assert E.info.version >= 2
    t = open_table(E, (10, 10, 10), ["gem7.1", "gem1.1", "gem1.2"])
    events = t.when(E.timeout(t.state, 100.0))
    assert [(e.type, dict(e.data)) for e in events[:2]] == [
        ("BetPlaced", {"seat": 1, "index": 0, "amount": 1, "timeout": True}),
        ("Stood", {"seat": 1, "index": 0, "timeout": True})]
    assert "SatOut" not in types(events)
    assert [p.amount for p in events[0].postings] == [1]
    hand = t.state.hands_of(1)[0][1]
    assert (hand.status, hand.stake) == ("stood", 1)
    assert E.legal_actions(t.state, 2) == [{"type": "bet", "amount": {"min": 1, "max": 2}}]
    t.when(PlaceBet(2, 101.0, 2))
    assert E.turn(t.state).seat == 2  # seat 1 stood already: seat 2 plays, then the meneur
    t.when(Stand(2, 102.0))
    t.when(Hit(0, 103.0))
    t.when(Call(0, 104.0, 1))
    t.when(Reveal(1, 105.0))
    assert nets(t)[1] == 1  # his gem 7 beats the meneur's gem 1: the minimum stake is in play


def test_the_minimum_bet_on_timeout_is_the_tables_min_bet():
    """Seed 000_1414b0b0fea70c86.txt: the timed-out bet is the smallest the table allows; a seat
    holding less than `min_bet` is dealt no card, so every seat asked to bet can pay it."""
    t = open_table(E, (10, 1, 10), options={"min_bet": 2, "max_bet": 2})
    assert [h.seat for h in t.state.hands] == [2]
    assert only(t.when(E.timeout(t.state, 100.0)), "BetPlaced") == [
        {"seat": 2, "index": 0, "amount": 2, "timeout": True}]
    v2 = registry.engine(G, 2)  # placed the same bet unmarked
    t = open_table(v2, (10, 1, 10), options={"min_bet": 2, "max_bet": 2})
    assert only(t.when(v2.timeout(t.state, 100.0)), "BetPlaced") == [
        {"seat": 2, "index": 0, "amount": 2}]


def test_a_buy_in_below_the_minimum_bet_is_refused_with_the_tables_options():
    """Seed 000_1414b0b0fea70c86.txt: every player bets at least 1 treasure of his buy-in; a
    table whose `buy_in` is below `min_bet` would deal nobody a card (rules version 2)."""
    with pytest.raises(IllegalMove) as e:
        E.load_options({"buy_in": 1, "min_bet": 2, "max_bet": 2})
    assert e.value.code == "bad_options" and "buy_in" in e.value.message
    assert E.load_options({"buy_in": 2, "min_bet": 2, "max_bet": 2})["buy_in"] == 2


def test_rules_version_1_sat_a_timed_out_bettor_out():
    """Rules version 1, still served for the tables created with it (games/registry.py): a
    player who did not bet sat the hand out. Hands played so keep verifying."""
    v1 = registry.engine(G, 1)
    assert v1.info.version == 1 and registry.current_version(G) == 4
    t = open_table(v1)
    assert only(t.when(v1.timeout(t.state, 100.0)), "SatOut") == [{"seat": 1, "timeout": True}]


def test_a_short_meneur_pays_in_table_order():
    """Money in the 7½ family (seed 000_1414b0b0fea70c86.txt): shortfall recorded in order."""
    t = meneur_at(["gem5.1", "gem3.1", "gem6.1", "gem2.2"], stands=(1, 2),
                  balances=(1, 10, 10), bets={1: 2, 2: 2})
    t.when(Hit(0, 4.0))  # 8: bust, owes 2 to each
    short = [e.data for e in t.given if e.type == "ShortfallRecorded"]
    assert [(s["payee"], s["owed"], s["paid"]) for s in short] == [(1, 2, 1), (2, 2, 0)]
    assert all(b >= 0 for b in t.state.balances.values())


def test_table_ends_when_a_player_has_no_treasure_or_time_is_up():
    """000_1414b0b0fea70c86.txt: a set duration, or as soon as one player has no treasure."""
    t = meneur_at(["gem5.1", "gem3.1", "gem7.1"], balances=(10, 1, 10),
                  options={"duration_s": 600})
    t.when(Call(0, 3.0, 2))
    t.when(Concede(2, 4.0))
    t.when(Call(0, 5.0, 1))
    t.when(Concede(1, 6.0))
    assert E.table_over(t.state, 10.0)  # seat 1 has nothing left
    t = meneur_at(["gem5.1", "gem3.1", "gem1.1"], options={"duration_s": 600})
    t.when(Call(0, 3.0, 2))
    t.when(Concede(2, 4.0))
    t.when(Call(0, 5.0, 1))
    t.when(Concede(1, 6.0))
    assert not E.table_over(t.state, 599.0) and E.table_over(t.state, 600.0)
