"""The log's feed: every event once, in the store's gap-free order, as the caller may see it."""

from __future__ import annotations

import random
import threading
import time
import uuid
from typing import Any, cast

import orjson
import psycopg
from flask.testing import FlaskClient

from events.catalog import GAME_EVENT_PREFIX
from events.game_records import engine_event
from events.model import NewEvent, StoredEvent
from games.contract import SPECTATOR, redact
from service.application import handlers, notify
from service.http import sse
from service.streaming.log_follower import BATCH
from tests.service.conftest import OPERATOR, bearer
from tests.service.test_streams import cassino_table


def _marker(app: Any) -> StoredEvent:
    """A fresh event to read the feed after."""
    [event] = app.extensions["banco.store"].append(f"marker-{uuid.uuid4().hex}", [_erased()], 0)
    return event


def _erased(n: int = 0) -> NewEvent:
    return NewEvent("PlayerErased", {"player_id": f"pl_{n}", "actor": "test"})


def _page(client: FlaskClient, after: int | str, **query: Any) -> dict[str, Any]:
    r = client.get("/v1/feed", query_string={"after": after, **query}, headers=OPERATOR)
    assert r.status_code == 200, r.json
    return dict(r.json)


def _read_until(client: FlaskClient, after: int, wanted: dict[str, int],
                served: list[dict[str, Any]], **query: Any) -> int:
    """Page the feed from `after`, adding what it serves to `served`, until it served as many
    events of each stream as `wanted` says (a transaction open anywhere on the server holds the
    watermark back for a while); the `after` to go on from."""
    deadline = time.monotonic() + 30

    def missing() -> bool:
        return any(sum(e["stream"] == s for e in served) < n for s, n in wanted.items())

    while missing():
        assert time.monotonic() < deadline, "the feed did not catch up"
        page = _page(client, after, **query)
        served += page["items"]
        if not page["items"]:
            time.sleep(0.02)
        after = page["next_after"]
    return after


def test_an_event_that_commits_late_is_never_served_after_a_later_one(app, client: FlaskClient):
    """Seed: the feed's gap-free order. A transaction that began writing first and commits last
    holds back the events of one that committed meanwhile; once it commits, its events come
    first, though one of them drew a later position: none is skipped, none repeated."""
    store = app.extensions["banco.store"]
    start = _marker(app).position
    first, second = f"slow-{uuid.uuid4().hex}", f"quick-{uuid.uuid4().hex}"
    url = app.config["BANCO"].database_url
    with psycopg.connect(url) as slow, psycopg.connect(url, autocommit=True) as quick:
        [a1] = store.append(first, [_erased(1)], 0, conn=slow)
        [b1] = store.append(second, [_erased(2)], 0, conn=quick)  # committed at once
        served: list[dict[str, Any]] = []
        after = start
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:  # b1 has committed, and still does not come
            page = _page(client, after)
            served += page["items"]
            after = page["next_after"]
        assert second not in {e["stream"] for e in served}
        [a2] = store.append(first, [_erased(3)], 1, conn=slow)
        slow.commit()
    _read_until(client, after, {first: 2, second: 1}, served)
    ours = [e["position"] for e in served if e["stream"] in (first, second)]
    assert b1.position > a1.position and a2.position > b1.position
    assert ours == [a1.position, a2.position, b1.position]


