"""The reference bots' strategies: from a table as read, the action to send, or None.

Sette e mezzo, Siete y media and Casino pirate: bet the least, then draw while under 5 (the
banker's draw-to-5, for every seat). Pirate pairs and Cassino: the first action offered. Moves
that give something up (conceding, sitting a hand out, splitting, volunteering for meneur) only
when nothing else is offered.
"""

from __future__ import annotations

from typing import Any

from banco_sdk._core import GameTable, as_action

SEVEN_AND_A_HALF = {"sette-e-mezzo", "siete-y-media", "casino-pirate"}
STAND_AT = 10  # half points: 5
GIVING_UP = {"concede", "sit_out", "split", "volunteer"}


def choose(table: GameTable) -> dict[str, Any] | None:
    """The action to play at `table`, or None when it offers nothing to this player now."""
    if table.status != "playing" or not table.legal_actions:
        return None
    offers: list[Any] = list(table.legal_actions)
    kept = [o for o in offers if o.type not in GIVING_UP] or offers
    by_type = {o.type: o for o in kept}
    if table.game in SEVEN_AND_A_HALF and ("hit" in by_type or "stand" in by_type):
        total = own_total(table)
        if "hit" in by_type and (total is None or total < STAND_AT) and not (
                total is None and "stand" in by_type):
            return as_action(by_type["hit"])
        if "stand" in by_type:
            return as_action(by_type["stand"])
    return as_action(kept[0])


def own_total(table: GameTable) -> int | None:
    """This seat's hand value in half points, when the view shows it (7½ family)."""
    view: Any = table.view
    if view is None or table.you is None:
        return None
    hands = [view.bank] if view.banker == table.you else []
    hands += [h for h in view.hands if h.seat == table.you and h.status == "open"]
    totals = [h.total for h in hands if getattr(h, "total", None) is not None]
    return totals[0] if totals else None
