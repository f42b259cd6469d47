"""`banco projections check`: the projections compared with a replay of the log, on a database
of the test's own (the session's holds events that store-level tests append without their
projections). It finds a projection that differs, says where, and changes nothing."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import psycopg

from games.sevenhalf.sette import SetteEngine
from projections.check import differences
from service.runtime.config import Config
from tests.conftest import fresh_database
from tests.service.conftest import OPERATOR, ROOT, app_on, jobs_on, register
from workers import settlement


def test_a_projection_that_differs_from_the_replay_is_found_and_left_as_it_is(
        config: Config, servers) -> None:
    with fresh_database(servers.database_url, prefix="banco_check") as url:
        with app_on(dataclasses.replace(config, database_url=url)) as app:
            client = app.test_client()
            ids = [register(client, name, 40).id for name in ("Ann", "Bob")]
            client.post(f"/v1/players/{ids[0]}/erasure", headers=OPERATOR)
        with psycopg.connect(url, autocommit=True) as conn:
            assert differences(conn) == {}
            conn.execute("UPDATE balances SET balance = balance + 1 WHERE account = %s",
                         (f"wallet:{ids[1]}",))
            conn.execute("UPDATE players SET name = NULL WHERE player_id = %s", (ids[1],))
            found = differences(conn)
            assert {name: (d.held_only, d.replayed_only, d.columns)
                    for name, d in found.items()} == {
                "balances": (1, 1, {"balance": 1}), "players": (1, 1, {"name": 1})}
            # Found, not mended: the check rolled its replay back.
            assert conn.execute("SELECT balance FROM balances WHERE account = %s",
                                (f"wallet:{ids[1]}",)).fetchone() == (41,)
        done = subprocess.run([sys.executable, "-m", "service.cli", "projections", "check"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "DATABASE_URL": url})
        assert done.returncode == 1, done.stderr
        assert ("balances: 1 row(s) not given by a replay, 1 row(s) of the replay missing;"
                " rows differ in balance in 1") in done.stdout


def test_a_hand_that_ends_at_its_own_deal_is_projected_as_the_replay_projects_it(
        config: Config, servers, monkeypatch) -> None:
    """No player can bet the minimum, so the deal itself ends the hand (RULES.md §1a: each player
    bets the banker's stake or sits the hand out; ../shared/seeds/001_6b5bbd2473d5c47f.txt). Its
    row was left without its last version: the hand's summary and its table's hands were a 500
    for good, and the check found the row differing from the replay's. Such a deal is refused
    now (409 `not_enough_players`), but the logs keep the hands dealt so before: one is made
    here as that release made it."""
    monkeypatch.setattr(SetteEngine, "played_by_nobody", lambda *_, **__: False)
    with fresh_database(servers.database_url, prefix="banco_check") as url:
        with app_on(dataclasses.replace(config, database_url=url)) as app:
            client = app.test_client()
            table = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {
                "min_bet": 5, "max_bet": 10}}, headers=OPERATOR).json["id"]
            for name, buy_in in (("Ann", 50), ("Bob", 3), ("Cy", 3)):
                p = register(client, name, 100)
                assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": buy_in},
                                   headers=p.auth).status_code == 201
            dealt = client.post(f"/v1/tables/{table}/hands", headers=OPERATOR)
            assert dealt.status_code == 201 and dealt.json["status"] == "settling", dealt.json
            hand = dealt.json["hand"]["id"]
            summary = client.get(f"/v1/hands/{hand}", headers=OPERATOR)
            assert summary.status_code == 200 and summary.json["status"] == "settling", summary.json
            with jobs_on(dataclasses.replace(config, database_url=url)):
                assert settlement.settle_hand(table, hand)  # as the worker does
            for path in (f"/v1/hands/{hand}", f"/v1/tables/{table}/hands"):
                r = client.get(path, headers=OPERATOR)
                assert r.status_code == 200, (path, r.json)
            assert client.get(f"/v1/hands/{hand}", headers=OPERATOR).json["status"] == "settled"
        with psycopg.connect(url, autocommit=True) as conn:
            assert differences(conn) == {}
