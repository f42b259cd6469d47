"""A replay as text: one readable line per event, with the totals the caller may see."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

BULKY = {"deck", "pile", "options", "seats", "server_seed", "player_seeds", "postings"}


def points(half_points: int) -> str:
    """7½-family totals are kept in half-points: 15 is 7½."""
    whole, half = divmod(half_points, 2)
    return f"{whole}½" if half else str(whole)


def _cards(data: dict[str, Any]) -> str:
    if "cards" in data:
        return " ".join(data["cards"])
    if "card" in data:
        return str(data["card"])
    return f"{data['count']} cards face down" if "count" in data else "a card face down"


def describe(step: dict[str, Any]) -> str:
    """What happened, in a few words."""
    kind, data = step["type"], step["data"]
    seat = f"seat {data['seat']} " if isinstance(data.get("seat"), int) else ""
    if kind in ("CardDealt", "CardsDealt", "CardDrawn", "TableDealt"):
        up = "" if data.get("face_up", True) else " (face down)"
        return f"{seat or 'table '}← {_cards(data)}{up}"
    if kind == "TreasurePosted":
        return f"{data['from']} → {data['to']}: {data['amount']} ({data['reason']})"
    if kind == "HandSettled":
        return f"settled with {len(data['postings'])} postings"
    if kind == "SeedRevealed":
        return f"server seed {data.get('server_seed', '(auditors only)')}"
    if kind == "HandBegan":
        return f"hand {data['number']}, commitment {data['commitment']}"
    rest = {k: v for k, v in data.items()
            if k not in BULKY and k != "seat" and v is not None and v is not False}
    text = " ".join(f"{k}={orjson.dumps(v).decode()}" for k, v in rest.items())
    return f"{seat}{text}"[:140]


def totals(state: dict[str, Any] | None) -> str:
    """The totals and stakes shown in the state, when the game has them."""
    if not state or "hands" not in state or not isinstance(state.get("bank"), dict):
        return ""
    parts = [f"seat {h['seat']}: {points(h['total'])}" + (f" (bet {h['stake']})" if h.get("stake") else "")
             for h in state["hands"] if "total" in h and h.get("cards")]
    bank = state["bank"]
    if "total" in bank and bank.get("cards"):
        parts.append(f"bank: {points(bank['total'])}")
    return "; ".join(parts)


def line(step: dict[str, Any], previous_totals: str = "") -> str:
    """One transcript line for a replay step; the totals follow when they changed."""
    when = step["recorded_at"][11:23]
    flag = " [timeout]" if step["timeout"] else ""
    shown = totals(step["state"]) if step["kind"] == "game" else ""
    tail = f"\n{'':>28}totals: {shown}" if shown and shown != previous_totals else ""
    return f"{step['step']:>4} v{step['version']:<5} {when}  {step['type']:<18} {describe(step)}{flag}{tail}"


def transcript(steps: list[dict[str, Any]]) -> Iterator[str]:
    """The lines of a whole replay."""
    shown = ""
    for step in steps:
        yield line(step, shown)
        if step["kind"] == "game":
            shown = totals(step["state"]) or shown
