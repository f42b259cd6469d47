"""The engines' `replace` makes what `dataclasses.replace` makes, or leaves the work to it."""

from __future__ import annotations

import dataclasses
from dataclasses import InitVar, dataclass, field

import pytest

from games.cassino.state import Build
from games.frozen import replace
from games.sevenhalf.state import Hand, State


def test_a_copy_equals_what_dataclasses_replace_makes() -> None:
    state = State("sette-e-mezzo", {"min_bet": 1}, hands=(Hand(0), Hand(1)), drawn=3)
    changes = {"drawn": 4, "hands": (Hand(0, cards=("1c",)), Hand(1)), "stake": 5}
    mine, theirs = replace(state, **changes), dataclasses.replace(state, **changes)
    assert mine == theirs
    assert vars(mine) == vars(theirs)
    assert state.drawn == 3 and state.stake == 0  # the original is left as it was
    with pytest.raises(dataclasses.FrozenInstanceError):
        mine.drawn = 9  # type: ignore[misc]
    build = Build("build-1", ("5h", "3c"), 8, 0)
    assert replace(build, owner=1) == dataclasses.replace(build, owner=1)


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(TypeError, match="stakes"):
        replace(Hand(0), stakes=3)


@dataclass(frozen=True)
class _Derived:
    a: int
    twice: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "twice", 2 * self.a)


@dataclass(frozen=True)
class _WithInitVar:
    a: int
    scale: InitVar[int] = 1


def test_classes_whose_init_does_more_go_through_init() -> None:
    assert replace(_Derived(1), a=5).twice == 10
    assert replace(_WithInitVar(1), a=2) == _WithInitVar(2)
