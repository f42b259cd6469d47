"""An action's budget, counted on the wire: PostgreSQL round trips and Redis commands per move of
Sette e mezzo and Cassino, and the table reads of a follower the move brings its turn to.

A move costs three PostgreSQL round trips (the token and the table read with the transaction's
BEGIN, the events appended and the table saved, COMMIT) and one Redis round trip (its rate
limit), whether it posts treasure or not: a move that posts sends the check of the balances it
moves before its append, and their projection after it, in the append's round trip. Counted
through a proxy that reads the protocol the pool's connections speak
(`tests/service/round_trips.py`), so whatever the client library does is seen.
psycopg prepares a statement on its fifth use on a connection, once, in a round trip of its own:
those are counted apart, and bounded by the statements an action sends outside a pipeline. Once
each statement has been used that often, a move has PostgreSQL parse and plan none of them.
"""

from __future__ import annotations

import queue
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.application import notify
from service.http.app import create_app
from tests.games.test_sevenhalf_properties import concrete
from tests.service.conftest import OPERATOR, Player
from tests.service.round_trips import PgProxy, redis_commands
from tests.service.test_streams import follow

PG_BUDGET = 3  # BEGIN + token + table, [balance check +] append [+ postings] + save, COMMIT
REDIS_BUDGET = 1  # the rate limit's script; the jobs go from a thread of their own


@pytest.fixture(scope="module")
def proxy(config: Any) -> Iterator[PgProxy]:
    p = PgProxy(config.database_url)
    yield p
    p.close()


@pytest.fixture(scope="module")
def counted(config: Any, proxy: PgProxy) -> Iterator[Flask]:
    """An app whose every PostgreSQL connection goes through the proxy."""
    app = create_app(replace(config, database_url=proxy.url, pool_size=4))
    # The job thread's check of the tables' versions would fall into a move's count: it only
    # saves Redis work, which this test does not look at.
    app.extensions["banco.jobs"].versions = None
    yield app
    app.extensions["banco.pool"].close()
    app.extensions["banco.export_pool"].close()


def _players(client: FlaskClient, n: int) -> list[Player]:
    out = []
    for i in range(n):
        r = client.post("/v1/players", json={"name": f"B{i}"}, headers=OPERATOR)
        out.append(Player(r.json["player"]["id"], r.json["token"]))
        client.post(f"/v1/players/{out[-1].id}/deposits", json={"amount": 500, "reason": "seed"},
                    headers=OPERATOR)
    return out


def _table(client: FlaskClient, game: str, options: dict[str, Any], players: list[Player],
           buy_in: int) -> str:
    r = client.post("/v1/tables", json={"game": game, "options": options}, headers=OPERATOR)
    table_id = str(r.json["id"])
    for p in players:
        r = client.post(f"/v1/tables/{table_id}/seats", json={"buy_in": buy_in}, headers=p.auth)
        assert r.status_code == 201, r.json
    r = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
    assert r.status_code == 201, r.json
    return table_id


def _posted(database_url: str, table_id: str, after: int, upto: int) -> bool:
    with psycopg.connect(database_url) as conn:
        return conn.execute("SELECT count(*) FROM events WHERE stream_id = %s AND version > %s"
                            " AND version <= %s AND type = 'TreasurePosted'",
                            (f"table-{table_id}", after, upto)).fetchone() != (0,)


def _play_counted(app: Flask, config: Any, proxy: PgProxy, monkeypatch: pytest.MonkeyPatch,
                  table_id: str, players: list[Player], game: str,
                  keyed: bool = False,
                  parsed: list[list[bytes]] | None = None) -> list[tuple[int, int, bool]]:
    """Play the hand to its end (each move with an Idempotency-Key if `keyed`); for each move
    its PostgreSQL round trips, its Redis commands and whether it posted treasure, and in
    `parsed` (if given) the statements PostgreSQL parsed for it."""
    client = app.test_client()
    rng = random.Random(11)
    counts = []
    for _ in range(300):
        views = {p.id: client.get(f"/v1/tables/{table_id}", headers=p.auth).json for p in players}
        mover = next((p for p in players if views[p.id]["legal_actions"]), None)
        if mover is None:
            return counts
        table = views[mover.id]
        action = rng.choice(table["legal_actions"])
        payload = concrete(action, rng) if game == "sette-e-mezzo" else dict(action)
        headers = {**mover.auth, "If-Match": f'"{table["version"]}"'}
        if keyed:
            headers["Idempotency-Key"] = f"move-{table_id}-{table['version']}"
        before, texts = proxy.total(), proxy.parsed()
        with redis_commands(monkeypatch) as sent:
            r = client.post(f"/v1/tables/{table_id}/actions", json=payload, headers=headers)
        trips = proxy.total() - before
        if parsed is not None:
            parsed.append(proxy.parsed_since(texts))
        assert r.status_code == 200, r.json
        counts.append((trips, len(sent),
                       _posted(config.database_url, table_id, table["version"], r.json["version"])))
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize(("game", "options", "buy_in", "seats"), [
    ("sette-e-mezzo", {"min_bet": 1, "max_bet": 10}, 100, 3),
    ("cassino", {"variant": "classic"}, 30, 2),
])
def test_every_move_keeps_to_its_round_trip_budget(counted: Flask, config: Any, proxy: PgProxy,
                                                    monkeypatch: pytest.MonkeyPatch, game: str,
                                                    options: dict[str, Any], buy_in: int,
                                                    seats: int):
    client = counted.test_client()
    counts: list[tuple[int, int, bool]] = []
    for _ in range(5):
        # A dealt deck may end a hand on moves that all post (two busts in a row): another
        # table then, until both kinds of move were measured.
        players = _players(client, seats)
        table_id = _table(client, game, options, players, buy_in)
        counts += _play_counted(counted, config, proxy, monkeypatch, table_id, players, game)
        if (any(not posted for _, _, posted in counts)
                and (game == "cassino" or any(posted for _, _, posted in counts))):
            break
    assert counts, "the hand offered no move"
    plain = [pg for pg, _, posted in counts if not posted]
    posting = [pg for pg, _, posted in counts if posted]
    assert plain, "a hand has moves that post nothing"
    assert posting or game == "cassino", "every Sette e mezzo bet posts its stake"
    assert max(pg for pg, _, _ in counts) <= PG_BUDGET, counts
    assert max(redis for _, redis, _ in counts) <= REDIS_BUDGET, counts


