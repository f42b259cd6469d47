"""Rules versions: a table plays, and its hands are verified with, the rules version its game had
when the table was created, whatever version the game is at now.

The tests ship a second version of Sette e mezzo in their own engine registry, with one rule
changed, and play in a database of their own: its tables of version 2 would be unknown to every
other test's registry.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from games import registry
from games.sevenhalf.sette import SetteEngine
from games.sevenhalf.state import State
from projections import migrate, tables
from projections.rebuild import rebuild_all
from service.application import settling
from service.application.postgres_unit_of_work import transaction
from service.verification.hand_log import load_hand, load_table
from service.verification.rules_check import rules_check
from service.verification.verify import verify_hand
from tests.conftest import fresh_database
from tests.service.conftest import OPERATOR, Player, app_on
from tests.service.tamper import edit, log_copy


class CoveredSette(SetteEngine):
    """Sette e mezzo, rules version 2: the banker covers every stake, so no bet exceeds what his
    seat holds (version 1 caps a bet at the bettor's own balance only)."""

    info = replace(SetteEngine.info, version=2)

    def bet_range(self, state: State, seat: int) -> tuple[int, int]:
        low, high = super().bet_range(state, seat)
        return low, min(high, state.balances.get(state.banker, 0))


def serve_version_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sette e mezzo's rules changed: version 2 served beside version 1."""
    monkeypatch.setattr(registry, "REGISTRY", registry.Registry([*registry.served(), CoveredSette()]))


@pytest.fixture
def version_2(monkeypatch: pytest.MonkeyPatch) -> None:
    serve_version_2(monkeypatch)


@pytest.fixture(scope="module")
def own_url(database_url: str) -> Iterator[str]:
    """A database of the module's own, migrated like the session's."""
    with fresh_database(database_url, "banco_rules") as url:
        yield url


@pytest.fixture(scope="module")
def own_app(config: Any, own_url: str) -> Iterator[Flask]:
    with app_on(replace(config, database_url=own_url,
                             queue_name=f"{config.queue_name}-rules")) as app:
        yield app


@pytest.fixture
def own(own_app: Flask) -> FlaskClient:
    return own_app.test_client()


def players(client: FlaskClient) -> tuple[Player, Player]:
    made = []
    for name in ("Banker", "Bettor"):
        r = client.post("/v1/players", json={"name": name}, headers=OPERATOR)
        made.append(Player(r.json["player"]["id"], r.json["token"]))
        client.post(f"/v1/players/{made[-1].id}/deposits", json={"amount": 1000, "reason": "seed"},
                    headers=OPERATOR)
    return made[0], made[1]


def new_table(client: FlaskClient, banker: Player, bettor: Player) -> dict[str, Any]:
    """A Sette e mezzo table where the banker (seat 0) holds 20 and the bettor 50."""
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json
    for player, buy_in in ((banker, 20), (bettor, 50)):
        r = client.post(f"/v1/tables/{table['id']}/seats", json={"buy_in": buy_in},
                        headers=player.auth)
        assert r.status_code == 201, r.json
    return dict(table)


def act(client: FlaskClient, table_id: str, player: Player, action: dict[str, Any]) -> Any:
    version = client.get(f"/v1/tables/{table_id}", headers=player.auth).json["version"]
    return client.post(f"/v1/tables/{table_id}/actions", json=action,
                       headers={**player.auth, "If-Match": f'"{version}"'})


def largest_bet(client: FlaskClient, table_id: str, player: Player) -> int:
    offered = client.get(f"/v1/tables/{table_id}", headers=player.auth).json["legal_actions"]
    return int(next(a for a in offered if a["type"] == "bet")["amount"]["max"])


def play_hand(app: Flask, client: FlaskClient, table_id: str, banker: Player, bettor: Player,
              bet: int) -> str:
    """Deal, bet `bet`, both stand; settled here (no worker serves this registry)."""
    hand_id = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR).json["hand"]["id"]
    r = act(client, table_id, bettor, {"type": "bet", "amount": bet})
    assert r.status_code == 200, r.json
    while client.get(f"/v1/tables/{table_id}", headers=OPERATOR).json["status"] == "playing":
        mover = next(p for p in (bettor, banker) if client.get(
            f"/v1/tables/{table_id}", headers=p.auth).json["legal_actions"])
        assert act(client, table_id, mover, {"type": "stand"}).status_code == 200
    with transaction(app.extensions["banco.pool"], app.extensions["banco.store"]) as uow:
        assert settling.settle(uow, table_id, hand_id,
                               {"actor": "worker", "command": "SettleHand", "hand": hand_id})
    return str(hand_id)


def verified(app: Flask, hand_id: str) -> dict[str, Any]:
    with app.extensions["banco.pool"].connection() as conn:
        report = verify_hand(conn, hand_id)
    assert report is not None
    return report


