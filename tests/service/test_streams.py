"""Streams that follow a table: woken by PostgreSQL's notices, and bringing each player his turn.

The streams are read through the Flask test client in threads of their own, as a live client
would read them, while the test plays the moves they bring.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from events.catalog import GAME_EVENT_PREFIX
from projections import tables
from service.application import notify
from service.application.postgres_unit_of_work import transaction
from service.application.principal import OPERATOR as OPERATOR_PRINCIPAL
from service.application.principal import Principal
from service.http.app import create_app
from service.http.streams import threaded_body
from service.runtime.slots import Gate
from service.streaming.feeds import Feed
from service.streaming.follower import Follower
from tests.games.test_sevenhalf_properties import concrete
from tests.service.conftest import OPERATOR, Player

SLOW = 60.0  # the streams' fallback in these tests: a notice, not a poll, must bring the news
SPAN = 6.0  # how long each stream of these tests lasts; every test waits for its streams' end


@pytest.fixture(autouse=True)
def only_notices_wake_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notify, "FALLBACK_S", SLOW)


def follow(client: FlaskClient, table_id: str, player: Player, seconds: float,
           inbox: queue.Queue[tuple[str, str, dict[str, Any]]], **query: str) -> threading.Thread:
    """Read `player`'s stream of the table in a thread; put (player, event type, data) in `inbox`."""

    def run() -> None:
        r = client.get(f"/v1/tables/{table_id}/stream", headers=player.auth, buffered=False,
                       query_string={"timeout": seconds, **query})
        assert r.status_code == 200
        pending = b""
        for chunk in r.response:
            pending += chunk
            while b"\n\n" in pending:
                block, pending = pending.split(b"\n\n", 1)
                fields = dict(line.split(": ", 1) for line in block.decode().splitlines()
                              if not line.startswith(":"))
                if "data" in fields:
                    inbox.put((player.id, fields["event"], orjson.loads(fields["data"])))
        r.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def sette_e_mezzo_table(client: FlaskClient, players: list[Player]) -> str:
    """A Sette e mezzo table with `players` seated (50 each), open for its first hand."""
    r = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {}}, headers=OPERATOR)
    table_id = str(r.json["id"])
    for i, p in enumerate(players):
        r = client.post(f"/v1/tables/{table_id}/seats", json={"buy_in": 50, "age": 20 + i},
                        headers=p.auth)
        assert r.status_code == 201, r.json
    return table_id


def cassino_table(client: FlaskClient, players: list[Player]) -> str:
    r = client.post("/v1/tables", json={"game": "cassino", "options": {"variant": "classic"}},
                    headers=OPERATOR)
    assert r.status_code == 201, r.json
    table_id = str(r.json["id"])
    for p in players:
        r = client.post(f"/v1/tables/{table_id}/seats", json={"buy_in": 1}, headers=p.auth)
        assert r.status_code == 201, r.json
    return table_id


def move(client: FlaskClient, table_id: str, players: list[Player]) -> int:
    """The first action offered, taken by whichever of `players` has one; the table's version."""
    mover = next(p for p in players if client.get(f"/v1/tables/{table_id}", headers=p.auth
                                                  ).json["legal_actions"])
    table = client.get(f"/v1/tables/{table_id}", headers=mover.auth).json
    r = client.post(f"/v1/tables/{table_id}/actions", json=table["legal_actions"][0],
                    headers={**mover.auth, "If-Match": f'"{table["version"]}"'})
    assert r.status_code == 200, r.json
    return int(r.json["version"])


def test_a_turns_stream_brings_each_player_his_turn_and_nothing_more(client: FlaskClient,
                                                                      new_player: Any):
    """Seed: ../shared/seeds/003_37d90c873e067319.txt (Cassino: players move in turn). Each
    player's stream sends him the table when it is his move, with his legal actions, and he
    plays from it alone."""
    players = [new_player("Ann", 10), new_player("Bob", 10)]
    table_id = cassino_table(client, players)
    inbox: queue.Queue[tuple[str, str, dict[str, Any]]] = queue.Queue()
    readers = [follow(client, table_id, p, SPAN, inbox, turns="true", events="false")
               for p in players]
    # A table open for its first hand is something to do for every seated player.
    opened = [inbox.get(timeout=10) for _ in players]
    assert {(who, kind, body["status"]) for who, kind, body in opened} == {
        (p.id, "table", "open") for p in players}
    r = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
    assert r.status_code == 201, r.json
    by_id = {p.id: p for p in players}
    moves = 0
    version = int(r.json["version"])
    while moves < 12:
        who, kind, table = inbox.get(timeout=10)  # far sooner than the streams' SLOW fallback
        assert kind == "table"
        if table["version"] < version:
            continue  # sent before the move this test made since; the next one follows
        assert table["status"] == "playing", table
        assert table["you"] == table["turn"]["seat"], "only the player to move is told"
        assert table["legal_actions"], table
        assert table["seats"][table["you"]]["player_id"] == who
        r = client.post(f"/v1/tables/{table_id}/actions", json=table["legal_actions"][0],
                        headers={**by_id[who].auth, "If-Match": f'"{table["version"]}"'})
        assert r.status_code == 200, r.json
        version = int(r.json["version"])
        moves += 1
        if r.json["status"] != "playing":
            break
    assert moves >= 4
    for thread in readers:
        thread.join(SPAN + 5)
        assert not thread.is_alive()