def test_concurrent_writers_committing_out_of_order_are_read_once_each_in_a_stable_order(
        app, client: FlaskClient):
    """Writers hold their transactions open for random times while a reader pages the feed
    with a small limit: it reads every event once, in the order a reading from scratch gives."""
    store = app.extensions["banco.store"]
    start = _marker(app).position
    url = app.config["BANCO"].database_url
    streams = [f"w{i}-{uuid.uuid4().hex}" for i in range(6)]

    def write(stream: str, seed: int) -> None:
        rng = random.Random(seed)
        with psycopg.connect(url) as conn:
            for version in range(3):
                store.append(stream, [_erased(version)], version, conn=conn)
                time.sleep(rng.uniform(0, 0.05))
            conn.commit()

    writers = [threading.Thread(target=write, args=(s, i)) for i, s in enumerate(streams)]
    for w in writers:
        w.start()
    served: list[dict[str, Any]] = []
    after = start
    while any(w.is_alive() for w in writers):
        page = _page(client, after, limit=2)
        served += page["items"]
        after = page["next_after"]
    for w in writers:
        w.join()
    _read_until(client, after, dict.fromkeys(streams, 3), served, limit=2)
    ours = [(e["stream"], e["version"]) for e in served if e["stream"] in streams]
    again: list[dict[str, Any]] = []
    _read_until(client, start, dict.fromkeys(streams, 3), again, limit=1000)
    assert ours == [(e["stream"], e["version"]) for e in again if e["stream"] in streams]
    assert sorted(ours) == sorted((s, v) for s in streams for v in (1, 2, 3))
    positions = [e["position"] for e in served]
    assert len(positions) == len(set(positions))


def test_the_operator_reads_the_feed_as_a_spectator_and_auditors_read_everything(
        app, client: FlaskClient, new_player: Any):
    start = _marker(app).position
    players = [new_player("Ivy", 10), new_player("Jon", 10)]
    table_id = cassino_table(client, players)
    assert client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR).status_code == 201
    auditor = bearer(client.post("/v1/auditors", json={"name": "Eve"}, headers=OPERATOR).json["token"])
    stream = handlers.stream(table_id)
    stored = {e.position: e for e in app.extensions["banco.store"].read_stream(stream)}
    seen: list[dict[str, Any]] = []
    _read_until(client, start, {stream: len(stored)}, seen, limit=1000)
    as_auditor = client.get("/v1/feed", query_string={"after": start, "limit": 1000},
                            headers=auditor).json["items"]
    shown = {e["position"]: e for e in seen if e["stream"] == stream}
    audited = {e["position"]: e for e in as_auditor if e["stream"] == stream}
    hidden = 0
    for position, event in stored.items():
        assert shown[position]["type"] == audited[position]["type"] == event.type
        if event.type.startswith(GAME_EVENT_PREFIX):
            assert audited[position]["data"] == event.data["data"]
            spectator = dict(redact(engine_event(event), SPECTATOR).data)
            assert shown[position]["data"] == spectator
            hidden += spectator != event.data["data"]
    assert hidden > 0, "the deal hid cards from the operator"
    # A registration shows the player's id, never his name (sealed, or clear in old ones).
    registered = [e for e in seen if e["type"] == "PlayerRegistered"]
    assert [e["data"] for e in registered] == [{"player_id": p.id} for p in players]
    # Only the types asked for.
    posted = _page(client, start, types="TreasurePosted,HandBegan", limit=1000)["items"]
    assert {e["type"] for e in posted} == {"TreasurePosted", "HandBegan"}
    # A trailing `*` stands for any rest, as in a webhook's `event_types`: the game's events.
    games = _page(client, start, types="game.*,HandBegan", limit=1000)["items"]
    assert all(e["type"].startswith(GAME_EVENT_PREFIX) or e["type"] == "HandBegan" for e in games)
    assert [e["position"] for e in games if e["stream"] == stream] == [
        p for p, e in stored.items() if e.type.startswith(GAME_EVENT_PREFIX) or e.type == "HandBegan"]
    assert client.get("/v1/feed", headers=players[0].auth).status_code == 403


