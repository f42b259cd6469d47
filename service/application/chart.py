"""A wallet's balance over time as SVG made here (no script), downsampled so long histories stay small.

Postings arrive in time order and are bucketed by their rank: each bucket keeps its first, lowest,
highest and last balance, so spikes survive the downsampling, and its first deposit and first
withdrawal, which the chart marks; memory stays constant. The axes carry round value steps with
gridlines and time ticks in UTC whose unit follows the span (milliseconds apart to years apart).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape

from events import ledger

WIDTH, HEIGHT = 800, 360
# The widths a chart is drawn at (a page asks for the width it shows it at, so that its labels
# keep their size); below NARROW the title takes two lines and the legend goes under it.
MIN_WIDTH, MAX_WIDTH, NARROW = 320, 1600, 560
LEFT, RIGHT, TOP, BOTTOM = 72, 88, 58, 64  # margins: value labels, last value, title and legend, time
MAX_BUCKETS = 600
DEPOSIT, WITHDRAWAL = "deposit", "withdrawal"
LINE, GREEN, RED, GRID, INK = "#1f6feb", "#1a7f37", "#cf222e", "#e4e7eb", "#24292f"


def kind(amount: int, counterparty: str) -> str:
    """What the chart marks a wallet's posting as: a deposit, a withdrawal, or nothing ("")."""
    if counterparty != ledger.HOUSE:
        return ""
    return DEPOSIT if amount > 0 else WITHDRAWAL


@dataclass
class Sampled:
    """The points kept, in time order, and counts over every posting."""

    points: list[tuple[float, int, str]] = field(default_factory=list)  # (time, balance, kind)
    postings: int = 0
    deposits: int = 0
    withdrawals: int = 0


