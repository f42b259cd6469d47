"""What each viewer may see of a hand: own hidden cards to their holder, all to auditors."""

from __future__ import annotations

from typing import Any

import msgspec

from games.contract import Json, Viewer
from games.sevenhalf import cards
from games.sevenhalf.display import readable
from games.sevenhalf.state import BANK, Ended, Hand, State


def _sees(viewer: Viewer, seat: int) -> bool:
    return viewer.kind == "auditor" or (viewer.kind == "seat" and viewer.seat == seat)


def hand_view(state: State, index: int, hand: Hand, viewer: Viewer) -> Json:
    """A hand as `viewer` sees it: hidden cards of others are null, so is their total."""
    own = _sees(viewer, hand.seat)
    out: dict[str, Any] = {
        "seat": hand.seat, "index": index, "stake": hand.stake, "status": hand.status,
        "cards": [c if own or c not in hand.hidden else None for c in hand.cards],
        "face_up": [c not in hand.hidden for c in hand.cards],
    }
    if own or not hand.hidden:
        out["declared"] = dict(hand.declared)
        out["total"] = cards.total(state.game, hand.cards, hand.declared)
    return out


def next_banker(state: State) -> int | None:
    """Who banks the next hand, as far as it is known: the seat the hand's end named (a 7½ in
    Casino pirate), else the volunteer who took the post since."""
    return state.next_banker if state.next_banker is not None else next(iter(state.volunteers), None)


def view(state: State, viewer: Viewer) -> Json:
    """The state as JSON for `viewer`, each total it shows with its display form (`total_display`)."""
    phase = state.phase
    out: Json = {
        "game": state.game,
        "phase": {"name": type(phase).__name__.lower(), **msgspec.structs.asdict(phase)},
        "banker": state.banker,
        "order": list(state.order),
        "stake": state.stake,
        "balances": {str(s): b for s, b in state.balances.items()},
        "cards_left": state.remaining,
        "hands": [hand_view(state, i, h, viewer) for i, h in enumerate(state.hands)],
        "bank": hand_view(state, BANK, state.bank, viewer),
        "called": list(state.called),
        "next_banker": next_banker(state),
        "volunteers": list(state.volunteers),
        "commitment": state.commitment,
        "options": dict(state.options),
    }
    if isinstance(phase, Ended):
        out["results"] = [dict(r) for r in state.results]
        # A result's `net` is what the rules award; a payer who cannot cover it pays less (a
        # `ShortfallRecorded`). What each seat gained or lost in fact is its balance's change.
        out["balance_changes"] = {str(s): b - state.start_balances.get(s, 0)
                                  for s, b in state.balances.items()}
    if viewer.kind == "auditor":
        out["deck"] = list(state.deck[state.drawn :])
    return readable(out)
