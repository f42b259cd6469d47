"""Each game's listed variants: the options each stands for, valid, and telling them apart."""

from __future__ import annotations

import pytest

from games.registry import current

ENGINES = current()


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_a_tables_options_make_at_most_one_listed_variant(name):
    info = ENGINES[name].info
    keys = {frozenset(sets) for sets in info.variants.values()}
    assert len(keys) <= 1, "every variant of a game sets the same options"
    for variant, sets in info.variants.items():
        options = ENGINES[name].options_schema().load(dict(sets))
        assert info.variant_of(options) == variant


def test_the_seeds_variants_are_named_with_their_options():
    """001_6b5bbd2473d5c47f.txt (the banker named or drawn by lot), 004_34f1b911eeb84e49.txt
    (the local rule: 7½ takes the bank), 003_37d90c873e067319.txt (Cassino's variants)."""
    assert ENGINES["sette-e-mezzo"].info.variants == {
        "banker:seat0": {"banker": "seat0"}, "banker:lot": {"banker": "lot"}}
    assert ENGINES["siete-y-media"].info.variants == {
        "seven_half_takes_bank": {"seven_half_takes_bank": True}}
    assert set(ENGINES["cassino"].info.variants) == {"classic", "spades", "draw"}
    assert ENGINES["siete-y-media"].info.variant_of(
        ENGINES["siete-y-media"].options_schema().load({})) is None
