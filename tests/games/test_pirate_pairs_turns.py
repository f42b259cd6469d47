"""Pirate pairs, a turn (RULES.md §2): attack, challenge, accuse, draw, elimination, the win."""

from __future__ import annotations

import pytest

from games import deck
from games.contract import SPECTATOR, IllegalMove, Posting, Viewer, redact
from games.pirate_pairs import ENGINE
from games.pirate_pairs.commands import Accuse, Attack, Challenge, Draw
from tests.games import gwt
from tests.games.pirate_pairs_given import MATERIAL, state_of, table, types

THREE = table(hands={0: ["5.1", "9.1"], 1: ["6.1", "6.2"], 2: ["8.1", "10.1"]},
              rows={0: ["2.1"], 1: ["3.1"], 2: ["4.1", "7.1"]},
              pile=["7.2", "3.2", "10.2"], turn=0)


def refused(given, command) -> str:
    with pytest.raises(IllegalMove) as e:
        gwt.when(ENGINE, {}, given, command)
    return e.value.code


def test_attack_puts_a_hand_card_face_up_before_the_target_who_plays_next():
    """002_ae078369b503c97e.txt: ATTAQUER, "C'est à lui de jouer"."""
    then = gwt.when(ENGINE, {}, THREE, Attack(0, 1.0, 2, "5.1"))
    assert types(then) == ["PlayerAttacked", "TurnPassed"]
    assert then[0].visible_to is None and then[1].data["seat"] == 2
    state = state_of([*THREE, *then])
    assert state.player(2).row == ("4.1", "7.1", "5.1") and state.player(0).hand == ("9.1",)


def test_attack_may_not_pair_the_targets_face_up_cards():
    """002_ae078369b503c97e.txt: "sans faire de paire avec les cartes qu'il a devant lui"."""
    given = table(hands={0: ["7.2"], 1: ["6.1"]}, rows={0: ["2.1"], 1: ["7.1"]}, turn=0)
    assert refused(given, Attack(0, 1.0, 1, "7.2")) == "makes_pair"
    assert {"type": "attack", "target": 1, "card": "7.2"} not in ENGINE.legal_actions(
        state_of(given), 0)
    assert refused(THREE, Attack(0, 1.0, 2, "6.1")) == "not_in_hand"


def test_unpaired_challenge_lands_face_up_before_the_target_who_plays_next():
    """002_ae078369b503c97e.txt: DÉFIER, "le défi est réussi, c'est à lui de jouer"."""
    then = gwt.when(ENGINE, {}, THREE, Challenge(0, 1.0, 1))
    assert types(then) == ["PlayerChallenged", "TurnPassed"]
    assert then[0].data == {"seat": 0, "target": 1, "card": "7.2", "paired": False}
    assert then[1].data["seat"] == 1
    assert state_of([*THREE, *then]).player(1).row == ("3.1", "7.2")


def test_challenge_card_is_seen_by_nobody_before_it_lands_face_up():
    """002_ae078369b503c97e.txt: "Piochez une carte sans la regarder et posez-la face visible"."""
    then = gwt.when(ENGINE, {}, THREE, Challenge(0, 1.0, 1))
    # No event shows the card to the challenger alone: the one event naming it is public.
    assert [e.visible_to for e in then if "card" in e.data] == [None]
    assert "7.2" not in str(ENGINE.view(state_of(THREE), Viewer.at_seat(0)))


def test_paired_challenge_eliminates_the_challenger_and_discards_the_card():
    """002_ae078369b503c97e.txt: "Si vous faites une paire, vous êtes éliminé. Défaussez"."""
    then = gwt.when(ENGINE, {}, THREE, Challenge(0, 1.0, 2))
    assert types(then) == ["PlayerChallenged", "PlayerEliminated", "TurnPassed"]
    assert then[0].data["paired"] is True
    assert then[1].data == {"seat": 0, "reason": "paired_on_challenge",
                            "cards": ["5.1", "9.1", "2.1"]}
    assert then[2].data["seat"] == 1  # the player to the challenger's left
    state = state_of([*THREE, *then])
    assert state.discards == ("7.2", "5.1", "9.1", "2.1") and state.player(2).row == ("4.1", "7.1")