def turn_followers(app: Flask, feed: Feed, players: list[Player]
                   ) -> tuple[tables.TableRow, list[Principal], list[Follower]]:
    """The open table, and a follower of its turns for each player made at its version, as the
    players' streams' views make them."""
    pool, store = app.extensions["banco.pool"], app.extensions["banco.store"]
    with pool.connection() as conn:
        before = tables.load(conn, feed.table_id)
    assert before is not None and before.status == "open"
    whom = [Principal("player", p.id) for p in players]
    return before, whom, [Follower(feed, store, pool, who, before.version, before.version,
                                   {"events": False, "turns": True}) for who in whom]


def test_a_change_committed_before_a_stream_subscribes_is_its_first_news(
        client: FlaskClient, new_player: Any, app: Flask):
    """A stream's view reads the table, and its thread subscribes to the table's notices a
    moment later: a deal committed in between sends no notice the stream hears. Its first look
    reads the table afresh, so the first player to act is told of his turn at once, not after
    the fallback's poll (a minute here), even when the table's feed still holds the table as
    it was when the view read it."""
    players = [new_player(f"F{i}", 100) for i in range(3)]
    table_id = sette_e_mezzo_table(client, players)
    shared = app.extensions["banco.feeds"]
    pool = app.extensions["banco.pool"]
    feed = shared.join(table_id)
    try:
        # As each stream's view did: the table read, its follower made at that version...
        before, whom, followers = turn_followers(app, feed, players)
        _, shown = feed.turn(pool, whom[0], before.version, -1)  # ...the feed holding it too
        assert shown is not None and shown.body["status"] == "open"
        # ...and the deal committed, its notice heard and gone, before their threads subscribed.
        notices = app.extensions["banco.notify"]
        probe = notices.subscribe(table_id)
        try:
            assert notices.listening.wait(10)
            probe.wait(0)  # what it was told as the listener came up
            r = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
            assert r.status_code == 201, r.json
            dealt = int(r.json["version"])
            changes = probe.wait(10)
            assert changes is not None and dealt in [c.version for c in changes]
        finally:
            notices.unsubscribe(probe)
        told = {}
        for who, follower in zip(whom, followers, strict=True):
            body = threaded_body(follower, notices, shared, 0.5)
            chunks = b"".join(body)
            tables_sent = [orjson.loads(line[6:]) for line in chunks.split(b"\n")
                           if line.startswith(b"data: ")]
            told[who.subject] = [(t["version"], t["status"]) for t in tables_sent]
        # The first to act is told of his turn, the others of nothing: none is shown the table
        # as it was before the deal.
        assert sorted(told.values()) == [[], [], [(dealt, "playing")]], told
    finally:
        shared.leave(feed)