def test_the_feed_streams_and_resumes_after_its_last_event_id(app, client: FlaskClient,
                                                              new_player: Any):
    start = _marker(app).position
    players = [new_player("Kim", 10), new_player("Lou", 10)]
    table_id = cassino_table(client, players)
    stream = handlers.stream(table_id)
    expected: list[dict[str, Any]] = []
    _read_until(client, start, {stream: app.extensions["banco.store"].stream_version(stream)},
                expected)

    def sse(headers: dict[str, str], **query: Any) -> list[dict[str, Any]]:
        r = client.get("/v1/feed/stream", query_string={"timeout": 0.3, **query},
                       headers={**OPERATOR, **headers})
        assert r.status_code == 200 and r.mimetype == "text/event-stream"
        sent = []
        for block in r.get_data(as_text=True).split("\n\n"):
            fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
            if "id" in fields:
                item = orjson.loads(fields["data"])
                assert (int(fields["id"]), fields["event"]) == (item["position"], item["type"])
                sent.append(item)
        return sent[:len(expected)]

    everything = sse({"Last-Event-ID": str(start)})
    assert everything == expected
    middle = expected[len(expected) // 2]["position"]
    assert sse({"Last-Event-ID": str(middle)}) == sse({}, after=middle) == expected[len(expected) // 2 + 1:]
    # The header wins over `after`: an EventSource reconnects to the URL it opened, `after=`
    # and all, with the id it last received. An id that names no event leaves `after` to decide.
    early = expected[1]["position"]
    assert sse({"Last-Event-ID": str(middle)}, after=early) == expected[len(expected) // 2 + 1:]
    assert sse({"Last-Event-ID": "not-an-id"}, after=early) == expected[2:]
    r = client.get("/v1/feed/stream", headers=players[0].auth)
    assert r.status_code == 403


def test_bad_feed_and_balances_queries_are_422_problems(client: FlaskClient):
    bad = [("/v1/feed", {"after": -1}), ("/v1/feed", {"after": 10**15}), ("/v1/feed", {"limit": 0}),
           ("/v1/feed", {"types": "NoSuchEvent"}), ("/v1/feed", {"after": "x"}),
           ("/v1/feed", {"types": "game.CardDelt"}), ("/v1/feed/stream", {"types": "game."}),
           ("/v1/feed", {"types": "game.Nothing*"}), ("/v1/feed", {"types": "HandBegan,*x"}),
           ("/v1/feed/stream", {"after": 10**15}), ("/v1/feed/stream", {"types": ""}),
           ("/v1/balances", {}), ("/v1/balances", {"as_of": "yesterday"}),
           ("/v1/balances", {"as_of": "2026-01-01T00:00:00"}),
           ("/v1/balances", {"as_of": "2999-01-01T00:00:00Z"}),
           ("/v1/balances", {"as_of": 10**15}), ("/v1/balances", {"as_of": 1, "limit": 0})]
    for path, query in bad:
        r = client.get(path, query_string=query, headers=OPERATOR)
        assert r.status_code == 422, (path, query, r.json)
        assert r.headers["Content-Type"] == "application/problem+json"
    # Every type the engines write is one to ask for.
    for known in ("game.CardDealt", "game.CardsCaptured", "game.PlayerAccused"):
        assert client.get("/v1/feed", query_string={"types": known},
                          headers=OPERATOR).status_code == 200, known
    r = client.get("/v1/balances", query_string={"as_of": 1, "limit": 5},
                   headers={**OPERATOR, "Accept": "text/csv"})
    assert r.status_code == 422 and "limit" in r.json["errors"]["query"]


def test_feed_streams_are_woken_by_every_tables_notices(app, client: FlaskClient):
    """A feed stream waits on the notices table streams wait on, for whichever table changed."""
    listener = app.extensions["banco.notify"]
    waiter = listener.subscribe(notify.EVERY_TABLE)
    try:
        assert listener.listening.wait(10)
        table_id = client.post("/v1/tables", json={"game": "cassino"}, headers=OPERATOR).json["id"]
        deadline = time.monotonic() + 10
        heard: set[str] = set()
        while table_id not in heard:
            assert time.monotonic() < deadline, "no notice of the new table reached the feed"
            heard |= {c.table_id for c in waiter.wait(1) or []}
    finally:
        listener.unsubscribe(waiter)


def test_a_feed_stream_revoked_while_it_sends_its_backlog_sends_no_more_of_it(app, client: FlaskClient):
    """A feed stream opened at the log's start sends it page after page before it waits: it
    looked for a revocation only once the whole backlog was sent, and under load a revoked
    auditor's stream read on for more than twenty seconds (seen in a run of the whole suite).
    A revocation heard between two pages ends it before the next."""
    created = client.post("/v1/auditors", json={"name": "Rev"}, headers=OPERATOR).json
    auditor = bearer(created["token"])
    after = _marker(app).position
    pages = 3
    app.extensions["banco.store"].append(f"backlog-{uuid.uuid4().hex}",
                                         [_erased(n) for n in range(pages * BATCH)], 0)
    listener = app.extensions["banco.notify"]
    # A subscriber of the auditor's own, to see when the listener has heard the revocation.
    heard = listener.subscribe(notify.EVERY_TABLE, who=f"auditor:{created['id']}")
    try:
        assert listener.listening.wait(10)
        r = client.get("/v1/feed/stream", query_string={"after": after, "timeout": 60},
                       headers=auditor, buffered=False)
        chunks = iter(r.response)  # the stream is read only as far as this test reads it
        assert next(chunks) == b": connected\n\n"
        first = next(chunks).split(b"\n")
        assert sum(line.startswith(b"id: ") for line in first) == BATCH  # its first page
        assert client.delete(f"/v1/auditors/{created['id']}/token", headers=OPERATOR).status_code == 204
        deadline = time.monotonic() + 30
        while not heard.revoked:
            assert time.monotonic() < deadline, "the listener never heard the revocation"
            heard.wait(0.1)
        assert list(chunks) == [], "the stream sent its backlog on after the revocation"
        r.close()
    finally:
        listener.unsubscribe(heard)


def test_a_feed_stream_ends_when_the_token_that_opened_it_is_revoked(app, client: FlaskClient):
    """As a table's stream does: the revocation's notice reaches every node, and the stream it
    opened ends long before its timeout rather than reading on for a caller now refused."""
    created = client.post("/v1/auditors", json={"name": "Rev"}, headers=OPERATOR).json
    auditor = bearer(created["token"])
    listener = app.extensions["banco.notify"]
    got: list[bytes] = []
    opened = threading.Event()

    def follow() -> None:
        r = client.get("/v1/feed/stream", query_string={"timeout": 60}, headers=auditor,
                       buffered=False)
        for chunk in r.response:
            opened.set()
            got.append(chunk)
        r.close()

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    assert opened.wait(10) and listener.listening.wait(10)
    r = client.delete(f"/v1/auditors/{created['id']}/token", headers=OPERATOR)
    assert r.status_code == 204
    reader.join(20)  # its timeout is 60 s
    assert not reader.is_alive(), "the feed stream outlived the revocation of its token"
    assert got[0] == b": connected\n\n"
    assert client.get("/v1/feed", query_string={"after": 0}, headers=auditor).status_code == 401


def test_latest_starts_the_feed_and_its_stream_after_everything_already_committed(
        app, client: FlaskClient):
    """`after=latest` is the log's last event now: a page from it is empty and its `next_after`
    goes on with what commits next; a stream from it sends only what commits after it opened,
    unless Last-Event-ID says otherwise."""
    store = app.extensions["banco.store"]
    start, before = _marker(app), _marker(app)
    _read_until(client, start.position, {before.stream_id: 1}, [])
    page = _page(client, "latest")
    assert page["items"] == [] and page["next_after"] >= before.position
    head = page["next_after"]
    assert before.position not in [e["position"] for e in _page(client, head, limit=1000)["items"]]
    [after] = store.append(f"marker-{uuid.uuid4().hex}", [_erased(1)], 0)
    served: list[dict[str, Any]] = []
    _read_until(client, head, {after.stream_id: 1}, served)
    assert before.position not in [e["position"] for e in served]
    assert _page(client, "latest", limit=1)["items"] == []

    # The stream's place is taken when it opens: what commits after that is sent, nothing before.
    r = client.get("/v1/feed/stream", query_string={"after": "latest", "timeout": 10},
                   headers=OPERATOR, buffered=False)
    assert r.status_code == 200
    [later] = store.append(f"marker-{uuid.uuid4().hex}", [_erased(2)], 0)
    sent: list[int] = []
    for chunk in r.response:
        sent += [int(line[4:]) for line in chunk.decode().splitlines() if line.startswith("id: ")]
        if later.position in sent:
            break
    r.close()
    assert later.position in sent and before.position not in sent and after.position not in sent
    # Last-Event-ID wins over `latest`, as over any `after`: a reconnection goes on from its id.
    r = client.get("/v1/feed/stream", query_string={"after": "latest", "timeout": 0.3},
                   headers={**OPERATOR, "Last-Event-ID": str(before.position)})
    assert after.position in [int(line[4:]) for line in r.get_data(as_text=True).splitlines()
                              if line.startswith("id: ")]
    for wrong in ("Latest", "latest,", "-1"):
        assert client.get("/v1/feed", query_string={"after": wrong}, headers=OPERATOR).status_code == 422


def test_a_feed_stream_whose_timeout_comes_while_it_sends_its_backlog_ends_then(
        app, client: FlaskClient):
    """A stream's `timeout` (cut to its operator key's expiry) came while it sent a long backlog
    page after page, and it read on to the backlog's end: under load an expired key's feed
    stream outlived it by more than fifteen seconds (seen in a run of the whole suite). The
    timeout ends it before its next page, as a revocation does."""
    after = _marker(app).position
    pages = 3
    app.extensions["banco.store"].append(f"backlog-{uuid.uuid4().hex}",
                                         [_erased(n) for n in range(pages * BATCH)], 0)
    # The feed shows a transaction's events once every transaction begun before it has ended,
    # on the whole server: another process's, still open, would hold them back past the timeout.
    deadline = time.monotonic() + 30
    while not _page(client, after, limit=1)["items"]:
        assert time.monotonic() < deadline, "the backlog never showed in the feed"
        time.sleep(0.05)
    r = client.get("/v1/feed/stream", query_string={"after": after, "timeout": 0.5},
                   headers=OPERATOR, buffered=False)
    chunks = iter(r.response)  # the stream is read only as far as this test reads it
    try:
        assert next(chunks) == b": connected\n\n"
        first = next(chunks).split(b"\n")
        assert sum(line.startswith(b"id: ") for line in first) == BATCH  # its first page
        time.sleep(0.6)
        assert list(chunks) == [], "the stream sent its backlog on after its timeout"
    finally:
        r.close()


def test_a_handed_over_stream_whose_timeout_comes_while_it_sends_its_backlog_ends_then(app):
    """The same for a stream behind gunicorn: its request's thread sends the backlog page after
    page before it hands the connection over. Its timeout come, it sends no further page, hands
    nothing over, and gives its place back as the response closes."""

    class Backlog:
        def news(self) -> Any:
            yield from (f"page {n}\n".encode() for n in range(3))

        def spec(self) -> dict[str, Any]:
            return {}

    handed: list[Any] = []
    given_back: list[bool] = []

    class Relay:
        def hand(self, *args: Any) -> None:
            handed.append(args)

    def take() -> Any:
        handed.append("taken")
        return None, False

    with app.test_request_context():
        body, closed = sse.handed_over(cast(Any, Relay()), take, cast(Any, Backlog()), 0.5,
                                       lambda: None, lambda: given_back.append(True))
        assert next(body) == b": connected\n\n"
        assert next(body) == b"page 0\n"  # read before the timeout
        time.sleep(0.6)
        assert list(body) == []
        closed()
    assert handed == [] and given_back == [True]
