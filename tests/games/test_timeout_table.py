"""The README's timeout table says what each engine's timeout does, where the engine does more
than RULES.md's one line: the table is what clients and players read to know what a lapsed turn
plays for them."""

from __future__ import annotations

from pathlib import Path

from games.pirate_pairs import ENGINE as PIRATE_PAIRS
from games.sevenhalf import ENGINES as SEVEN_HALF
from tests.games.pirate_pairs_given import state_of, table
from tests.games.sevenhalf_support import open_table, types

README = Path(__file__).resolve().parents[2] / "README.md"


def row(game: str) -> str:
    """The README's timeout table row of `game` (its player column and its banker column)."""
    table_text = README.read_text().split("| game | a player who times out |", 1)[1]
    return next(line for line in table_text.splitlines() if line.strip().startswith(f"| {game} |"))


def test_a_pirate_pairs_player_with_nothing_to_draw_attacks_else_accuses_as_the_readme_says():
    """002_ae078369b503c97e.txt (RULES.md §2 timeout: "the player draws"): with neither pile nor
    discards there is nothing to draw, and the engine makes the first legal attack (targets
    clockwise from him, his cards lowest first), else accuses the player to his left
    (games/pirate_pairs/decide.py). The README's table said only "draws"."""
    attack = state_of(table(hands={0: ["9.1", "5.1"], 1: ["7.1"], 2: ["8.1"]},
                            rows={0: ["2.1"], 1: ["3.1", "5.2"], 2: ["4.1"]}, turn=0))
    then = PIRATE_PAIRS.decide(attack, PIRATE_PAIRS.timeout(attack, 99.0))
    assert (then[0].type, then[0].data) == ("PlayerAttacked", {"seat": 0, "target": 1,
                                                               "card": "9.1", "timeout": True})
    accuse = state_of(table(hands={0: ["5.1"], 1: ["3.2"], 2: ["4.1"]},
                            rows={0: ["3.1"], 1: ["8.1"], 2: ["3.3"]}, turn=1))
    then = PIRATE_PAIRS.decide(accuse, PIRATE_PAIRS.timeout(accuse, 99.0))
    assert (then[0].type, then[0].public) == ("PlayerAccused", {"seat": 1, "target": 2,
                                                                "timeout": True})
    said = row("Pirate pairs")
    for words in ("draws", "neither pile nor discards", "first legal attack",
                  "targets clockwise from him, his cards lowest first",
                  "accuses the player to his left"):
        assert words in said, (words, said)


def test_a_casino_pirate_player_who_does_not_bet_in_time_bets_the_minimum_as_the_readme_says():
    """000_1414b0b0fea70c86.txt (RULES.md §1c: a player who does not act stands): the README's
    row says the timed-out bettor bets `min_bet` and stands, as rules version 2 does."""
    engine = SEVEN_HALF["casino-pirate"]
    t = open_table(engine, (10, 10, 10))
    assert types(t.when(engine.timeout(t.state, 100.0)))[:2] == ["BetPlaced", "Stood"]
    assert "bets `min_bet` and stands while betting" in row("Casino pirate")