def test_a_change_committed_while_a_stream_first_looks_is_news_to_it(
        client: FlaskClient, new_player: Any, app: Flask):
    """A stream of turns is woken only by changes that may be its subscriber's turn, which takes
    his seat, and his seat is known once its first look has read the table. A deal that commits
    after that read, and whose notice comes before the look is done, must still wake him: the
    first player to act is told of his turn at once, not after the fallback's poll (a minute
    here). Every stream's first look reads the table before the deal, and returns only once the
    deal's notice has been through that stream's filter."""
    players = [new_player(f"W{i}", 100) for i in range(3)]
    table_id = sette_e_mezzo_table(client, players)
    shared = app.extensions["banco.feeds"]
    notices = app.extensions["banco.notify"]
    feed = shared.join(table_id)
    probe = notices.subscribe(table_id)  # the listener up before the deal's notice is sent
    try:
        assert notices.listening.wait(10)
        before, whom, followers = turn_followers(app, feed, players)
        filtered = {who.key: threading.Event() for who in whom}
        for who, follower in zip(whom, followers, strict=True):
            def wants(change: notify.Change, real: Callable[[notify.Change], bool] = follower.wants,
                      seen: threading.Event = filtered[who.key]) -> bool:
                try:
                    return real(change)
                finally:
                    if change.version > before.version:
                        seen.set()
            follower.wants = wants  # type: ignore[method-assign]
        dealt: list[int] = []

        def deal() -> None:
            r = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
            assert r.status_code == 201, r.json
            dealt.append(int(r.json["version"]))

        read = threading.Barrier(len(whom), action=deal)  # the last to have read deals
        first = threading.local()
        real_turn = feed.turn

        def turn(pool: Any, who: Principal, at_least: int | None, shown: int) -> Any:
            found = real_turn(pool, who, at_least, shown)
            if not getattr(first, "looked", False):
                first.looked = True
                read.wait(10)
                assert filtered[who.key].wait(10)
            return found

        feed.turn = turn  # type: ignore[method-assign]
        told: dict[str, list[tuple[int, str]]] = {}

        def stream(who: Principal, follower: Follower) -> None:
            chunks = b"".join(threaded_body(follower, notices, shared, 3.0))
            told[who.subject] = [(t["version"], t["status"]) for t in (
                orjson.loads(line[6:]) for line in chunks.split(b"\n") if line.startswith(b"data: "))]

        threads = [threading.Thread(target=stream, args=pair) for pair in zip(whom, followers,
                                                                              strict=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        # Each first look showed the open table; then the first to act, and only he, is told.
        opened = (before.version, "open")
        assert sorted(told.values()) == [[opened], [opened], [opened, (dealt[0], "playing")]], told
    finally:
        notices.unsubscribe(probe)
        shared.leave(feed)


def test_a_players_own_moves_are_not_echoed_to_him(client: FlaskClient, new_player: Any,
                                                   app: Flask):
    """Seed: ../shared/seeds/001_6b5bbd2473d5c47f.txt (Sette e mezzo: a player draws card after
    card until he stands). After a draw the same player moves again: his response shows him the
    table, and his stream stays quiet; the next player's stream tells him once it is his turn.
    Hands are dealt (and settled here) until some player has moved twice in a row."""
    from service.application import settling

    players = [new_player(f"S{i}", 100) for i in range(3)]
    table_id = sette_e_mezzo_table(client, players)
    inbox: queue.Queue[tuple[str, str, dict[str, Any]]] = queue.Queue()
    readers = [follow(client, table_id, p, SPAN, inbox, turns="true", events="false")
               for p in players]
    by_id = {p.id: p for p in players}
    rng = random.Random(3)
    made_by: dict[int, str] = {}  # the versions each player's own moves made
    told: list[tuple[str, int]] = []  # every (player, version) a stream sent
    again = 0
    for _ in range(8):
        r = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
        assert r.status_code == 201, r.json
        version = int(r.json["version"])
        table: dict[str, Any] | None = None
        while True:
            if table is None:
                who, _, table = inbox.get(timeout=10)
                told.append((who, table["version"]))
                if table["version"] < version:
                    table = None
                    continue
            assert table["status"] == "playing", table
            offered = table["legal_actions"]
            action = next((a for a in offered if a["type"] == "hit"), offered[0])
            r = client.post(f"/v1/tables/{table_id}/actions", json=concrete(action, rng),
                            headers={**by_id[who].auth, "If-Match": f'"{table["version"]}"'})
            assert r.status_code == 200, r.json
            version = int(r.json["version"])
            made_by[version] = who
            if r.json["status"] != "playing":
                break
            # The same player moves again from his own response; else a stream brings the next.
            table = r.json if r.json["legal_actions"] else None
            again += table is not None
        if again:
            break
        with transaction(app.extensions["banco.pool"], app.extensions["banco.store"]) as uow:
            assert settling.settle(uow, table_id, r.json["hand"]["id"], {"actor": "test"})
    for thread in readers:
        thread.join(SPAN + 5)
    told += [(who, body["version"]) for who, _, body in list(inbox.queue)]
    assert again, "some player moved twice in a row"
    assert not [(who, v) for who, v in told if made_by.get(v) == who]


def test_events_still_flow_and_a_spectator_gets_no_table(client: FlaskClient, new_player: Any,
                                                           app: Flask):
    players = [new_player("Cy", 10), new_player("Di", 10)]
    table_id = cassino_table(client, players)
    r = client.post("/v1/auditors", json={"name": "Eve"}, headers=OPERATOR)
    assert r.status_code == 201, r.json
    auditor = Player("auditor", r.json["token"])
    inbox: queue.Queue[tuple[str, str, dict[str, Any]]] = queue.Queue()
    reader = follow(client, table_id, auditor, SPAN, inbox, turns="true")
    client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
    seen = []
    while not any(kind == "HandBegan" for _, kind, _ in seen):
        seen.append(inbox.get(timeout=10))
    reader.join(SPAN + 5)
    seen += list(inbox.queue)
    assert all(kind != "table" for _, kind, _ in seen)


def test_a_notice_is_sent_when_the_change_commits_and_never_when_it_rolls_back(app: Flask):
    listener = notify.Listener(app.config["BANCO"].database_url)
    row = tables.TableRow(table_id="tb_notice_test", game="cassino", options={}, status="open",
                          version=1)
    waiter = listener.subscribe(row.table_id)
    try:
        assert listener.listening.wait(10)
        # The listener's "look anyway" as it started, which may come just after `listening`.
        assert waiter.wait(10) is None
        pool = app.extensions["banco.pool"]
        with pool.connection() as conn:
            with conn.transaction(force_rollback=True):
                tables.save(conn, row)
            # Nothing heard while the listener listened throughout: nothing changed.
            assert waiter.wait(1.0) == []
            row.version, row.status, row.turn = 2, "playing", {"seat": 1}
            with conn.transaction():
                tables.save(conn, row, "player:pl_someone")
        [change] = waiter.wait(10) or []
        # Named by its transaction, so that its writer knows the notice for its own commit.
        assert change.txid is not None
        assert replace(change, txid=None) == notify.Change("tb_notice_test", 2, 1, "playing",
                                                           "player:pl_someone")
    finally:
        listener.unsubscribe(waiter)
        with app.extensions["banco.pool"].connection() as conn:
            conn.execute("DELETE FROM tables WHERE table_id = %s", (row.table_id,))


class _HeldAtIdle(notify.Listener):
    """A listener whose thread, once it has found nobody waiting, stops there until let go."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.idle = threading.Event()
        self.go_on = threading.Event()

    def _idle(self) -> bool:
        idle = super()._idle()
        if idle and not self.idle.is_set():
            self.idle.set()
            assert self.go_on.wait(15)
        return idle


def test_a_listener_ending_as_another_starts_leaves_the_new_one_listening(
        app: Flask, monkeypatch: pytest.MonkeyPatch):
    """The last stream leaves and the listener's thread ends; a stream comes at that moment and
    starts another. The ending thread cleared `listening` after the new one had set it: every
    stream of the process then took the listener for deaf and looked for news on its own every
    second, until the next reconnection."""
    monkeypatch.setattr(notify, "FALLBACK_S", 0.2)  # how soon the thread looks whether it idles
    listener = _HeldAtIdle(app.config["BANCO"].database_url)
    first = listener.subscribe("tb_idle_race")
    assert listener.listening.wait(10)
    ending = listener._thread
    assert ending is not None
    listener.unsubscribe(first)
    assert listener.idle.wait(10)  # the thread found nobody waiting, and lets go
    second = listener.subscribe("tb_idle_race")
    try:
        deadline = time.monotonic() + 10
        while listener.epoch < 2:  # the new thread's LISTEN is up
            assert time.monotonic() < deadline, "the new listener never came up"
            time.sleep(0.01)
        listener.go_on.set()
        ending.join(10)
        assert not ending.is_alive()
        assert listener.listening.is_set()
    finally:
        listener.go_on.set()
        started = listener._thread
        listener.unsubscribe(second)
        if started is not None:  # it ends at its next look, holding no connection after
            started.join(10)


def test_a_waiter_is_woken_only_by_the_changes_it_wants(app: Flask):
    """A stream of turns without events asks only for the changes that may be its turn: at a
    busy table, the notices of other players' turns do not wake it, yet they show that notices
    flow, so the stream need not look for itself when its wait runs out."""
    listener = notify.Listener(app.config["BANCO"].database_url)
    row = tables.TableRow(table_id="tb_wants_test", game="cassino", options={}, status="playing",
                          version=1, turn={"seat": 0})
    waiter = listener.subscribe(row.table_id, lambda change: change.seat == 1)
    try:
        assert listener.listening.wait(10)
        # The listener's "look anyway" as it started, which may come just after `listening`.
        assert waiter.wait(10) is None
        pool = app.extensions["banco.pool"]
        with pool.connection() as conn:
            with conn.transaction():
                tables.save(conn, row, "player:pl_zero")
            assert waiter.wait(1.0) == [], "heard, but not woken: its wait ran out"
            row.version, row.turn = 2, {"seat": 1}
            with conn.transaction():
                tables.save(conn, row, "player:pl_one")
        assert [replace(c, txid=None) for c in waiter.wait(10) or []] == [
            notify.Change("tb_wants_test", 2, 1, "playing", "player:pl_one")]
    finally:
        listener.unsubscribe(waiter)
        with app.extensions["banco.pool"].connection() as conn:
            conn.execute("DELETE FROM tables WHERE table_id = %s", (row.table_id,))


def test_every_follower_hears_that_the_table_ended(client: FlaskClient, new_player: Any, app: Flask):
    """Ending a table cashes its seats out; its former players still get its last state."""
    from service.application import handlers, settling

    players = [new_player("Fa", 10), new_player("Gu", 10)]
    table_id = cassino_table(client, players)
    inbox: queue.Queue[tuple[str, str, dict[str, Any]]] = queue.Queue()
    readers = [follow(client, table_id, p, SPAN, inbox, turns="true", events="false")
               for p in players]
    assert {inbox.get(timeout=10)[2]["status"] for _ in players} == {"open"}
    store = app.extensions["banco.store"]
    with transaction(app.extensions["banco.pool"], store) as uow:
        settling.end(uow, handlers.load(uow, table_id), "closed", {"actor": "test"})
    ended = [inbox.get(timeout=10) for _ in players]
    assert {(who, body["status"]) for who, _, body in ended} == {(p.id, "over") for p in players}
    assert all(body["seats"] == [] and body["legal_actions"] == [] for _, _, body in ended)
    for thread in readers:
        thread.join(SPAN + 5)


def _events(client: FlaskClient, table_id: str, **query: Any) -> dict[str, Any]:
    r = client.get(f"/v1/tables/{table_id}/events", query_string=query, headers=OPERATOR)
    assert r.status_code == 200, r.json
    return dict(r.json)


def test_a_long_poll_returns_the_events_as_soon_as_they_commit(app: Flask, client: FlaskClient,
                                                             new_player: Any):
    """`GET /events?wait=` answers when the table's next events commit, woken by the table's
    notice (the fallback poll is a minute here, longer than the wait)."""
    table_id = cassino_table(client, [new_player("Ann", 10)])
    version = _events(client, table_id)["version"]
    late = new_player("Bob", 10)

    def join_soon() -> None:
        threading.Event().wait(0.5)
        r = app.test_client().post(f"/v1/tables/{table_id}/seats", json={"buy_in": 1},
                                   headers=late.auth)
        assert r.status_code == 201, r.json

    joiner = threading.Thread(target=join_soon)
    joiner.start()
    page = _events(client, table_id, after=version, wait=20)
    joiner.join()
    assert [e["type"] for e in page["items"]][:1] == ["PlayerSeated"]
    assert page["items"][0]["data"]["player_id"] == late.id and page["version"] > version
    # An answer at the 20 s deadline would have had no events: the notice brought them.


def test_long_polls_hold_no_connection_while_they_wait(config: Any, new_player: Any):
    """More clients waiting on a quiet table than the API has connections: the others' requests
    are served meanwhile, and each wait ends with an empty page at its deadline."""
    small = type(config)(**{**config.__dict__, "pool_size": 2})
    app = create_app(small)
    try:
        client = app.test_client()
        table_id = cassino_table(client, [new_player("Cy", 10)])
        version = _events(client, table_id)["version"]
        pages: queue.Queue[dict[str, Any]] = queue.Queue()
        polls = [threading.Thread(target=lambda: pages.put(
            _events(app.test_client(), table_id, after=version, wait=4))) for _ in range(4)]
        for poll in polls:
            poll.start()
        threading.Event().wait(1.0)  # every poll has read once and is waiting
        r = client.get(f"/v1/tables/{table_id}", headers=OPERATOR)
        assert r.status_code == 200 and all(poll.is_alive() for poll in polls)
        for poll in polls:
            poll.join()
        answers = [pages.get_nowait() for _ in polls]
        assert answers == [{"items": [], "version": version, "next_after": version,
                            "more": False}] * len(polls)
    finally:
        app.extensions["banco.pool"].close()


def _sse_ids(client: FlaskClient, table_id: str, player: Player, headers: dict[str, str],
             **query: Any) -> list[tuple[int, str]]:
    """(id, event type) of every event a short stream sends."""
    r = client.get(f"/v1/tables/{table_id}/stream", headers={**player.auth, **headers},
                   query_string={"timeout": 0.5, **query})
    assert r.status_code == 200
    sent = []
    for block in r.get_data(as_text=True).split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if "id" in fields:
            sent.append((int(fields["id"]), fields["event"]))
    return sent


def test_a_stream_resumes_after_its_last_event_id(client: FlaskClient, new_player: Any):
    """A reconnecting client sends `Last-Event-ID`: the stream goes on from the next event,
    without repeating or skipping any; `after` does the same from the query."""
    players = [new_player("Fay", 10), new_player("Gus", 10)]
    table_id = cassino_table(client, players)
    assert client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR).status_code == 201
    everything = _sse_ids(client, table_id, players[0], {})
    versions = [v for v, _ in everything]
    assert versions == list(range(1, len(versions) + 1)) and len(versions) > 4
    middle = versions[len(versions) // 2]
    resumed = _sse_ids(client, table_id, players[0], {"Last-Event-ID": str(middle)})
    assert resumed == [e for e in everything if e[0] > middle]
    assert _sse_ids(client, table_id, players[0], {}, after=middle) == resumed
    # An id the stream never sent starts it from the beginning: one past the table's version
    # would wait for events that may never come, and '²' (a digit to `str.isdigit`) or 5,000
    # digits (past `int`'s limit) were a 500.
    for never_sent in ("not-an-id", str(versions[-1] + 5), "\u00b2", "9" * 5000):
        assert _sse_ids(client, table_id, players[0], {"Last-Event-ID": never_sent}) == everything


def test_a_streams_last_event_id_wins_over_its_after(client: FlaskClient, new_player: Any):
    """An EventSource reconnects to the URL it opened, `after=` and all, with the id it last
    received: the stream goes on after that id, not after `after` again, which sent the same
    events at every reconnection. An id the stream never sent leaves `after` to decide."""
    players = [new_player("Ivo", 10), new_player("Jem", 10)]
    table_id = cassino_table(client, players)
    assert client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR).status_code == 201
    everything = _sse_ids(client, table_id, players[0], {})
    versions = [v for v, _ in everything]
    early, later = versions[1], versions[len(versions) // 2]
    assert early < later < versions[-1]
    assert _sse_ids(client, table_id, players[0], {"Last-Event-ID": str(later)},
                    after=early) == [e for e in everything if e[0] > later]
    for never_sent in ("not-an-id", str(versions[-1] + 5)):
        assert _sse_ids(client, table_id, players[0], {"Last-Event-ID": never_sent},
                        after=early) == [e for e in everything if e[0] > early]


def test_streams_and_long_polls_leave_a_quarter_of_the_threads_to_other_requests(
        config: Any, new_player: Any):
    """Each open stream or waiting long poll holds a server thread: with 4 threads, 3 may wait
    and the next is refused at once (503 waiters_busy, Retry-After), while moves and reads are
    still served; a stream that ends gives its thread back."""
    app = create_app(type(config)(**{**config.__dict__, "threads": 4}))
    try:
        client = app.test_client()
        ann = new_player("Ann", 10)
        table_id = cassino_table(client, [ann])
        stream = f"/v1/tables/{table_id}/stream"
        held = [client.get(stream, headers=ann.auth, query_string={"timeout": 30}, buffered=False)
                for _ in range(3)]
        assert [r.status_code for r in held] == [200, 200, 200]
        version = _events(client, table_id)["version"]  # no wait: served
        for refused in (client.get(stream, headers=ann.auth),
                        client.get(f"/v1/tables/{table_id}/events", headers=OPERATOR,
                                   query_string={"after": version, "wait": 5})):
            assert refused.status_code == 503 and refused.json["code"] == "waiters_busy"
            assert refused.headers["Retry-After"] and refused.mimetype == "application/problem+json"
        assert client.get(f"/v1/tables/{table_id}", headers=ann.auth).status_code == 200
        held.pop().close()
        page = _events(client, table_id, after=version, wait=0.2)
        assert page == {"items": [], "version": version, "next_after": version, "more": False}
    finally:
        for r in held:
            r.close()
        app.extensions["banco.pool"].close()


def test_an_after_past_the_tables_version_is_refused(client: FlaskClient, new_player: Any):
    """No response gives a version the table has not reached: such an `after` (another table's,
    say) was answered with an empty page, or an empty wait, until the table caught up, and the
    page's `version` echoed it back. It is a 422 naming the table's version."""
    ann = new_player("Ann", 10)
    table_id = cassino_table(client, [ann])
    version = _events(client, table_id)["version"]
    assert _events(client, table_id, after=version)["version"] == version
    for path in ("events", "stream"):
        r = client.get(f"/v1/tables/{table_id}/{path}", query_string={"after": version + 1},
                       headers=ann.auth)
        assert r.status_code == 422 and r.json["code"] == "after_beyond_version", r.json
        assert r.json["version"] == version


def test_paging_by_next_after_reads_every_event_once_and_version_is_the_tables(
        client: FlaskClient, new_player: Any):
    """A page cut by `limit` says the table's version all the same, and that more events follow:
    its `version` was the last item's, and a client paging until it reached it stopped early."""
    players = [new_player("Ann", 10), new_player("Bob", 10)]
    table_id = cassino_table(client, players)
    assert client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR).status_code == 201
    table = client.get(f"/v1/tables/{table_id}", headers=OPERATOR).json["version"]
    assert table > 6
    seen: list[int] = []
    after = 0
    while True:
        page = _events(client, table_id, after=after, limit=3)
        assert page["version"] == table
        seen += [e["version"] for e in page["items"]]
        assert page["next_after"] == (seen[-1] if page["items"] else after)
        assert page["more"] is (page["next_after"] < table)
        if not page["more"]:
            break
        after = page["next_after"]
    assert seen == list(range(1, table + 1))
    # The last page, asked again with a wait, answers the same at its deadline.
    assert _events(client, table_id, after=table, wait=0.2) == {
        "items": [], "version": table, "more": False, "next_after": table}


def test_a_long_poll_cut_by_its_limit_says_the_tables_version_and_that_more_follow(
        app: Flask, client: FlaskClient, new_player: Any):
    """The events a long poll wakes for may be more than its `limit`: its page says the table's
    version and `more`, as a page served at once does."""
    players = [new_player("Ann", 10), new_player("Bob", 10)]
    table_id = cassino_table(client, players)
    before = _events(client, table_id)["version"]

    def deal_soon() -> None:
        threading.Event().wait(0.5)
        r = app.test_client().post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
        assert r.status_code == 201, r.json

    dealer = threading.Thread(target=deal_soon)
    dealer.start()
    page = _events(client, table_id, after=before, wait=20, limit=1)
    dealer.join()
    table = client.get(f"/v1/tables/{table_id}", headers=OPERATOR).json["version"]
    assert table > before + 1 and [e["version"] for e in page["items"]] == [before + 1]
    assert page["version"] == table and page["more"] is True and page["next_after"] == before + 1


def test_a_move_is_read_once_and_each_view_rendered_once_however_many_follow(
        client: FlaskClient, new_player: Any, app: Flask):
    """Forty streams follow a table: its two players (each from several streams), auditors,
    the operator and players without a seat. A move's events are read from PostgreSQL once in
    the process and redacted once per view (each seat's player, auditors, everyone else); yet
    every follower receives exactly what his own page of the table's events shows him."""
    players = [new_player("Ann", 10), new_player("Bob", 10)]
    table_id = cassino_table(client, players)
    r = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
    assert r.status_code == 201, r.json
    auditor = Player("auditor", str(client.post("/v1/auditors", json={"name": "a"},
                                                headers=OPERATOR).json["token"]))
    operator = Player("operator", OPERATOR["Authorization"].split(" ", 1)[1])
    others = [new_player(f"Sp{i}", 0) for i in range(2)]
    followers = [p for p in (*players, auditor, operator, *others) for _ in range(8)][:40]
    seen: dict[int, list[dict[str, Any]]] = {i: [] for i in range(len(followers))}
    readers = []
    for p in followers:
        mine: queue.Queue[tuple[str, str, dict[str, Any]]] = queue.Queue()
        readers.append((follow(client, table_id, p, SPAN, mine), mine))

    def collect(version: int) -> None:
        for i, (_, mine) in enumerate(readers):
            while not seen[i] or seen[i][-1]["version"] < version:
                seen[i].append(mine.get(timeout=10)[2])

    version = int(r.json["version"])
    collect(version)
    feed = app.extensions["banco.feeds"].get(table_id)
    reads, renders = feed.reads, feed.renders
    moved = move(client, table_id, players)
    collect(moved)
    new_events = moved - version
    assert feed.reads - reads == 1
    # seat 0, seat 1, auditors, everyone else: at most four views of each new event
    assert 0 < feed.renders - renders <= 4 * new_events < len(followers)
    for i, p in enumerate(followers):
        page = client.get(f"/v1/tables/{table_id}/events", headers=p.auth,
                          query_string={"limit": 1000}).json["items"]
        assert seen[i] == [e for e in page if e["version"] <= moved], p.id
    for thread, _ in readers:
        thread.join(SPAN + 5)


def test_the_feeds_gate_lets_so_many_through_at_once_and_stops_nobody_for_long():
    """A change's followers pass the process's gate a few at a time; one whose client stopped
    reading may keep his place, and then the others wait their patience out and go on."""
    gate = Gate(2, patience=60)
    first, second = gate.enter(), gate.enter()
    third: list[Callable[[], None]] = []
    waiting = threading.Thread(target=lambda: third.append(gate.enter()))
    waiting.start()
    waiting.join(0.3)
    assert waiting.is_alive()  # both places are held
    first()
    first()  # leaving twice gives back one place
    waiting.join(10)
    assert not waiting.is_alive() and len(third) == 1
    stuck = Gate(1, patience=0.01)
    held = stuck.enter()
    went_on = stuck.enter()  # not given a place: waited its patience and went on
    went_on()
    held()
    second(), third[0]()
    assert stuck._places.qsize() == 1 and gate._places.qsize() == 2


def test_a_table_newer_than_a_followers_notices_comes_after_its_events(
        client: FlaskClient, new_player: Any, app: Flask):
    """A follower whose notices lag the table its feed holds (another follower's notice, or a
    read, brought a later one) is sent the events up to that table before the table: no id goes
    out before the events it follows, so a client resuming after its last id misses none."""
    players = [new_player("Ann", 10), new_player("Bob", 10)]
    table_id = cassino_table(client, players)
    store, pool = app.extensions["banco.store"], app.extensions["banco.pool"]
    dealt = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR).json["version"]
    first = move(client, table_id, players)
    feed = Feed(table_id)
    # The feed has read the events up to the first move (for another of its followers).
    assert [e.body["version"] for e in feed.events(pool, store, OPERATOR_PRINCIPAL, dealt,
                                                   first)] == [*range(dealt + 1, first + 1)]
    latest = move(client, table_id, players)
    mover = next(p for p in players
                 if client.get(f"/v1/tables/{table_id}", headers=p.auth).json["legal_actions"])
    # Told of the first move only; the feed reads the table as it is now, at the second.
    follower = Follower(feed, store, pool, Principal("player", mover.id), dealt, first,
                        {"events": True, "turns": True})
    sent = [orjson.loads(line[len(b"data: "):]) for chunk in follower.news()
            for line in chunk.split(b"\n") if line.startswith(b"data: ")]
    versions = [e["version"] for e in sent]
    assert versions == [*range(dealt + 1, latest + 1), latest], versions
    assert sent[-1]["legal_actions"]  # the table, at his turn, after every event before it


