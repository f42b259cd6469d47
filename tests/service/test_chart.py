"""The balance chart reads on its own: value gridlines on round steps, UTC time ticks fine enough
to tell postings apart, the last value, deposits and withdrawals marked; checked on the SVG's
text and on a PNG rendering of it (cairosvg), where every label must have ink."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import cairosvg
import pytest
from PIL import Image

from service.application import chart
from tests.service.conftest import OPERATOR

SVG = "{http://www.w3.org/2000/svg}"
START = datetime(2026, 11, 25, 9, 23, 31, 120_000, tzinfo=UTC)


def texts(root: ET.Element) -> list[ET.Element]:
    return list(root.iter(f"{SVG}text"))


def inked(png: Image.Image, label: ET.Element) -> float:
    """The share of dark pixels where the label is drawn (its box estimated from its anchor)."""
    size = float(label.get("font-size", "12"))
    x, y, width = float(label.get("x", 0)), float(label.get("y", 0)), 0.6 * size * len(label.text or "")
    left = {"start": x, "middle": x - width / 2, "end": x - width}[label.get("text-anchor", "start")]
    box = png.crop((round(left), round(y - size), round(left + width), round(y + 3))).convert("L")
    histogram = box.histogram()
    return sum(histogram[:160]) / max(1, sum(histogram))


def rendered(svg: str, width: int = chart.WIDTH) -> tuple[ET.Element, Image.Image]:
    root = ET.fromstring(svg)
    png = Image.open(io.BytesIO(cairosvg.svg2png(bytestring=svg.encode())))
    assert png.size == (width, chart.HEIGHT)
    for label in texts(root):  # every label is drawn where it says, not just written in the file
        assert inked(png, label) > 0.04, label.text
    return root, png


def test_postings_37_ms_apart_get_distinct_ticks_and_every_label_is_drawn():
    postings = [(START, 30, chart.DEPOSIT), (START + timedelta(milliseconds=37), 26, chart.WITHDRAWAL),
                (START + timedelta(milliseconds=80), 1210, chart.DEPOSIT),
                (START + timedelta(milliseconds=95), 1180, "")]
    svg = chart.svg("Wallet balance of Ann (pl_1)", chart.downsample(postings, len(postings)))
    root, _ = rendered(svg)
    assert root.findtext(f"{SVG}title") == "Wallet balance of Ann (pl_1)"
    desc = root.findtext(f"{SVG}desc") or ""
    assert "2026-11-25 09:23:31.120 UTC" in desc and "last 1,180" in desc
    assert "2 deposits and 1 withdrawals" in desc
    labels = [t.text or "" for t in texts(root)]
    bottom = chart.HEIGHT - chart.BOTTOM
    ticks = [t.text or "" for t in texts(root) if float(t.get("y", 0)) == bottom + 18]
    assert len(ticks) >= 4 and len(set(ticks)) == len(ticks)
    assert all(re.fullmatch(r"09:23:31\.\d{3}", tick) for tick in ticks), ticks
    at = [float(t.get("x", 0)) for t in texts(root) if float(t.get("y", 0)) == bottom + 18]
    assert min(b - a for a, b in pairwise(at)) > 0.6 * 11 * len(ticks[0]) + 4  # no label overlaps
    assert "2026-11-25" in labels and "time (UTC)" in labels  # the date once, and the zone
    # Values on a round step, each with its gridline, and the last value beside the line's end.
    values = [int((t.text or "").replace(",", "")) for t in texts(root) if t.get("x") == str(chart.LEFT - 6)]
    step = values[1] - values[0]
    assert values[0] == 0 and values[-1] >= 1210 and re.fullmatch(r"[125]0*", str(step))
    assert values == list(range(0, values[-1] + 1, step))
    grid = [line for line in root.iter(f"{SVG}line") if line.get("stroke") == chart.GRID]
    assert len(grid) == len(values)
    [last] = [t for t in texts(root) if t.get("font-weight") == "bold" and t.get("fill") == chart.LINE]
    assert last.text == "1,180"
    # Deposits and withdrawals: distinct shapes, each with a title that says which, and a legend.
    marks = [(p.findtext(f"{SVG}title") or "", p.get("fill")) for p in root.iter(f"{SVG}path")]
    assert sorted(marks) == sorted([
        ("deposit", chart.GREEN), ("withdrawal", chart.RED),
        ("deposit: balance 30 at 2026-11-25 09:23:31.120 UTC", chart.GREEN),
        ("withdrawal: balance 26 at 2026-11-25 09:23:31.157 UTC", chart.RED),
        ("deposit: balance 1,210 at 2026-11-25 09:23:31.200 UTC", chart.GREEN)])
    assert {"balance", "deposit", "withdrawal"} <= set(labels)


@pytest.mark.parametrize(("span", "unit", "label"), [
    (timedelta(milliseconds=37), "ms", r"\d\d:\d\d:\d\d\.\d{3}"),
    (timedelta(seconds=40), "s", r"\d\d:\d\d:\d\d"),
    (timedelta(hours=12), "h", r"\d\d:\d\d"),
    (timedelta(days=20), "d", r"\d{1,2} [A-Z][a-z]{2}"),
    (timedelta(days=300), "month", r"[A-Z][a-z]{2}"),
    (timedelta(days=3000), "year", r"\d{4}"),
])
def test_the_time_axis_takes_its_unit_from_the_span(span, unit, label):
    postings = [(START, 5, ""), (START + span, 9, "")]
    root, _ = rendered(chart.svg("Wallet balance of Ann (pl_1)", chart.downsample(postings, 2)))
    got_unit, ticks = chart.time_ticks(START.timestamp(), (START + span).timestamp(), 640)
    assert got_unit == unit and 3 <= len(ticks) <= 640 // chart._ROOM[unit]
    assert ticks == sorted(ticks)
    assert START.timestamp() <= ticks[0] and ticks[-1] <= (START + span).timestamp()
    bottom = chart.HEIGHT - chart.BOTTOM
    shown = [t.text or "" for t in texts(root) if float(t.get("y", 0)) == bottom + 18]
    assert len(shown) == len(ticks) and all(re.fullmatch(label, s) for s in shown), shown


def test_the_api_chart_is_the_wallet_with_its_deposits_and_withdrawals(client, new_player):
    p = new_player("Chart")
    for path, amount in (("deposits", 10), ("deposits", 20), ("withdrawals", 5)):
        r = client.post(f"/v1/players/{p.id}/{path}", json={"amount": amount, "reason": "d"},
                        headers=OPERATOR)
        assert r.status_code == 201
    r = client.get(f"/v1/players/{p.id}/balance-history.svg", headers=p.auth)
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    root, _ = rendered(r.get_data(as_text=True))
    assert root.findtext(f"{SVG}title") == f"Wallet balance of Chart ({p.id})"
    assert "time (UTC)" in [t.text for t in texts(root)]
    marks = [p.findtext(f"{SVG}title") or "" for p in root.iter(f"{SVG}path")]
    assert sum(m.startswith("deposit: balance") for m in marks) == 2
    assert sum(m.startswith("withdrawal: balance 25") for m in marks) == 1
    [last] = [t for t in texts(root) if t.get("font-weight") == "bold" and t.get("fill") == chart.LINE]
    assert last.text == "25"


def test_a_chart_drawn_for_a_phone_keeps_its_labels_whole_and_their_size():
    """At 360 px (a phone's screen) the chart is drawn 360 px wide rather than shrunk: labels at
    their size (11 px and more), inside the picture, fewer time ticks, the title on two lines."""
    postings = [(START + timedelta(hours=h), 100 + 10 * h, chart.DEPOSIT if h % 5 == 0 else "")
                for h in range(48)]
    svg = chart.svg("Wallet balance of Ada Lovelace (pl_249d7c0c6c058efc)",
                    chart.downsample(postings, len(postings)), 360)
    root, _ = rendered(svg, 360)
    labels = texts(root)
    assert [t.text for t in labels[:2]] == ["Wallet balance of Ada Lovelace", "(pl_249d7c0c6c058efc)"]
    for label in labels:
        size = float(label.get("font-size", "12"))
        assert size >= 11, label.text
        x, width = float(label.get("x", 0)), 0.6 * size * len(label.text or "")
        left = {"start": x, "middle": x - width / 2, "end": x - width}[label.get("text-anchor", "start")]
        assert left >= 0 and left + width <= 360 + 2, label.text
    bottom = chart.HEIGHT - chart.BOTTOM
    ticks = [t for t in labels if float(t.get("y", 0)) == bottom + 18]
    wide = ET.fromstring(chart.svg("t", chart.downsample(postings, len(postings))))
    assert 2 <= len(ticks) < len([t for t in texts(wide) if float(t.get("y", 0)) == bottom + 18])


def test_the_chart_is_drawn_at_the_width_asked(client, new_player):
    ann = new_player("Ann")
    client.post(f"/v1/players/{ann.id}/deposits", json={"amount": 5, "reason": "desk"}, headers=OPERATOR)
    r = client.get(f"/v1/players/{ann.id}/balance-history.svg?width=390", headers=OPERATOR)
    assert r.status_code == 200 and 'width="390"' in r.get_data(as_text=True)
    too_narrow = client.get(f"/v1/players/{ann.id}/balance-history.svg?width=100", headers=OPERATOR)
    assert too_narrow.status_code == 422
