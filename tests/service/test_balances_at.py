"""Every account's balance at a point of the log, against a replay of the log to that point."""

from __future__ import annotations

import csv
import io
import uuid
from collections import Counter
from datetime import datetime
from typing import Any

import psycopg
import pytest
from flask.testing import FlaskClient

from events.model import Checkpoint, NewEvent, StoredEvent
from service.application import balances_at
from service.application.errors import Conflict
from tests.service.conftest import OPERATOR, bearer
from tests.service.test_history_export import FORMULAS
from tests.service.test_streams import cassino_table


def _postings(app: Any, upto: int) -> list[StoredEvent]:
    """Every posting of the log, read through the store's global order until `upto` is in."""
    store = app.extensions["banco.store"]
    found: list[StoredEvent] = []
    after = Checkpoint()
    while not any(e.position == upto for e in found):
        page = store.read_all(after, 5000, types={"TreasurePosted"})
        found += page
        after = page[-1].checkpoint if page else after
    return found


def _replay(postings: list[StoredEvent], keep: Any) -> Counter[str]:
    balances: Counter[str] = Counter()
    for e in postings:
        if keep(e):
            balances[e.data["from"]] -= e.data["amount"]
            balances[e.data["to"]] += e.data["amount"]
    return balances


def _all_pages(client: FlaskClient, headers: dict[str, str], as_of: str) -> dict[str, int]:
    found: dict[str, int] = {}
    cursor = None
    while True:
        query = {"as_of": as_of, "limit": 50, **({"cursor": cursor} if cursor else {})}
        r = client.get("/v1/balances", query_string=query, headers=headers)
        assert r.status_code == 200, r.json
        found |= {i["account"]: i["balance"] for i in r.json["items"]}
        cursor = r.json["next_cursor"]
        if cursor is None:
            return found


def test_balances_as_of_a_position_or_a_time_equal_a_replay_of_the_log(app, client: FlaskClient,
                                                                       new_player: Any):
    ann, bob = new_player("Ann"), new_player("Bob")

    def move(player: Any, kind: str, amount: int) -> dict[str, Any]:
        r = client.post(f"/v1/players/{player.id}/{kind}", headers=OPERATOR,
                        json={"amount": amount, "reason": "desk"})
        assert r.status_code == 201, r.json
        return dict(r.json["posting"])

    first = move(ann, "deposits", 50)
    middle = move(bob, "deposits", 30)
    cassino_table(client, [ann, bob])  # a buy-in each: wallet to seat
    last = move(bob, "withdrawals", 10)
    postings = _postings(app, last["position"])
    ours = {a for e in postings for a in (e.data["from"], e.data["to"])
            if ann.id in a or bob.id in a}
    auditor = bearer(client.post("/v1/auditors", json={"name": "Al"}, headers=OPERATOR).json["token"])

    points = [(str(middle["position"]), lambda e: e.position <= middle["position"]),
              (str(last["position"]), lambda e: e.position <= last["position"]),
              (first["recorded_at"], lambda e: e.recorded_at <= datetime.fromisoformat(first["recorded_at"]))]
    for as_of, keep in points:
        replayed = _replay(postings, keep)
        shown = _all_pages(client, auditor, as_of)
        assert {a: b for a, b in shown.items() if a in ours} == {a: replayed[a] for a in ours
                                                                 if a in replayed}
        assert sum(shown.values()) == 0
        assert [a for a, b in shown.items() if b < 0] == ["house:issued"]
        r = client.get("/v1/balances", query_string={"as_of": as_of},
                       headers={**OPERATOR, "Accept": "text/csv"})
        assert r.status_code == 200 and r.mimetype == "text/csv"
        rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
        assert {row["account"]: int(row["balance"]) for row in rows} == shown
    at_middle = _all_pages(client, OPERATOR, str(middle["position"]))
    assert (at_middle[f"wallet:{ann.id}"], at_middle[f"wallet:{bob.id}"]) == (50, 30)
    assert _all_pages(client, OPERATOR, first["recorded_at"])[f"wallet:{ann.id}"] == 50
    assert f"wallet:{bob.id}" not in _all_pages(client, OPERATOR, first["recorded_at"])
    assert client.get("/v1/balances", query_string={"as_of": 1}, headers=ann.auth).status_code == 403


def test_a_point_waits_for_the_transactions_that_may_still_post_before_it(app):
    """A transaction that drew a position and is still open may commit a posting before any
    later point: the answer waits for it (here refused as not settled, past a short wait)."""
    url = app.config["BANCO"].database_url
    store = app.extensions["banco.store"]
    with psycopg.connect(url) as open_, psycopg.connect(url, autocommit=True) as asking:
        [held] = store.append(f"held-{uuid.uuid4().hex}", [NewEvent(
            "PlayerErased", {"player_id": "pl_held", "actor": "test"})], 0, conn=open_)
        with pytest.raises(Conflict) as refused:
            balances_at.settle(asking, balances_at.Point(position=held.position), timeout=0.3)
        assert refused.value.code == "not_settled"
        open_.commit()
        balances_at.settle(asking, balances_at.Point(position=held.position))


def test_account_names_a_spreadsheet_would_run_are_exported_as_text(app, client: FlaskClient):
    """No client names an account today (wallets and the house are named by the ledger), but the
    CSV escapes the column all the same; so accounts of such names are written straight into the
    projection here, and taken out again."""
    tag = uuid.uuid4().hex
    names = [f"{formula} {tag}" for formula in FORMULAS]
    r = client.post("/v1/players", json={"name": "Sheet"}, headers=OPERATOR)
    client.post(f"/v1/players/{r.json['player']['id']}/deposits", json={"amount": 5, "reason": "d"},
                headers=OPERATOR)
    pool = app.extensions["banco.pool"]
    with pool.connection() as c:
        [(position,)] = c.execute("SELECT max(position) FROM balance_history")
        for name in names:
            c.execute("INSERT INTO balances VALUES (%s, 5, %s)", (name, position))
            c.execute("INSERT INTO balance_history VALUES (%s, %s, now(), 5, 5, 'd', 'house:issued',"
                      " NULL, NULL)", (position, name))
    try:
        r = client.get("/v1/balances", query_string={"as_of": position},
                       headers={**OPERATOR, "Accept": "text/csv"})
        assert r.status_code == 200
        rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True), newline="")))
    finally:
        with pool.connection() as c:
            c.execute("DELETE FROM balance_history WHERE account = ANY(%s)", (names,))
            c.execute("DELETE FROM balances WHERE account = ANY(%s)", (names,))
    shown = {row["account"]: row["balance"] for row in rows}
    assert all(shown["'" + name] == "5" for name in names)
    assert int(shown["house:issued"]) < 0  # a negative balance is a number, written as one
    assert all(not row["last_position"].startswith("'") for row in rows)