def test_a_feed_keeps_the_line_ups_of_the_hands_whose_events_it_keeps(
        client: FlaskClient, new_player: Any, app: Flask, worker: Any,
        monkeypatch: pytest.MonkeyPatch):
    """A table followed for days plays thousands of hands: its feed kept every hand's line-up
    for as long as the table had followers, and the streamer's garbage collections walked them
    all, each a pause for every follower. It keeps the line-ups of the hands whose events it
    keeps, and still shows each player what he may see of them."""
    from service.streaming import feeds
    from tests.service.play import Session

    players = [new_player("Ann", 1000), new_player("Bob", 1000)]
    session = Session(client, "sette-e-mezzo", players)
    session.open({}, 1000)
    played: list[str] = []
    # Three hands, or two if the table ended (a seat that cannot cover its stake leaves).
    while len(played) < 3 and client.get(f"/v1/tables/{session.table_id}",
                                         headers=OPERATOR).json["status"] == "open":
        played.append(session.deal())
        session.play_hand()
        session.wait_settled(played[-1])
    assert len(played) >= 2
    store, pool = app.extensions["banco.store"], app.extensions["banco.pool"]
    stored = store.read_stream(f"table-{session.table_id}", 0)
    last = max(e.version for e in stored if e.data.get("hand") == played[-1])
    # One read brings the events up to the last hand's last, and the feed keeps the last 6.
    monkeypatch.setattr(feeds, "BATCH", last)
    monkeypatch.setattr(feeds, "KEEP", 12)
    feed = Feed(session.table_id)
    ann = Principal("player", players[0].id)
    shown = feed.events(pool, store, ann, 0, None)
    assert shown is not None and [s.body["version"] for s in shown] == [*range(last - 5, last + 1)]
    kept = {e.data["hand"] for e in feed._events if e.type.startswith(GAME_EVENT_PREFIX)}
    assert kept == {played[-1]} and set(feed._lineups) == kept
    # As the table's events show them to her, her own cards shown and Bob's hidden.
    r = client.get(f"/v1/tables/{session.table_id}/events", headers=players[0].auth,
                   query_string={"after": last - 6, "limit": 6})
    assert r.status_code == 200, r.json
    assert [s.body for s in shown] == r.json["items"]


