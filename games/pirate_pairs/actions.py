"""Client actions: the concrete moves a seat may send now, and payloads turned into commands."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from games.contract import IllegalMove, Json
from games.pirate_pairs.commands import (
    Accuse,
    Attack,
    Challenge,
    ChooseOpeningCard,
    Command,
    Draw,
)
from games.pirate_pairs.state import Choosing, Finished, NotOpened, Playing, State, makes_pair


def legal_actions(state: State, seat: int) -> list[Json]:
    """Every action `seat` may send now, each complete (no ranges: the lists are short)."""
    if not state.has_seat(seat):
        return []
    match state.phase:
        case NotOpened() | Finished():
            return []
        case Choosing() as phase:
            if phase.choice(seat) is not None:
                return []
            return [{"type": "choose", "card": c} for c in state.player(seat).hand]
        case Playing(seat=turn):
            return _moves(state, seat) if seat == turn else []
        case _:
            assert_never(state.phase)


def _moves(state: State, seat: int) -> list[Json]:
    targets = [s for s in state.still_in() if s != seat]
    hand = state.player(seat).hand
    moves: list[Json] = [
        {"type": "attack", "target": t, "card": c}
        for t in targets
        for c in hand
        if not makes_pair(c, state.player(t).row)
    ]
    if state.can_draw():
        moves += [{"type": "challenge", "target": t} for t in targets]
    moves += [{"type": "accuse", "target": t} for t in targets]
    if state.can_draw():
        moves.append({"type": "draw"})
    return moves


def _int(payload: Mapping[str, Any], key: str) -> int:
    raw = payload.get(key)
    # bool is an int in Python, but `true` is no seat number.
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise IllegalMove("bad_action", f"`{key}` must be a seat number")
    return raw


def _card(payload: Mapping[str, Any]) -> str:
    raw = payload.get("card")
    if not isinstance(raw, str):
        raise IllegalMove("bad_action", "`card` must be a card id such as `7.3`")
    return raw


def parse_action(seat: int, payload: Mapping[str, Any], now: float) -> Command:
    """The command for a client payload `{"type": ..., ...}`, or `IllegalMove("bad_action")`."""
    if not isinstance(payload, Mapping):
        raise IllegalMove("bad_action", "an action is a JSON object")
    kind = payload.get("type")
    if kind == "choose":
        return ChooseOpeningCard(seat, now, _card(payload))
    if kind == "attack":
        return Attack(seat, now, _int(payload, "target"), _card(payload))
    if kind == "challenge":
        return Challenge(seat, now, _int(payload, "target"))
    if kind == "accuse":
        return Accuse(seat, now, _int(payload, "target"))
    if kind == "draw":
        return Draw(seat, now)
    raise IllegalMove("bad_action", "type must be choose, attack, challenge, accuse or draw")