def test_a_rule_change_keeps_older_tables_and_their_hands_on_the_rules_they_began_with(
        own_app, own, monkeypatch):
    banker, bettor = players(own)
    old = new_table(own, banker, bettor)
    assert old["rules_version"] == 1
    old_hand = play_hand(own_app, own, old["id"], banker, bettor, bet=50)  # over the banker's 20
    kept = new_table(own, banker, bettor)  # created before the change, dealt after it

    serve_version_2(monkeypatch)
    game = own.get("/v1/games/sette-e-mezzo").json
    assert (game["rules_version"], game["rules_versions"]) == (2, [1, 2])

    # New tables play the new rule: the banker's 20 caps the bet.
    new = new_table(own, banker, bettor)
    assert new["rules_version"] == 2
    own.post(f"/v1/tables/{new['id']}/hands", headers=OPERATOR)
    assert largest_bet(own, new["id"], bettor) == 20
    refused = act(own, new["id"], bettor, {"type": "bet", "amount": 50})
    assert (refused.status_code, refused.json["code"]) == (422, "bet_out_of_range")
    assert act(own, new["id"], bettor, {"type": "bet", "amount": 20}).status_code == 200

    # A table created before the change keeps the old rule for its whole life.
    assert own.get(f"/v1/tables/{kept['id']}", headers=OPERATOR).json["rules_version"] == 1
    own.post(f"/v1/tables/{kept['id']}/hands", headers=OPERATOR)
    assert largest_bet(own, kept["id"], bettor) == 50
    assert act(own, kept["id"], bettor, {"type": "bet", "amount": 50}).status_code == 200

    # Hands played under the old version still verify, each with its table's version.
    hand = own.get(f"/v1/hands/{old_hand}", headers=OPERATOR).json
    assert hand["rules_version"] == 1
    report = verified(own_app, old_hand)
    assert report["passed"] and report["rules_version"] == 1, report
    over_http = own.get(f"/v1/hands/{old_hand}/verification", headers=OPERATOR).json
    assert over_http["passed"] and over_http["rules_version"] == 1
    # ... which today's rules would refuse: its bet of 50 is over the banker's 20.
    with own_app.extensions["banco.pool"].connection() as conn:
        logged = load_hand(conn, old_hand)
    assert logged is not None and rules_check(logged).passed
    assert not rules_check(replace(logged, rules_version=2)).passed


def test_hands_of_both_versions_verify_and_the_projection_rebuilds_each_tables_version(
        own_app, own, version_2):
    banker, bettor = players(own)
    new = new_table(own, banker, bettor)
    new_hand = play_hand(own_app, own, new["id"], banker, bettor, bet=20)
    with own_app.extensions["banco.pool"].connection() as conn:
        created = conn.execute("SELECT data FROM events WHERE stream_id = %s AND version = 1",
                               (f"table-{new['id']}",)).fetchone()
    assert created is not None and created[0]["rules_version"] == 2
    assert own.get(f"/v1/hands/{new_hand}", headers=OPERATOR).json["rules_version"] == 2
    report = verified(own_app, new_hand)
    assert report["passed"] and report["rules_version"] == 2, report

    with own_app.extensions["banco.pool"].connection() as conn:
        before = {r[0]: r[1] for r in conn.execute("SELECT table_id, rules_version FROM tables")}
        rebuild_all(conn)
        after = {r[0]: r[1] for r in conn.execute("SELECT table_id, rules_version FROM tables")}
    assert after == before and set(after.values()) == {1, 2}


def test_a_table_created_before_rules_had_versions_is_version_1(own_app, own, own_url, monkeypatch):
    """Its TableCreated names no version: it is replayed, verified and projected as version 1,
    not as the current version."""
    banker, bettor = players(own)
    table = new_table(own, banker, bettor)
    hand_id = play_hand(own_app, own, table["id"], banker, bettor, bet=50)
    serve_version_2(monkeypatch)
    stream = f"table-{table['id']}"
    with log_copy(own_url) as conn:
        edit(conn, stream, 1, lambda d: d.pop("rules_version"))
        logged = load_table(conn, table["id"])
        assert logged is not None and logged.rules_version == 1
        assert "rules_version" not in logged.events[0].data
        report = verify_hand(conn, hand_id)
        assert report is not None and report["passed"] and report["rules_version"] == 1, report
        rebuild_all(conn)
        row = tables.load(conn, table["id"])
        assert row is not None and row.rules_version == 1


def test_a_table_row_from_before_the_migration_is_version_1(database_url):
    name = f"banco_rules_mig_{secrets.token_hex(3)}"
    admin = make_conninfo(database_url, dbname=conninfo_to_dict(database_url).get("dbname"))
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    try:
        with psycopg.connect(make_conninfo(database_url, dbname=name), autocommit=True) as conn:
            mine = next(v for v, file, _ in migrate.available() if file.endswith("_rules_version.sql"))
            migrate.upgrade(conn, upto=mine - 1)
            conn.execute("INSERT INTO tables (table_id, game, options, status, version, created_by,"
                         " created_at, updated_at) VALUES ('tb_old', 'sette-e-mezzo', '{}', 'open',"
                         " 1, 'operator', now(), now())")
            migrate.upgrade(conn)
            row = tables.load(conn, "tb_old")
        assert row is not None and row.rules_version == 1
    finally:
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_a_version_is_registered_once_and_a_game_is_served_at_each():
    with pytest.raises(ValueError, match="registered twice"):
        registry.Registry([*registry.served(), SetteEngine()])
    served = registry.Registry([*registry.served(), CoveredSette()])
    assert served.current_version("sette-e-mezzo") == 2
    assert served.engine("sette-e-mezzo", 1).info.version == 1
    assert isinstance(served.engine("sette-e-mezzo"), CoveredSette)
    assert served.current_version("cassino") == 1
    with pytest.raises(registry.RulesNotServed):
        served.engine("sette-e-mezzo", 3)
    with pytest.raises(registry.RulesNotServed):
        served.engine("briscola")
