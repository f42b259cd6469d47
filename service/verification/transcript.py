"""A replay as text: one readable line per event, with the totals the caller may see.

Totals are printed in the display form the replay carries beside each (`total_display`, "7½"),
never recomputed here: the replay made it from what the caller may see.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

BULKY = {"deck", "pile", "options", "seats", "server_seed", "player_seeds", "postings"}


def _cards(data: dict[str, Any]) -> str:
    if "cards" in data:
        return " ".join(data["cards"])
    if "card" in data:
        return str(data["card"])
    return f"{data['count']} cards face down" if "count" in data else "a card face down"


def _value(data: dict[str, Any], key: str, value: Any) -> str:
    """A value as the line shows it: a total by its display form (7½), the rest as JSON."""
    shown = data.get(f"{key}_display")
    return str(shown) if isinstance(shown, str) else orjson.dumps(value).decode()


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
            if k not in BULKY and k != "seat" and v is not None and v is not False
            and not (k.endswith("_display") and k[: -len("_display")] in data)}
    text = " ".join(f"{k}={_value(data, k, v)}" for k, v in rest.items())
    return f"{seat}{text}"[:140]


def totals(state: dict[str, Any] | None) -> str:
    """The totals and stakes shown in the state, when the game has them."""
    if not state or "hands" not in state or not isinstance(state.get("bank"), dict):
        return ""
    parts = [f"seat {h['seat']}: {h['total_display']}" + (f" (bet {h['stake']})" if h.get("stake") else "")
             for h in state["hands"] if "total_display" in h and h.get("cards")]
    bank = state["bank"]
    if "total_display" in bank and bank.get("cards"):
        parts.append(f"bank: {bank['total_display']}")
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
