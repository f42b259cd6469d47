"""Folding events into the state: no rule checks, unknown event types ignored."""

from __future__ import annotations

from typing import Any

from games.contract import Event, SeedMaterial
from games.frozen import replace
from games.pirate_pairs import events as ev
from games.pirate_pairs.state import Choosing, Finished, Player, Playing, State


def _without(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    return tuple(c for c in cards if c != card)


def _opened(state: State, d: Any) -> State:
    players = tuple(Player(s["seat"], s.get("age")) for s in d["seats"])
    material = SeedMaterial(d["server_seed"], tuple(d["player_seeds"]))
    return replace(state, phase=Choosing(), players=players, pile=tuple(d["pile"]),
                   pot=d["stake"] * len(players), commitment=d["commitment"],
                   material=material, turn_started_at=d["at"])


def _dealt(state: State, d: Any) -> State:
    p = state.player(d["seat"])
    dealt = set(d["cards"])
    pile = tuple(c for c in state.pile if c not in dealt)
    return replace(state.with_player(replace(p, hand=p.hand + tuple(d["cards"]))), pile=pile)


def _chosen(state: State, d: Any) -> State:
    assert isinstance(state.phase, Choosing)
    chosen = (*state.phase.chosen, (d["seat"], d["card"]))
    return replace(state, phase=Choosing(tuple(sorted(chosen))))


def _revealed(state: State, d: Any) -> State:
    for choice in d["choices"]:
        p = state.player(choice["seat"])
        card = choice["card"]
        state = state.with_player(replace(p, hand=_without(p.hand, card), row=(*p.row, card)))
    return replace(state, phase=Playing(d["first"]), turn_started_at=d["at"])


def _attacked(state: State, d: Any) -> State:
    p = state.player(d["seat"])
    state = state.with_player(replace(p, hand=_without(p.hand, d["card"])))
    t = state.player(d["target"])
    return state.with_player(replace(t, row=(*t.row, d["card"])))


def _challenged(state: State, d: Any) -> State:
    state = replace(state, pile=_without(state.pile, d["card"]))
    if d["paired"]:
        return replace(state, discards=(*state.discards, d["card"]))
    t = state.player(d["target"])
    return state.with_player(replace(t, row=(*t.row, d["card"])))


def _drawn(state: State, d: Any) -> State:
    p = state.player(d["seat"])
    state = replace(state, pile=_without(state.pile, d["card"]))
    return state.with_player(replace(p, hand=(*p.hand, d["card"])))


def _reshuffled(state: State, d: Any) -> State:
    return replace(state, pile=tuple(d["pile"]), discards=(), reshuffles=d["reshuffle"])


def _eliminated(state: State, d: Any) -> State:
    p = state.player(d["seat"])
    state = state.with_player(replace(p, hand=(), row=(), out=True))
    return replace(state, discards=state.discards + tuple(d["cards"]))


def _turn(state: State, d: Any) -> State:
    return replace(state, phase=Playing(d["seat"]), turn_started_at=d["at"])


def _won(state: State, d: Any) -> State:
    return replace(state, phase=Finished(d["seat"]))


_FOLDS = {
    ev.HAND_OPENED: _opened,
    ev.CARDS_DEALT: _dealt,
    ev.OPENING_CARD_CHOSEN: _chosen,
    ev.OPENING_CARDS_REVEALED: _revealed,
    ev.PLAYER_ATTACKED: _attacked,
    ev.PLAYER_CHALLENGED: _challenged,
    ev.CARD_DRAWN: _drawn,
    ev.DISCARDS_RESHUFFLED: _reshuffled,
    ev.PLAYER_ELIMINATED: _eliminated,
    ev.TURN_PASSED: _turn,
    ev.GAME_WON: _won,
}


def evolve(state: State, event: Event) -> State:
    """The state after `event`; `PlayerAccused` changes nothing by itself, unknown types neither."""
    fold = _FOLDS.get(event.type)
    return fold(state, event.data) if fold else state
