"""Totals as people write them: the family counts in half-points (15), players say 7½."""

from __future__ import annotations

from typing import Any

# The keys whose integer values are half-point totals, in views and in events' data.
TOTALS = ("total", "meneur_total")


def points(half_points: int) -> str:
    """A half-point total as written: 15 is "7½", 1 is "0½", 20 is "10"."""
    whole, half = divmod(half_points, 2)
    return f"{whole}½" if half else str(whole)


def readable(value: Any) -> Any:
    """`value` (JSON) with `<key>_display` beside every half-point total in it.

    The display is made from the total the value already holds and from nothing else: where a
    view leaves out the total of a hidden card, no display of it can appear either."""
    if isinstance(value, list):
        return _list(value)
    if isinstance(value, dict):
        return _dict(value)
    return value


# Every table a player is sent passes through here (a view holds some 75 values): only lists
# and dicts are walked into, and a scalar is taken as it is, without a call of its own.
def _list(value: list[Any]) -> list[Any]:
    return [(_list(v) if isinstance(v, list) else _dict(v)) if isinstance(v, (list, dict)) else v
            for v in value]


def _dict(value: dict[Any, Any]) -> dict[Any, Any]:
    out = {k: (_list(v) if isinstance(v, list) else _dict(v)) if isinstance(v, (list, dict))
           else v for k, v in value.items()}
    for key in TOTALS:
        total = value.get(key)
        if isinstance(total, int) and not isinstance(total, bool):
            out[f"{key}_display"] = points(total)
    return out
