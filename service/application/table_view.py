"""A table as one caller may see it: what the API answers and the streams send.

Every view of a table leaves the server through here, and here through the engine's redaction:
a seat sees its own hidden cards, an auditor what auditors may, anyone else none
(`service.application.redaction`).
"""

from __future__ import annotations

from typing import Any

import psycopg

from games import registry
from projections import tables
from projections.tables import TableRow
from service.application.principal import Principal
from service.application.redaction import viewer_in


def legal_actions(table: TableRow, who: Principal) -> list[dict[str, Any]]:
    """The actions open to `who` at `table`: a seat's, in the hand in play or, between hands,
    on the state the last hand ended in (a Casino pirate volunteer for meneur, taken until the
    next deal)."""
    viewer = viewer_in(who, table.seats)
    live = table.state is not None and table.status in ("playing", "open")
    if not live or viewer.kind != "seat" or viewer.seat is None:
        return []
    return registry.engine(table.game, table.rules_version).legal_actions(table.state, viewer.seat)


def render(table: TableRow, who: Principal, conn: psycopg.Connection | None = None,
           legal: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The table as `who` may see it, with the actions open to him (`legal`, when the caller
    has them from `legal_actions` already); its seats' balances as read with it, else read on
    `conn`."""
    engine = registry.engine(table.game, table.rules_version)
    if table.balances is not None:
        held = table.balances
    elif conn is not None:
        held = tables.seat_balances(conn, table)
    else:
        raise ValueError("the table's seat balances were not read with it: give a connection")
    # Seated players' names are the table's to show (as at a real table), not hidden cards.
    names = table.names or {}
    viewer = viewer_in(who, table.seats)
    you = viewer.seat if viewer.kind == "seat" else None
    return {
        "id": table.table_id, "game": table.game, "variant": engine.info.variant_of(table.options),
        "options": table.options, "rules_version": table.rules_version, "status": table.status,
        "version": table.version,
        "seats": [{"seat": s["seat"], "chair": tables.chair_of(s), "player_id": s["player_id"],
                   "name": names.get(s["player_id"]), "balance": held[s["player_id"]]}
                  for s in table.seats],
        "hand": None if table.hand_id is None else {
            "id": table.hand_id, "number": table.hand_number,
            "status": "playing" if table.status == "playing" else
            ("settling" if table.status == "settling" else "settled")},
        "turn": table.turn if table.status == "playing" else None,
        "you": you,
        # Between hands, the hand that ended; not what a leave carried of it to the next
        # (`Engine.reseated`), which is no hand.
        "view": engine.view(table.state, viewer) if table.state is not None and (
            table.status != "open" or engine.is_terminal(table.state)) else None,
        "legal_actions": legal_actions(table, who) if legal is None else legal,
    }