def test_accused_players_cards_are_shown_to_the_accuser_only():
    """002_ae078369b503c97e.txt: ACCUSER, "Ce joueur vous montre ses cartes (et à vous seul)"."""
    then = gwt.when(ENGINE, {}, THREE, Accuse(0, 1.0, 2))
    shown = then[0]
    assert shown.type == "PlayerAccused" and shown.visible_to == frozenset({0, 2})
    assert shown.data["hand"] == ["8.1", "10.1"]
    for viewer in (Viewer.at_seat(1), SPECTATOR):
        assert redact(shown, viewer).data == {"seat": 0, "target": 2}


def test_rightful_accusation_eliminates_the_target_and_the_accusers_left_plays():
    """002_ae078369b503c97e.txt: "Il est alors éliminé. C'est au joueur à votre gauche de jouer"."""
    given = table(hands={0: ["5.1"], 1: ["6.1", "6.2"], 2: ["8.1"]},
                  rows={0: ["2.1"], 1: ["3.1"], 2: ["4.1"]}, turn=0)
    then = gwt.when(ENGINE, {}, given, Accuse(0, 1.0, 1))
    assert types(then) == ["PlayerAccused", "PlayerEliminated", "TurnPassed"]
    assert then[1].data == {"seat": 1, "reason": "accused_rightly", "cards": ["6.1", "6.2", "3.1"]}
    assert then[2].data["seat"] == 2  # seat 1 is out, so seat 2 is now to seat 0's left


def test_a_pair_may_join_a_hand_card_and_a_face_up_card():
    """002_ae078369b503c97e.txt: "une paire entre les cartes de sa main et celles devant lui"."""
    given = table(hands={0: ["5.1"], 1: ["9.2"], 2: ["8.1"]},
                  rows={0: ["2.1"], 1: ["3.1", "9.1"], 2: ["4.1"]}, turn=2)
    then = gwt.when(ENGINE, {}, given, Accuse(2, 1.0, 1))
    assert then[0].data["paired"] is True and then[1].data["seat"] == 1
    assert then[2].data["seat"] == 0  # clockwise from seat 2 wraps to seat 0


def test_false_accusation_eliminates_the_accuser_and_the_target_plays():
    """002_ae078369b503c97e.txt: "S'il n'a pas de paire, c'est vous qui êtes éliminé"."""
    then = gwt.when(ENGINE, {}, THREE, Accuse(0, 1.0, 2))
    assert types(then) == ["PlayerAccused", "PlayerEliminated", "TurnPassed"]
    assert then[0].data["paired"] is False
    assert then[1].data["seat"] == 0 and then[1].data["reason"] == "accused_wrongly"
    assert then[2].data["seat"] == 2


def test_draw_is_silent_even_when_it_makes_a_pair_and_the_left_plays():
    """002_ae078369b503c97e.txt: PIOCHER, "ne dites rien, vous n'avez pas perdu"."""
    given = table(hands={0: ["5.1"], 1: ["7.1"], 2: ["8.1"]},
                  rows={0: ["2.1"], 1: ["3.1"], 2: ["4.1"]}, pile=["7.2"], turn=1)
    then = gwt.when(ENGINE, {}, given, Draw(1, 1.0))
    assert types(then) == ["CardDrawn", "TurnPassed"]
    assert then[0].visible_to == frozenset({1})
    assert redact(then[0], Viewer.at_seat(0)).data == {"seat": 1}
    assert then[1].data["seat"] == 2
    assert state_of([*given, *then]).player(1).hand == ("7.1", "7.2")