def test_a_table_older_than_the_events_sent_is_not_sent_after_them(
        client: FlaskClient, new_player: Any, app: Flask):
    """The feed kept the table at a follower's turn, then read on past it for another follower:
    the follower, told of that turn only, was sent the later events and then the kept table,
    older than them. Its id went back, so a client resuming after it was sent those events
    again, and a bot acting on it met a 412."""
    players = [new_player("Ann", 10), new_player("Bob", 10)]
    table_id = cassino_table(client, players)
    store, pool = app.extensions["banco.store"], app.extensions["banco.pool"]
    dealt = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR).json["version"]
    first = move(client, table_id, players)
    mover = next(p for p in players
                 if client.get(f"/v1/tables/{table_id}", headers=p.auth).json["legal_actions"])
    feed = Feed(table_id)
    feed.events(pool, store, OPERATOR_PRINCIPAL, dealt, first)
    _, kept = feed.turn(pool, Principal("player", mover.id), first, -1)
    assert kept is not None and kept.body["version"] == first  # his turn, kept
    latest = move(client, table_id, players)  # he plays it
    assert len(feed.events(pool, store, OPERATOR_PRINCIPAL, first, None) or []) == latest - first
    follower = Follower(feed, store, pool, Principal("player", mover.id), dealt, first,
                        {"events": True, "turns": True})
    sent = [orjson.loads(line[len(b"data: "):]) for chunk in follower.news()
            for line in chunk.split(b"\n") if line.startswith(b"data: ")]
    versions = [e["version"] for e in sent]
    assert versions == [*range(dealt + 1, latest + 1)], versions  # not his turn any more
