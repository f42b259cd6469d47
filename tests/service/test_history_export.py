"""Balance-history exports: every row's references, who may export whom, and the SVG chart."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta, timezone

import orjson

from events import ledger
from service.application.chart import MAX_BUCKETS, downsample
from tests.service.conftest import OPERATOR, bearer
from tests.service.test_audit_cli import banco

COLUMNS = ["position", "recorded_at", "account", "amount", "balance_after", "reason",
           "counterparty", "table", "hand"]


def test_each_row_has_its_place_time_account_amount_balance_reason_and_refs(client, played):
    player = played["players"][0]
    r = client.get(f"/v1/players/{player.id}/balance-history",
                   headers={**player.auth, "Accept": "text/csv"})
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert list(rows[0]) == COLUMNS
    table_id = played["stream"][len("table-"):]
    # `played` may have dealt at several tables before one settled with postings: one buy-in each.
    buy_in = next(row for row in rows if row["reason"] == "buy_in" and row["table"] == table_id)
    assert int(buy_in["amount"]) == -50 and buy_in["counterparty"]
    assert all(datetime.fromisoformat(row["recorded_at"]) for row in rows)
    assert [int(row["position"]) for row in rows] == sorted(int(row["position"]) for row in rows)
    r = client.get(f"/v1/players/{player.id}/balance-history",
                   headers={**player.auth, "Accept": "application/x-ndjson"})
    assert all(list(orjson.loads(line)) == COLUMNS for line in r.get_data().splitlines())


def test_an_auditor_exports_anyone_a_player_only_himself(client, new_player):
    ann, bob = new_player("Ann", deposit=5), new_player("Bob", deposit=5)
    auditor = bearer(client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"])
    for accept in ("text/csv", "application/x-ndjson", "application/json"):
        path = f"/v1/players/{ann.id}/balance-history"
        assert client.get(path, headers={**auditor, "Accept": accept}).status_code == 200
        assert client.get(path, headers={**ann.auth, "Accept": accept}).status_code == 200
        r = client.get(path, headers={**bob.auth, "Accept": accept})
        assert r.status_code == 403 and r.mimetype == "application/problem+json"
    svg = f"/v1/players/{ann.id}/balance-history.svg"
    assert client.get(svg, headers=auditor).status_code == 200
    assert client.get(svg, headers=bob.auth).status_code == 403
    assert client.get(svg, headers=ann.auth, query_string={"from": "yesterday"}).status_code == 422
    assert client.get("/v1/players/pl_nope/balance-history.svg", headers=auditor).status_code == 404


def test_the_chart_is_svg_of_the_balance(client, new_player):
    p = new_player("Chart")
    for amount in (10, 20, 5):
        client.post(f"/v1/players/{p.id}/deposits", json={"amount": amount, "reason": "d"},
                    headers=OPERATOR)
    r = client.get(f"/v1/players/{p.id}/balance-history.svg", headers=p.auth)
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    root = ET.fromstring(r.data)
    line = root.find("{http://www.w3.org/2000/svg}polyline")
    assert line is not None and len(line.get("points", "").split()) == 5  # 3 points, 2 steps
    assert "35" in r.get_data(as_text=True)  # the highest balance labels the axis
    empty = new_player("Empty")
    r = client.get(f"/v1/players/{empty.id}/balance-history.svg", headers=empty.auth)
    assert b"no postings" in r.data


def test_long_histories_are_downsampled_keeping_the_extremes():
    start = datetime(2026, 1, 1).timestamp()
    points = [(datetime.fromtimestamp(start + i), (i * 7919) % 1000, "") for i in range(100_000)]
    points[54_321] = (points[54_321][0], 5000, "")
    kept = downsample(iter(points), len(points)).points
    assert len(kept) <= 4 * MAX_BUCKETS
    assert max(b for _, b, _ in kept) == 5000 and min(b for _, b, _ in kept) == 0
    assert [t for t, _, _ in kept] == sorted(t for t, _, _ in kept)


def test_exports_read_slowly_hold_no_connection_other_requests_need(config, new_player):
    """Exports stream from a pool of their own: clients that leave theirs unread take its
    connections, not the API's; one export too many is a 503 problem at once, not a stalled
    200; and a closed export gives its connection back."""
    from service.http.app import create_app

    # One connection for the API's requests, and so one for exports.
    app = create_app(type(config)(**{**config.__dict__, "pool_size": 1}))
    try:
        client = app.test_client()
        ann = new_player("Ann", deposit=5)
        path, csv_ = f"/v1/players/{ann.id}/balance-history", {**OPERATOR, "Accept": "text/csv"}
        held = client.get(path, headers=csv_, buffered=False)  # started, never read
        assert held.status_code == 200
        extra = client.get(path, headers=csv_)
        assert extra.status_code == 503 and extra.json["code"] == "exports_busy"
        assert extra.headers["Retry-After"] and extra.mimetype == "application/problem+json"
        # The API's one connection is free for its requests meanwhile.
        assert client.get(f"/v1/players/{ann.id}/balance", headers=OPERATOR).status_code == 200
        held.close()
        again = client.get(path, headers=csv_)
        assert again.status_code == 200 and again.get_data(as_text=True).startswith("position,")
    finally:
        app.extensions["banco.pool"].close()
        app.extensions["banco.export_pool"].close()


def test_an_export_with_the_database_away_is_unavailable_not_busy(config, new_player):
    """The exports' pool cannot connect: a 503 unavailable, as for any request, and the slot
    it took is given back, so the next try is unavailable again rather than exports_busy."""
    from events.postgres import make_pool
    from service.http.app import create_app

    app = create_app(type(config)(**{**config.__dict__, "pool_size": 4}))  # 1 export slot
    app.extensions["banco.export_pool"] = make_pool("postgresql://postgres@127.0.0.1:1/none",
                                                    min_size=0, max_size=1, timeout=0.5)
    try:
        client = app.test_client()
        ann = new_player("Ann", deposit=5)
        for _ in range(2):
            r = client.get(f"/v1/players/{ann.id}/balance-history",
                           headers={**OPERATOR, "Accept": "text/csv"})
            assert r.status_code == 503 and r.json["code"] == "unavailable"
    finally:
        app.extensions["banco.pool"].close()
        app.extensions["banco.export_pool"].close()


def test_a_period_that_ends_before_it_begins_is_refused(client, new_player):
    """`from` after `to` selected nothing, an empty history as if the player had no postings;
    it is a 422 in every form of the export, while `from` = `to` is a period like any other."""
    ann = new_player("Ann", deposit=5)
    reversed_ = {"from": "2027-01-01T00:00:00Z", "to": "2026-01-01T00:00:00Z"}
    for path, accept in [("balance-history", "application/json"), ("balance-history", "text/csv"),
                         ("balance-history.svg", "image/svg+xml")]:
        r = client.get(f"/v1/players/{ann.id}/{path}", query_string=reversed_,
                       headers={**ann.auth, "Accept": accept})
        assert r.status_code == 422 and r.json["errors"]["query"]["from"], (path, r.data)
    at = {"from": "2026-01-01T00:00:00Z", "to": "2026-01-01T00:00:00Z"}
    r = client.get(f"/v1/players/{ann.id}/balance-history", query_string=at, headers=ann.auth)
    assert r.status_code == 200 and r.json["items"] == []
    everything = {"from": "2000-01-01T00:00:00Z", "to": "2100-01-01T00:00:00Z"}
    r = client.get(f"/v1/players/{ann.id}/balance-history", query_string=everything, headers=ann.auth)
    assert [row["amount"] for row in r.json["items"]] == [5]


def test_from_includes_its_bound_and_to_excludes_it(client, new_player):
    """As openapi.yaml says: a posting recorded at `from` is in the period, one at `to` is not,
    so one period's `to` is the next one's `from` and no posting is in both."""
    ann = new_player("Ann", deposit=5)
    [row] = client.get(f"/v1/players/{ann.id}/balance-history", headers=ann.auth).json["items"]
    at = row["recorded_at"]
    path = f"/v1/players/{ann.id}/balance-history"
    starting = client.get(path, query_string={"from": at}, headers=ann.auth).json["items"]
    ending = client.get(path, query_string={"to": at}, headers=ann.auth).json["items"]
    assert ([r["position"] for r in starting], ending) == ([row["position"]], [])


def test_an_export_refuses_a_page_it_would_not_give_and_a_nul_before_it_starts(client, new_player):
    """`limit` and `cursor` page the JSON history; asked of a CSV or NDJSON export they were
    ignored and the whole history came back. A NUL in a filter failed the export's query after
    its 200 had begun, a body cut short; now both are a 422 before anything is sent."""
    ann = new_player("Ann", deposit=5)
    path = f"/v1/players/{ann.id}/balance-history"
    for accept in ("text/csv", "application/x-ndjson"):
        r = client.get(path, query_string={"limit": 1, "cursor": 0},
                       headers={**ann.auth, "Accept": accept})
        assert r.status_code == 422 and set(r.json["errors"]["query"]) == {"limit", "cursor"}, r.data
        for name in ("reason", "table", "hand"):
            r = client.get(path, query_string={name: "a\x00"}, headers={**ann.auth, "Accept": accept})
            assert r.status_code == 422 and r.mimetype == "application/problem+json", (name, r.data)
            assert name in r.json["errors"]["query"]
    assert client.get(path, query_string={"limit": 1}, headers=ann.auth).json["items"]
    r = client.get(path, query_string={"reason": "seed"}, headers={**ann.auth, "Accept": "text/csv"})
    assert r.status_code == 200 and r.get_data(as_text=True).count("\n") == 2  # header and the deposit


FORMULAS = ['=HYPERLINK("http://x")', "+1", "-1+1", "@SUM(A1)", "\tx", "\rx"]


def read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))  # a cell may hold a "\r"


def test_text_a_spreadsheet_would_run_is_exported_as_text_and_amounts_stay_numbers(
        client, new_player, tmp_path, database_url):
    p = new_player("Sheet")
    for reason in FORMULAS:
        r = client.post(f"/v1/players/{p.id}/deposits", json={"amount": 10, "reason": reason},
                        headers=OPERATOR)
        assert r.status_code == 201 and r.json["posting"]["reason"] == reason  # taken as given
    r = client.post(f"/v1/players/{p.id}/withdrawals", json={"amount": 7, "reason": "-1+1"},
                    headers=OPERATOR)
    assert r.status_code == 201
    path = f"/v1/players/{p.id}/balance-history"
    reasons = [*FORMULAS, "-1+1"]
    assert [row["reason"] for row in client.get(path, headers=OPERATOR).json["items"]] == reasons

    served = client.get(path, headers={**OPERATOR, "Accept": "text/csv"}).get_data(as_text=True)
    out = tmp_path / "sheet.csv"
    written = banco("export", "balance-history", "--player", p.id, "--format", "csv", "-o",
                    str(out), url=database_url)
    assert written.returncode == 0, written.stderr
    for text in (served, out.read_bytes().decode()):
        rows = read_csv(text)
        assert [row["reason"] for row in rows] == ["'" + reason for reason in reasons]
        assert [row["amount"] for row in rows] == ["10"] * 6 + ["-7"]  # numbers, as they were
        assert [row["balance_after"] for row in rows] == ["10", "20", "30", "40", "50", "60", "53"]
        assert {row["counterparty"] for row in rows} == {ledger.HOUSE}
        assert {row["account"] for row in rows} == {ledger.wallet(p.id)}
    # The filter reads the reason as it was given.
    only = client.get(path, query_string={"reason": "+1"}, headers={**OPERATOR, "Accept": "text/csv"})
    assert [row["reason"] for row in read_csv(only.get_data(as_text=True))] == ["'+1"]


def test_a_time_filter_with_any_utc_offset_gives_the_same_rows_in_every_format(client, new_player):
    """Python reads offsets up to 23:59, PostgreSQL up to 15:59 in a literal, and a CSV export's
    COPY takes its filters as literals: `+16:00` was a 500 there, a 200 in JSON."""
    p = new_player("Offsets", deposit=7)
    auditor = bearer(client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"])
    bounds = {"from": "2000-01-01T00:00:00+16:00", "to": "2999-01-01T00:00:00-20:00"}
    csv_rows = client.get(f"/v1/players/{p.id}/balance-history", query_string=bounds,
                          headers={**p.auth, "Accept": "text/csv"})
    assert csv_rows.status_code == 200, csv_rows.get_data(as_text=True)
    lines = client.get(f"/v1/players/{p.id}/balance-history", query_string=bounds,
                       headers={**p.auth, "Accept": "application/x-ndjson"})
    assert len(csv_rows.get_data().splitlines()) - 1 == len(lines.get_data().splitlines()) == 1
    now = datetime.now(UTC).astimezone(timezone(timedelta(hours=16))).isoformat()
    at = client.get("/v1/balances", query_string={"as_of": now},
                    headers={**auditor, "Accept": "text/csv"})
    assert at.status_code == 200 and f"wallet:{p.id},7" in at.get_data(as_text=True)
