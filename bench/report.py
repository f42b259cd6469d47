"""Figures and Markdown tables."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def rate(value: float) -> str:
    return f"{value:,.0f}"


def percent(value: float) -> str:
    return f"{value:.0%}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table; numeric-looking columns are right-aligned."""
    lines = ["| " + " | ".join(header) + " |"]
    aligns = []
    for i in range(len(header)):
        cells = [r[i] for r in rows]
        numeric = bool(cells) and all(c[:1].isdigit() or c[:1] == "-" for c in cells)
        aligns.append("---:" if numeric else "---")
    lines.append("| " + " | ".join(aligns) + " |")
    lines.extend("| " + " | ".join(r) + " |" for r in rows)
    return "\n".join(lines)


def quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"
