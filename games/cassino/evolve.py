"""Folding events into the state: no rule checks, unknown event types ignored."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games.cassino import events as ev
from games.cassino.options import Options
from games.cassino.state import Build, Opening, Playing, RoundOver, State, item_id
from games.contract import Event
from games.deck import Card
from games.frozen import replace


def _set(seq: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return (*seq[:i], v, *seq[i + 1:])


def _started(state: State, d: Mapping[str, Any]) -> State:
    n = d["players"]
    options = Options(d["variant"], d["stake"], d["turn_timeout_s"])
    return State(options=options, phase=Opening(), players=n, round=d["round"],
                 hands=((),) * n, stock=tuple(d["deck"]), captured=((),) * n, sweeps=(0,) * n,
                 scores=tuple(d["scores"]), pot=d["pot"], commitment=d["commitment"])


def _dealt(state: State, d: Mapping[str, Any]) -> State:
    seat, cards = d["seat"], tuple(d["cards"])
    return replace(state, hands=_set(state.hands, seat, state.hands[seat] + cards),
                   stock=state.stock[len(cards):])


def _table(state: State, d: Mapping[str, Any]) -> State:
    cards = tuple(d["cards"])
    first = ((state.dealer or 0) + 1) % state.players
    return replace(state, table=state.table + cards, stock=state.stock[len(cards):],
                   phase=Playing(first))


def _played(state: State, seat: int, card: Card) -> State:
    hand = tuple(c for c in state.hands[seat] if c != card)
    return replace(state, hands=_set(state.hands, seat, hand),
                   phase=Playing((seat + 1) % state.players))


def _without(state: State, ids: Any) -> tuple[Any, ...]:
    gone = set(ids)
    return tuple(i for i in state.table if item_id(i) not in gone)


def _captured(state: State, d: Mapping[str, Any]) -> State:
    seat = d["seat"]
    state = _played(state, seat, d["card"])
    return replace(state, table=_without(state, d["take"]), last_capturer=seat,
                   captured=_set(state.captured, seat, state.captured[seat] + tuple(d["cards"])),
                   sweeps=_set(state.sweeps, seat, state.sweeps[seat] + (1 if d["sweep"] else 0)))


def _built(state: State, d: Mapping[str, Any], reserved: bool) -> State:
    state = _played(state, d["seat"], d["card"])
    build = Build(d["build"], tuple(d["cards"]), d["value"], d["seat"], reserved)
    return replace(state, table=(*_without(state, d["onto"]), build),
                   next_build=state.next_build + 1)


def _extended(state: State, d: Mapping[str, Any]) -> State:
    state = _played(state, d["seat"], d["card"])
    table = tuple(
        replace(i, cards=(*i.cards, d["card"]), value=d["value"], owner=d["seat"])
        if isinstance(i, Build) and i.id == d["build"] else i
        for i in state.table)
    return replace(state, table=table)


def _trailed(state: State, d: Mapping[str, Any]) -> State:
    state = _played(state, d["seat"], d["card"])
    return replace(state, table=(*state.table, d["card"]))


def _drawn(state: State, d: Mapping[str, Any]) -> State:
    seat = d["seat"]
    return replace(state, hands=_set(state.hands, seat, (*state.hands[seat], d["card"])),
                   stock=state.stock[1:])


def _leftovers(state: State, d: Mapping[str, Any]) -> State:
    seat = d["seat"]
    return replace(state, table=(),
                   captured=_set(state.captured, seat, state.captured[seat] + tuple(d["cards"])))


def _scored(state: State, d: Mapping[str, Any]) -> State:
    points = tuple(tuple(sorted(s["points"].items())) for s in d["sides"])
    return replace(state, scores=tuple(d["totals"]), round_points=points,
                   phase=RoundOver(d["winner"]))


HANDLERS: dict[str, Callable[[State, Mapping[str, Any]], State]] = {
    ev.ROUND_STARTED: _started,
    ev.STAKES_PAID: lambda s, d: replace(s, pot=s.pot + d["pot"]),
    ev.DEALER_CHOSEN: lambda s, d: replace(s, dealer=d["dealer"]),
    ev.CARDS_DEALT: _dealt,
    ev.TABLE_DEALT: _table,
    ev.CARDS_CAPTURED: _captured,
    ev.BUILD_MADE: lambda s, d: _built(s, d, reserved=False),
    ev.BUILD_RESERVED: lambda s, d: _built(s, d, reserved=True),
    ev.BUILD_EXTENDED: _extended,
    ev.CARD_TRAILED: _trailed,
    ev.CARD_DRAWN: _drawn,
    ev.LEFTOVERS_TAKEN: _leftovers,
    ev.ROUND_SCORED: _scored,
}


def evolve(state: State, event: Event) -> State:
    """The state after `event`; types this game does not know leave it unchanged."""
    handler = HANDLERS.get(event.type)
    return handler(state, event.data) if handler else state