def downsample(postings: Iterable[tuple[datetime, int, str]], count: int,
               buckets: int = MAX_BUCKETS) -> Sampled:
    """At most 6 points per bucket of `count` postings (time, balance after, kind)."""
    size = max(1, -(-count // buckets))
    sampled = Sampled()
    group: list[tuple[float, int, str]] = []
    for n, (when, balance, what) in enumerate(postings, 1):
        group.append((when.timestamp(), balance, what))
        sampled.deposits += what == DEPOSIT
        sampled.withdrawals += what == WITHDRAWAL
        if n % size == 0:
            sampled.points += _keep(group)
            group = []
        sampled.postings = n
    sampled.points += _keep(group)
    return sampled


def _keep(group: list[tuple[float, int, str]]) -> list[tuple[float, int, str]]:
    if len(group) <= 6:
        return group
    ranks = range(len(group))
    kept = {0, len(group) - 1, min(ranks, key=lambda i: group[i][1]), max(ranks, key=lambda i: group[i][1])}
    for what in (DEPOSIT, WITHDRAWAL):
        kept.update(next(([i] for i in ranks if group[i][2] == what), []))
    return [group[i] for i in sorted(kept)]


def value_ticks(low: int, high: int, most: int = 6) -> list[int]:
    """Round steps (1, 2 or 5 times a power of ten, at least 1) covering low..high."""
    raw = max(1, high - low) / (most - 1)
    power = 10 ** max(0, math.floor(math.log10(raw)))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return list(range(math.floor(low / step) * step, math.ceil(high / step) * step + 1, step))


# Time steps in microseconds with the unit their labels show, smallest first; months and years
# follow the calendar.
_US = {"ms": 1_000, "s": 1_000_000, "min": 60_000_000, "h": 3_600_000_000, "d": 86_400_000_000}
_STEPS = [(n * _US[unit], unit) for unit, ns in (
    ("ms", (1, 2, 5, 10, 20, 50, 100, 200, 500)), ("s", (1, 2, 5, 10, 15, 30)),
    ("min", (1, 2, 5, 10, 15, 30)), ("h", (1, 2, 3, 6, 12)), ("d", (1, 2, 7, 14))) for n in ns]
_FORMATS = {"ms": "%H:%M:%S.%f", "s": "%H:%M:%S", "min": "%H:%M", "h": "%H:%M", "d": "%d %b",
            "month": "%b", "year": "%Y"}
# What a tick's second line says when it changes from the tick before: the date, or the year.
_CONTEXT = {"ms": "%Y-%m-%d", "s": "%Y-%m-%d", "min": "%Y-%m-%d", "h": "%Y-%m-%d", "d": "%Y",
            "month": "%Y", "year": ""}


# The room a tick's label takes, in pixels, by unit: the count of ticks follows from it.
_ROOM = {"ms": 90, "s": 72, "min": 56, "h": 56, "d": 56, "month": 48, "year": 48}


def time_ticks(t0: float, t1: float, width: float) -> tuple[str, list[float]]:
    """The unit and the ticks (UTC, on round steps of it) over t0..t1 whose labels fit `width`."""
    start, end = round(t0 * 1_000_000), round(t1 * 1_000_000)
    for step, unit in _STEPS:
        first = -(-start // step) * step
        if (end - first) // step + 1 <= width // _ROOM[unit]:
            return unit, [us / 1_000_000 for us in range(first, end + 1, step)]
    begin, finish = datetime.fromtimestamp(t0, UTC), datetime.fromtimestamp(t1, UTC)
    months = (finish.year - begin.year) * 12 + finish.month - begin.month
    every = next((n for n in (1, 2, 3, 6) if months // n + 1 <= width // _ROOM["month"]), 0)
    every = every or next(n for n in (12, 24, 60, 120, 240, 600, 1200, 6000)
                          if months // n + 1 <= width // _ROOM["year"])
    ticks, index = [], begin.year * 12 + begin.month - 1
    index += -index % every
    while (at := datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC).timestamp()) <= t1:
        if at >= t0:
            ticks.append(at)
        index += every
    return ("year" if every >= 12 else "month"), ticks


def _utc(t: float, fmt: str) -> str:
    text = datetime.fromtimestamp(t, UTC).strftime(fmt)
    if fmt.endswith("%f"):
        return text[:-3]  # milliseconds, not microseconds
    return text.removeprefix("0") if fmt.startswith("%d") else text


def when(t: float) -> str:
    """A time as the chart writes it in full: to the millisecond, in UTC."""
    return _utc(t, "%Y-%m-%d %H:%M:%S.%f") + " UTC"


def _heading(title: str, width: int) -> tuple[list[str], int]:
    """The title (on two lines when narrow, split before its parenthesis), the legend, and where
    the plot's top is."""
    if width >= NARROW:
        return [f'<text x="{LEFT}" y="24" font-size="15" font-weight="bold">{escape(title)}</text>',
                *_legend(width - RIGHT - 300, 44)], TOP
    first, _, rest = title.partition(" (")
    lines = [first, f"({rest}"] if rest else [first]
    parts = [f'<text x="12" y="{20 + 18 * i}" font-size="14" font-weight="bold">{escape(line)}</text>'
             for i, line in enumerate(lines)]
    legend_y = 22 + 18 * len(lines)
    return [*parts, *_legend(12, legend_y)], legend_y + 22


def svg(title: str, sampled: Sampled, width: int = WIDTH) -> str:
    """The chart, `width` pixels wide: a step line of the balance, value gridlines, UTC time
    ticks, the last value labelled, deposits and withdrawals marked; a <title> and a <desc> that
    say it in words."""
    width = max(MIN_WIDTH, min(MAX_WIDTH, width))
    kept = sampled.points
    if kept:
        low, high = min(b for _, b, _ in kept), max(b for _, b, _ in kept)
        desc = (f"{sampled.postings} postings from {when(kept[0][0])} to {when(kept[-1][0])}: "
                f"lowest {low:,}, highest {high:,}, last {kept[-1][1]:,}; "
                f"{sampled.deposits} deposits and {sampled.withdrawals} withdrawals marked.")
    else:
        desc = "No postings."
    heading, top = _heading(title, width)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{HEIGHT}"'
             f' viewBox="0 0 {width} {HEIGHT}" role="img" aria-labelledby="chart-title chart-desc"'
             f' font-family="DejaVu Sans, Verdana, sans-serif" font-size="12" fill="{INK}">'
             f'<title id="chart-title">{escape(title)}</title><desc id="chart-desc">{escape(desc)}</desc>'
             f'<rect width="100%" height="100%" fill="white"/>']
    if not kept:
        parts.append(f'<text x="{LEFT}" y="24" font-size="15" font-weight="bold">{escape(title)}</text>'
                     f'<text x="{width // 2}" y="{HEIGHT // 2}" text-anchor="middle">no postings</text>')
        return "".join(parts) + "</svg>"
    parts += heading
    parts += _plot(kept, width, top)
    return "".join(parts) + "</svg>"


def _plot(kept: list[tuple[float, int, str]], width: int = WIDTH, top: int = TOP) -> list[str]:
    t0, t1 = kept[0][0], kept[-1][0]
    if t1 == t0:  # one instant: centre it in a minute
        t0, t1 = t0 - 30, t1 + 30
    values = value_ticks(min(0, *(b for _, b, _ in kept)), max(0, *(b for _, b, _ in kept)))
    low, high = values[0], values[-1]
    left, right, bottom = LEFT, width - RIGHT, HEIGHT - BOTTOM

    def x(t: float) -> float:
        return round(left + (t - t0) / (t1 - t0) * (right - left), 1)

    def y(b: int) -> float:
        return round(bottom - (b - low) / (high - low) * (bottom - top), 1)

    parts = []
    for v in values:
        parts.append(f'<line x1="{left}" y1="{y(v)}" x2="{right}" y2="{y(v)}" stroke="{GRID}"/>'
                     f'<text x="{left - 6}" y="{y(v) + 4}" text-anchor="end">{v:,}</text>')
    unit, ticks = time_ticks(t0, t1, right - left)
    previous = ""
    for t in ticks:
        context = _utc(t, _CONTEXT[unit]) if _CONTEXT[unit] else ""
        second = context if context != previous else ""
        previous = context
        label = _utc(t, _FORMATS[unit])
        parts.append(f'<line x1="{x(t)}" y1="{bottom}" x2="{x(t)}" y2="{bottom + 5}" stroke="#888"/>'
                     f'<text x="{x(t)}" y="{bottom + 18}" text-anchor="middle" font-size="11">{label}</text>')
        if second:
            parts.append(f'<text x="{x(t)}" y="{bottom + 33}" text-anchor="middle" font-size="11"'
                         f' fill="#57606a">'
                         f'{second}</text>')
    parts.append(f'<text x="{right}" y="{HEIGHT - 8}" text-anchor="end" fill="#57606a">time (UTC)</text>'
                 f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#888"/>'
                 f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#888"/>')
    path, before = [], None
    for t, b, _ in kept:
        if before is not None:
            path.append(f"{x(t)},{y(before)}")  # a balance holds until the next posting: steps
        path.append(f"{x(t)},{y(b)}")
        before = b
    parts.append(f'<polyline fill="none" stroke="{LINE}" stroke-width="2" points="{" ".join(path)}"/>')
    for t, b, what in kept:
        if what:
            parts.append(_marker(x(t), y(b), what, f"{what}: balance {b:,} at {when(t)}"))
    last_t, last = kept[-1][0], kept[-1][1]
    parts.append(f'<circle cx="{x(last_t)}" cy="{y(last)}" r="3.5" fill="{LINE}"/>'
                 f'<text x="{right + 8}" y="{y(last) + 4}" font-weight="bold" fill="{LINE}">{last:,}</text>')
    return parts


def _marker(cx: float, cy: float, what: str, label: str) -> str:
    """A deposit is a green triangle pointing up, a withdrawal a red one pointing down."""
    if what == DEPOSIT:
        shape, color = f"M{cx},{cy - 7}l6,10h-12z", GREEN
    else:
        shape, color = f"M{cx},{cy + 7}l6,-10h-12z", RED
    return f'<path d="{shape}" fill="{color}"><title>{escape(label)}</title></path>'


def _legend(at: int, y: int) -> list[str]:
    return [f'<line x1="{at}" y1="{y - 4}" x2="{at + 22}" y2="{y - 4}" stroke="{LINE}" stroke-width="2"/>'
            f'<text x="{at + 28}" y="{y}">balance</text>',
            _marker(at + 104, y - 5, DEPOSIT, "deposit"), f'<text x="{at + 114}" y="{y}">deposit</text>',
            _marker(at + 194, y - 3, WITHDRAWAL, "withdrawal"),
            f'<text x="{at + 204}" y="{y}">withdrawal</text>']
