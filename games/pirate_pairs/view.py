"""What a viewer may see of a hand: own hand for a seat, public facts for all, all for auditors."""

from __future__ import annotations

from typing import assert_never

from games.contract import Json, Viewer
from games.pirate_pairs.state import Choosing, Finished, NotOpened, Player, Playing, State


def _sees_hand(viewer: Viewer, player: Player) -> bool:
    return viewer.kind == "auditor" or (viewer.kind == "seat" and viewer.seat == player.seat)


def _player(state: State, player: Player, viewer: Viewer) -> Json:
    out: Json = {
        "seat": player.seat,
        "age": player.age,
        "in": not player.out,
        "row": list(player.row),
        "hand_count": len(player.hand),
    }
    if _sees_hand(viewer, player):
        out["hand"] = list(player.hand)
    if isinstance(state.phase, Choosing):
        choice = state.phase.choice(player.seat)
        out["has_chosen"] = choice is not None
        if choice is not None and _sees_hand(viewer, player):
            out["chosen"] = choice
    return out


def _deadline(state: State) -> float:
    return state.turn_started_at + state.options.turn_timeout_s


def _phase(state: State) -> Json:
    match state.phase:
        case NotOpened():
            return {"name": "not_opened"}
        case Choosing():
            return {"name": "choosing", "deadline": _deadline(state)}
        case Playing(seat=seat):
            return {"name": "playing", "turn": seat, "deadline": _deadline(state)}
        case Finished(winner=winner):
            return {"name": "finished", "winner": winner}
        case _:
            assert_never(state.phase)


def view(state: State, viewer: Viewer) -> Json:
    """The hand as `viewer` may see it, as JSON; the seeds and the pile order never appear."""
    out: Json = {
        "game": "pirate-pairs",
        "phase": _phase(state),
        "stake": state.options.stake,
        "turn_timeout_s": state.options.turn_timeout_s,
        "pot": state.pot,
        "commitment": state.commitment,
        "players": [_player(state, p, viewer) for p in state.players],
        "pile_count": len(state.pile),
        "discards": list(state.discards),
        "reshuffles": state.reshuffles,
    }
    if viewer.kind == "auditor":
        out["pile"] = list(state.pile)
    return out
