"""A balance-over-time chart as hand-written SVG, downsampled so long histories stay small.

Points arrive in time order and are bucketed by their rank: each bucket keeps its first, lowest,
highest and last balance, so spikes survive the downsampling and memory stays constant.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from html import escape

WIDTH, HEIGHT, MARGIN = 800, 320, 56
MAX_BUCKETS = 600


def downsample(points: Iterable[tuple[datetime, int]], count: int,
               buckets: int = MAX_BUCKETS) -> Iterator[tuple[float, int]]:
    """At most 4 points per bucket (first, min, max, last, in time order) of `count` points."""
    size = max(1, -(-count // buckets))
    group: list[tuple[float, int]] = []
    for n, (when, balance) in enumerate(points, 1):
        group.append((when.timestamp(), balance))
        if n % size == 0:
            yield from _keep(group)
            group = []
    yield from _keep(group)


def _keep(group: list[tuple[float, int]]) -> list[tuple[float, int]]:
    if len(group) <= 4:
        return group
    low = min(group, key=lambda p: p[1])
    high = max(group, key=lambda p: p[1])
    return sorted({group[0], low, high, group[-1]})


def svg(title: str, points: Iterable[tuple[float, int]]) -> str:
    """The chart: a step line of the balance, axes labelled with the extremes of time and balance."""
    kept = list(points)  # already downsampled: at most 4 x MAX_BUCKETS points
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}"'
            f' viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">'
            f'<title>{escape(title)}</title><rect width="100%" height="100%" fill="white"/>'
            f'<text x="{MARGIN}" y="20" font-size="14">{escape(title)}</text>')
    if not kept:
        middle = f'x="{WIDTH // 2}" y="{HEIGHT // 2}" text-anchor="middle"'
        return head + f"<text {middle}>no postings</text></svg>"
    t0, t1 = kept[0][0], kept[-1][0]
    low, high = min(0, *(b for _, b in kept)), max(b for _, b in kept)
    span_t, span_b = (t1 - t0) or 1.0, (high - low) or 1
    inner_w, inner_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN

    def x(t: float) -> float:
        return round(MARGIN + (t - t0) / span_t * inner_w, 1)

    def y(b: int) -> float:
        return round(HEIGHT - MARGIN - (b - low) / span_b * inner_h, 1)

    path, previous = [], None
    for t, b in kept:
        if previous is not None:
            path.append(f"{x(t)},{y(previous)}")  # balances hold until the next posting: steps
        path.append(f"{x(t)},{y(b)}")
        previous = b
    bottom, right = HEIGHT - MARGIN, WIDTH - MARGIN
    first = datetime.fromtimestamp(t0).isoformat(timespec="seconds")
    last = datetime.fromtimestamp(t1).isoformat(timespec="seconds")
    return (head
            + f'<line x1="{MARGIN}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#888"/>'
            + f'<line x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{bottom}" stroke="#888"/>'
            + f'<text x="{MARGIN - 6}" y="{y(high) + 4}" text-anchor="end">{high}</text>'
            + f'<text x="{MARGIN - 6}" y="{y(low) + 4}" text-anchor="end">{low}</text>'
            + f'<text x="{MARGIN}" y="{bottom + 18}">{first}</text>'
            + f'<text x="{right}" y="{bottom + 18}" text-anchor="end">{last}</text>'
            + f'<polyline fill="none" stroke="#1f6feb" stroke-width="1.5" points="{" ".join(path)}"/>'
            + "</svg>")
