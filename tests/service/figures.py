"""Figures that reliability tests report: collected during the run, printed at its end."""

from __future__ import annotations

from collections import defaultdict

FIGURES: dict[str, dict[str, int]] = defaultdict(dict)


def report(test: str, **figures: int) -> None:
    """Record `figures` under `test` for the end-of-run summary."""
    FIGURES[test].update(figures)