@pytest.mark.parametrize(("game", "options", "buy_in", "seats", "hands"), [
    ("sette-e-mezzo", {"min_bet": 1, "max_bet": 10}, 100, 3, 12),
    ("cassino", {"variant": "classic"}, 30, 2, 3),  # a round is some fifty moves
])
def test_a_move_sends_its_statements_prepared(counted: Flask, config: Any, proxy: PgProxy,
                                              monkeypatch: pytest.MonkeyPatch, game: str,
                                              options: dict[str, Any], buy_in: int, seats: int,
                                              hands: int):
    """PostgreSQL parses and plans a statement sent unprepared at every use. psycopg prepares
    one at its fifth use on a connection; once every statement of a move has been used that
    often on every connection of the pool, a move has none parsed, those sent after a check or
    an append that may fail included (`service.application.postgres_unit_of_work`). A hand's
    last move, whose statements come once a hand, is left out."""
    client = counted.test_client()
    played: list[list[list[bytes]]] = []
    for _ in range(hands):
        players = _players(client, seats)
        table_id = _table(client, game, options, players, buy_in)
        played.append([])
        _play_counted(counted, config, proxy, monkeypatch, table_id, players, game,
                      parsed=played[-1])
    moves = [texts for hand in played for texts in hand[:-1]]
    late = moves[-len(moves) // 3:]
    assert late and not any(late), [t for texts in late for t in texts]


@pytest.mark.parametrize(("game", "options", "buy_in"), [
    ("sette-e-mezzo", {"min_bet": 1, "max_bet": 10}, 100),
    ("cassino", {"variant": "classic"}, 30),
])
def test_a_keyed_move_adds_one_round_trip_for_its_record(counted: Flask, config: Any,
                                                          proxy: PgProxy,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          game: str, options: dict[str, Any],
                                                          buy_in: int):
    """The idempotency record is inserted before the view (its answer says whether to replay)
    and filled with the response in the COMMIT's round trip."""
    client = counted.test_client()
    players = _players(client, 2)
    table_id = _table(client, game, options, players, buy_in)
    prepares = proxy.prepares
    counts = _play_counted(counted, config, proxy, monkeypatch, table_id, players, game,
                           keyed=True)
    assert counts and max(pg for pg, _, _ in counts) <= PG_BUDGET + 1, counts
    assert any(posted for _, _, posted in counts) or game == "cassino", counts
    # The record's INSERT, prepared once on each of the pool's connections at most.
    assert proxy.prepares - prepares <= 4


def test_a_follower_in_the_same_process_renders_the_committed_move_without_reading_the_table(
        counted: Flask, config: Any, monkeypatch: pytest.MonkeyPatch):
    """Cassino's players move in turn: each move brings the other his turn through his stream,
    from the table the move committed, not from a read of the table."""
    monkeypatch.setattr(notify, "FALLBACK_S", 60.0)  # a notice, not a poll, brings the news
    client = counted.test_client()
    players = _players(client, 2)
    table_id = _table(client, "cassino", {"variant": "classic"}, players, 30)
    inbox: queue.Queue[tuple[str, str, dict[str, Any]]] = queue.Queue()
    readers = [follow(client, table_id, p, 6.0, inbox, turns="true", events="false")
               for p in players]
    first = inbox.get(timeout=10)  # the dealt hand: one of them is to move
    assert counted.extensions["banco.notify"].listening.wait(10)
    feed = counted.extensions["banco.feeds"].get(table_id)
    assert feed is not None
    turn, reads, moves = first[2], None, 0
    for _ in range(8):
        mover = next(p for p in players if p.id == first[0])
        r = client.post(f"/v1/tables/{table_id}/actions", json=dict(turn["legal_actions"][0]),
                        headers={**mover.auth, "If-Match": f'"{turn["version"]}"'})
        assert r.status_code == 200, r.json
        if r.json["status"] != "playing":
            break
        first = inbox.get(timeout=10)
        turn = first[2]
        assert first[0] != mover.id and turn["version"] == r.json["version"]
        assert turn["legal_actions"]
        # Counted from the first move's news on: the streams' first look as the listener
        # started (it may miss notices before) reads the table, as it must.
        if reads is None:
            reads = feed.table_reads
        else:
            moves += 1
    assert moves >= 3
    assert feed.table_reads == reads
    for reader in readers:
        reader.join(timeout=10)
