"""What a viewer may see of a round, as JSON: a seat its own hand, spectators public facts."""

from __future__ import annotations

from typing import assert_never

from games.cassino.state import Build, Item, NotStarted, Opening, Playing, RoundOver, State
from games.contract import Json, Viewer


def phase_json(state: State) -> Json:
    """The phase as a tagged JSON object."""
    match state.phase:
        case NotStarted():
            return {"name": "not_started"}
        case Opening():
            return {"name": "opening"}
        case Playing(to_move=seat):
            return {"name": "playing", "to_move": seat}
        case RoundOver(winner=winner):
            return {"name": "round_over", "winner": winner,
                    "winning_seats": list(state.seats_of(winner)) if winner is not None else []}
        case _:
            assert_never(state.phase)


def item_json(item: Item) -> Json:
    """A table item: a loose card or a build with its value, owner and whether it is reserved."""
    if isinstance(item, Build):
        return {"id": item.id, "kind": "build", "cards": list(item.cards), "value": item.value,
                "owner": item.owner, "reserved": item.reserved}
    return {"id": item, "kind": "card", "cards": [item]}


def view(state: State, viewer: Viewer) -> Json:
    """The round as `viewer` may see it; captured cards are public, having lain face up."""
    def sees(seat: int) -> bool:
        return viewer.kind == "auditor" or (viewer.kind == "seat" and viewer.seat == seat)

    hands = [{"seat": s, "count": len(h), **({"cards": list(h)} if sees(s) else {})}
             for s, h in enumerate(state.hands)]
    out: Json = {
        "game": "cassino", "variant": state.options.variant, "target": state.options.target,
        "players": state.players, "round": state.round, "dealer": state.dealer,
        "teams": [[0, 2], [1, 3]] if state.teams else None,
        "phase": phase_json(state),
        "table": [item_json(i) for i in state.table],
        "stock": {"count": len(state.stock)},
        "hands": hands,
        "captured": [{"seat": s, "count": len(c), "cards": list(c), "sweeps": state.sweeps[s]}
                     for s, c in enumerate(state.captured)],
        "last_capturer": state.last_capturer,
        "scores": list(state.scores),
        "round_points": [dict(p) for p in state.round_points],
        "stake": state.options.stake, "pot": state.pot, "commitment": state.commitment,
    }
    if viewer.kind == "auditor":
        out["stock"]["cards"] = list(state.stock)
    return out