def test_the_left_is_the_next_seat_clockwise_still_in():
    """002_ae078369b503c97e.txt: "le joueur à votre gauche" (RULES.md: clockwise, wrapping)."""
    given = table(hands={0: ["5.1"], 1: ["7.1"], 2: ["8.1"], 3: ["9.1"]},
                  rows={0: ["2.1"], 1: ["3.1"], 2: ["4.1"], 3: ["6.1"]},
                  pile=["10.1", "10.2"], out=[0], turn=3)
    then = gwt.when(ENGINE, {}, given, Draw(3, 1.0))
    assert then[-1].data["seat"] == 1


def test_eliminated_players_cannot_be_targeted_or_play():
    """002_ae078369b503c97e.txt: an eliminated pirate is out of the game."""
    given = table(hands={0: ["5.1"], 1: ["7.1"], 2: ["8.1"]},
                  rows={0: ["2.1"], 1: ["3.1"], 2: ["4.1"]}, pile=["10.1"], out=[2], turn=0)
    assert refused(given, Accuse(0, 1.0, 2)) == "bad_target"
    assert refused(given, Accuse(0, 1.0, 0)) == "bad_target"
    assert refused(given, Accuse(0, 1.0, 7)) == "unknown_seat"
    assert refused(given, Draw(2, 1.0)) == "not_your_turn"
    assert ENGINE.legal_actions(state_of(given), 2) == []


def test_the_last_player_in_wins_the_pot():
    """002_ae078369b503c97e.txt: "Le dernier joueur en jeu gagne la partie" (and the stake)."""
    given = table(hands={0: ["5.1"], 1: ["6.1", "6.2"]}, rows={0: ["2.1"], 1: ["3.1"]},
                  turn=0, stake=4)
    then = gwt.when(ENGINE, {"stake": 4}, given, Accuse(0, 1.0, 1))
    assert types(then) == ["PlayerAccused", "PlayerEliminated", "GameWon"]
    state = state_of([*given, *then], {"stake": 4})
    assert ENGINE.is_terminal(state) and ENGINE.turn(state) is None
    assert ENGINE.table_over(state, 2.0)
    assert ENGINE.settle(state) == [Posting("pot", "seat:0", 8, "pot_won")]


def test_an_empty_pile_is_refilled_by_reshuffling_the_discards():
    """002_ae078369b503c97e.txt (RULES.md §2 Decision): the discards are shuffled, seeded."""
    given = table(hands={0: ["5.1"], 1: ["7.1"]}, rows={0: ["2.1"], 1: ["3.1"]},
                  discards=["9.1", "9.2", "9.3"], turn=0)
    then = gwt.when(ENGINE, {}, given, Draw(0, 1.0))
    order = deck.shuffled(["9.1", "9.2", "9.3"], MATERIAL, label="reshuffle-1")
    assert types(then) == ["DiscardsReshuffled", "CardDrawn", "TurnPassed"]
    assert then[0].data["pile"] == list(order) and then[0].visible_to == frozenset()
    assert redact(then[0], Viewer.at_seat(0)).data == {"reshuffle": 1, "count": 3}
    assert then[1].data["card"] == order[0]
    state = state_of([*given, *then])
    assert state.pile == order[1:] and state.discards == ()


def test_with_no_pile_and_no_discards_draw_and_challenge_are_refused():
    """002_ae078369b503c97e.txt (RULES.md §2 Decision): nothing to draw, no Draw nor Challenge."""
    given = table(hands={0: ["5.1"], 1: ["7.1"]}, rows={0: ["2.1"], 1: ["3.1"]}, turn=0)
    assert refused(given, Draw(0, 1.0)) == "no_cards_to_draw"
    assert refused(given, Challenge(0, 1.0, 1)) == "no_cards_to_draw"
    offered = {a["type"] for a in ENGINE.legal_actions(state_of(given), 0)}
    assert offered == {"attack", "accuse"}


def test_only_the_player_whose_turn_it_is_may_play():
    """002_ae078369b503c97e.txt: "Quand c'est à vous de jouer"."""
    assert refused(THREE, Draw(1, 1.0)) == "not_your_turn"
    assert ENGINE.legal_actions(state_of(THREE), 1) == []
