"""Totals of the 7½ family with their display forms (RULES.md §1: half-points, 7½ = 15), made
from what a view or an event shows and from nothing a viewer may not see."""

from __future__ import annotations

from games.cassino import ENGINE as CASSINO
from games.contract import AUDITOR, SPECTATOR, Viewer
from games.pirate_pairs import ENGINE as PIRATE_PAIRS
from games.sevenhalf import ENGINES
from games.sevenhalf.commands import Hide, Hit, PlaceBet
from games.sevenhalf.display import points
from tests.games.sevenhalf_support import open_table

SETTE, PIRATE = ENGINES["sette-e-mezzo"], ENGINES["casino-pirate"]


def test_totals_are_written_in_points_with_their_half():
    """001_6b5bbd2473d5c47f.txt: figures count ½ and the aim is 7½ (kept as 15 half-points);
    000_1414b0b0fea70c86.txt: a gold coin is ½, a pebble 0."""
    assert [points(t) for t in (0, 1, 14, 15, 16, 20, 21)] == \
        ["0", "0½", "7", "7½", "8", "10", "10½"]


def test_a_view_shows_each_total_it_shows_with_its_display():
    """001_6b5bbd2473d5c47f.txt: 3 and 7 make 10 (20 half-points), a bust shown to all; a lone
    figure is ½, seen by its holder only."""
    t = open_table(SETTE, (50, 50, 50), ["3s", "Kd", "As", "7h"])
    for seat in t.state.order:
        t.when(PlaceBet(seat, 1.0, 10))
    t.when(Hit(2, 2.0))  # 3s + 7h: bust, shown
    bust = {"total": 20, "total_display": "10"}
    for viewer in (Viewer.at_seat(1), Viewer.at_seat(2), SPECTATOR, AUDITOR):
        assert SETTE.view(t.state, viewer)["hands"][0].items() >= bust.items()
    own = SETTE.view(t.state, Viewer.at_seat(1))["hands"][1]
    assert (own["total"], own["total_display"]) == (1, "0½")
    for viewer in (Viewer.at_seat(2), SPECTATOR):
        hidden = SETTE.view(t.state, viewer)["hands"][1]
        assert hidden["cards"] == [None]
        assert "total" not in hidden and "total_display" not in hidden
        assert "total_display" not in SETTE.view(t.state, viewer)["bank"]


def test_a_hidden_bust_shows_no_total_nor_display_to_others():
    """000_1414b0b0fea70c86.txt: the hidden card keeps a bust secret; its holder sees 11."""
    t = open_table(PIRATE, (10, 10, 10), ["gem5.1", "gem3.1", "gem6.1"])
    for h in t.state.hands:
        t.when(PlaceBet(h.seat, 1.0, 1))
    t.when(Hit(1, 2.0))
    t.when(Hide(1, 2.0, "gem6.1"))
    mine = PIRATE.view(t.state, Viewer.at_seat(1))["hands"][0]
    assert (mine["total"], mine["total_display"]) == (22, "11")
    for viewer in (Viewer.at_seat(2), SPECTATOR):
        theirs = PIRATE.view(t.state, viewer)["hands"][0]
        assert "total" not in theirs and "total_display" not in theirs


def test_an_events_totals_are_made_readable_where_it_shows_them():
    """000_1414b0b0fea70c86.txt: a called player's 7½ against the meneur's 6½; a conceded call
    shows no total, so no display."""
    called = {"seat": 1, "total": 15, "meneur_total": 13, "conceded": False}
    assert PIRATE.readable(called) == {**called, "total_display": "7½", "meneur_total_display": "6½"}
    conceded = {"seat": 1, "total": None, "meneur_total": 12, "conceded": True}
    assert PIRATE.readable(conceded) == {**conceded, "meneur_total_display": "6"}
    ended = {"results": [{"seat": 0, "total": 5, "banker": True}]}
    assert PIRATE.readable(ended)["results"][0]["total_display"] == "2½"


def test_cassino_and_pirate_pairs_count_whole_numbers_and_need_no_display():
    """003_37d90c873e067319.txt: points are whole (game to 21); 002_ae078369b503c97e.txt: pairs of
    card values, no totals."""
    scored = {"round_points": [{"cards": 1, "total": 7}], "scores": [7, 4]}
    assert CASSINO.readable(scored) == scored
    assert PIRATE_PAIRS.readable({"card": 4}) == {"card": 4}
