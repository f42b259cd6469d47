"""Fair decks (RULES.md "Fair decks"): compositions, commitment and the seeded shuffle."""

from __future__ import annotations

import secrets
from collections import Counter

from games import deck
from games.contract import SeedMaterial

SEED = "00" * 31 + "01"


def test_compositions_have_the_sizes_of_the_rules():
    assert len(deck.italian_40()) == 40
    assert len(deck.spanish_40()) == 40
    assert len(deck.pirate_casino()) == 42
    assert len(deck.pirate_pairs_55()) == 55
    assert len(deck.french_52()) == 52
    for cards in (deck.italian_40(), deck.spanish_40(), deck.pirate_casino(),
                  deck.pirate_pairs_55(), deck.french_52()):
        assert len(set(cards)) == len(cards)


def test_pirate_casino_counts_are_options():
    cards = deck.pirate_casino(gems=2, gold=3, pebbles=1, skeletons=1)
    assert len(cards) == 7 * 2 + 3 + 1 + 1


def test_shuffle_is_a_permutation_reproducible_from_the_seeds():
    material = SeedMaterial(SEED, ("alice", "bob"))
    a = deck.shuffled(deck.french_52(), material)
    assert a == deck.shuffled(deck.french_52(), material)
    assert sorted(a) == sorted(deck.french_52())
    assert a != deck.shuffled(deck.french_52(), SeedMaterial(SEED, ("alice", "bobb")))
    assert a != deck.shuffled(deck.french_52(), material, label="reshuffle-1")


def test_player_seed_boundaries_matter():
    one = deck.shuffle_key(SeedMaterial(SEED, ("ab", "c")))
    two = deck.shuffle_key(SeedMaterial(SEED, ("a", "bc")))
    assert one != two


def test_commitment_and_verification():
    seed = secrets.token_hex(32)
    material = SeedMaterial(seed, ("x",))
    order = deck.shuffled(deck.italian_40(), material)
    c = deck.commitment(seed)
    assert deck.verify(deck.italian_40(), material, c, order[:5])
    assert not deck.verify(deck.italian_40(), material, c, (order[1], order[0]))
    assert not deck.verify(deck.italian_40(), SeedMaterial(secrets.token_hex(32), ("x",)), c, order[:5])


def test_published_test_vector():
    """The vector of docs/fair-decks.md, so anyone re-implementing the check can compare."""
    material = SeedMaterial(SEED, ("alice",))
    assert deck.commitment(SEED) == "ec4916dd28fc4c10d78e287ca5d9cc51ee1ae73cbfde08c6b37324cbfaac8bc5"
    assert deck.shuffled(tuple(str(i) for i in range(10)), material)== VECTOR


VECTOR = ('8', '5', '0', '1', '2', '6', '9', '7', '4', '3')


def test_shuffle_is_uniform_over_positions():
    """Chi-square over (card, position) counts: 4 cards, 24 permutations, 4800 shuffles."""
    cards = ("a", "b", "c", "d")
    counts: Counter[tuple[str, ...]] = Counter()
    trials = 4800
    for i in range(trials):
        counts[deck.shuffled(cards, SeedMaterial(f"{i:064x}"))] += 1
    assert len(counts) == 24
    expected = trials / 24
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    # 23 degrees of freedom: P(chi2 > 49.7) = 0.001
    assert chi2 < 49.7
