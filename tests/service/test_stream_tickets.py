"""Stream tickets: a browser's EventSource, which cannot send `Authorization`, follows a stream
with a short-lived ticket asked for with a token, good on that stream's GET alone, shown as to
that token, kept only hashed and never logged."""

from __future__ import annotations

import io
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.application.tokens import token_hash
from service.runtime import logs
from service.runtime.config import Config, ConfigError
from tests.service.conftest import OPERATOR, Player, app_on, bearer
from tests.service.play import DECKS, strings
from tests.service.test_streams import cassino_table

Sent = list[tuple[int, str, Any]]  # (id, event type, data) of each event a stream sent


def ticket_for(client: FlaskClient, headers: dict[str, str], **body: str) -> dict[str, Any]:
    r = client.post("/v1/stream-tickets", json=body, headers=headers)
    assert r.status_code == 201, r.json
    return dict(r.json)


def read(client: FlaskClient, url: str, headers: dict[str, str] | None = None,
         **query: Any) -> Sent:
    """Every event a short stream at `url` sends, read as a browser's EventSource would: a plain
    GET with no `Authorization` unless `headers` says otherwise."""
    query = {"timeout": 0.4, **query}
    r = client.get(f"{url}{'&' if '?' in url else '?'}{urlencode(query)}", headers=headers or {})
    assert r.status_code == 200, r.json
    assert r.mimetype == "text/event-stream"
    sent = []
    for block in r.get_data(as_text=True).split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if "id" in fields:
            sent.append((int(fields["id"]), fields["event"], orjson.loads(fields["data"])))
    return sent


def refused(r: Any, status: int, code: str) -> None:
    assert (r.status_code, r.json["code"]) == (status, code), r.json
    assert r.headers["Content-Type"] == "application/problem+json"


@pytest.fixture
def dealt(client: FlaskClient, new_player: Any) -> tuple[str, list[Player]]:
    """A Cassino table with a hand dealt: each player holds cards the other may not see."""
    players = [new_player("Ann", 10), new_player("Bob", 10)]
    table_id = cassino_table(client, players)
    assert client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR).status_code == 201
    return table_id, players


def test_a_browser_follows_a_tables_stream_with_a_ticket_and_reconnects_with_last_event_id(
        client: FlaskClient, dealt: tuple[str, list[Player]]):
    """The ticket's URL opens the stream with no `Authorization`; the reconnection an
    EventSource makes by itself (same URL, `Last-Event-ID`) goes on after the last id, with the
    same ticket: what the token's stream sends, event for event."""
    table_id, (ann, _) = dealt
    answer = ticket_for(client, ann.auth, stream="table", table_id=table_id)
    assert answer["path"] == f"/v1/tables/{table_id}/stream"
    assert answer["url"] == f"{answer['path']}?ticket={answer['ticket']}"
    assert answer["ticket"].startswith("bst_") and answer["expires_in"] == 60
    with_token = read(client, answer["path"], ann.auth)
    versions = [v for v, _, _ in with_token]
    assert versions == list(range(1, len(versions) + 1)) and len(versions) > 4
    assert read(client, answer["url"]) == with_token
    middle = versions[len(versions) // 2]
    resumed = read(client, answer["url"], {"Last-Event-ID": str(middle)})
    assert resumed == [e for e in with_token if e[0] > middle]
    assert read(client, answer["url"], {"Last-Event-ID": str(versions[-1])}) == []


def test_a_players_ticket_shows_him_what_his_token_does_and_no_more(
        client: FlaskClient, dealt: tuple[str, list[Player]], new_player: Any):
    """Redaction follows whom the ticket speaks for: each player's ticket shows him his own
    cards and not the other's, as his token does, his turn included; a player of another table
    with a ticket for this one sees what a spectator does, none of their cards."""
    table_id, players = dealt
    path = f"/v1/tables/{table_id}/stream"
    cards = set(DECKS["cassino"])
    seen = {}
    for p in players:
        url = ticket_for(client, p.auth, stream="table", table_id=table_id)["url"]
        by_ticket = read(client, url, turns="true")
        assert by_ticket == read(client, path, p.auth, turns="true")
        seen[p.id] = by_ticket
    ann, bob = players
    own = {p.id: strings([d for _, _, d in seen[p.id]]) & cards for p in players}
    spectator = read(client, path, OPERATOR)
    public = strings([d for _, _, d in spectator]) & cards
    assert own[ann.id] - public and own[bob.id] - public, "each holds cards the other may not see"
    assert not (own[ann.id] - public) & own[bob.id]
    assert any(kind == "table" for _, kind, _ in seen[ann.id] + seen[bob.id]), "a turn was sent"

    elsewhere = new_player("Cy", 10)
    cassino_table(client, [elsewhere, new_player("Di", 10)])
    outsider = read(client, ticket_for(client, elsewhere.auth, stream="table",
                                       table_id=table_id)["url"])
    assert outsider == read(client, path, elsewhere.auth)
    assert [(v, kind) for v, kind, _ in outsider] == [(v, kind) for v, kind, _ in spectator]
    shown = strings([d for _, _, d in outsider]) & cards
    assert shown == public and not shown & ((own[ann.id] | own[bob.id]) - public)


def test_an_auditor_follows_the_logs_feed_with_a_ticket_and_a_player_may_not(
        app: Flask, client: FlaskClient, dealt: tuple[str, list[Player]]):
    table_id, (ann, _) = dealt
    auditor = client.post("/v1/auditors", json={"name": "Eve"}, headers=OPERATOR).json["token"]
    answer = ticket_for(client, bearer(auditor), stream="feed")
    assert answer["path"] == "/v1/feed/stream"
    start = app.extensions["banco.store"].read_stream(f"table-{table_id}", 0, limit=1)[0].position
    # The feed serves an event once no transaction begun before it is open anywhere
    # (events/postgres.py): read until the table's are there.
    deadline = time.monotonic() + 10
    feed = read(client, answer["url"], after=start)
    while not any(d["stream"] == f"table-{table_id}" for _, _, d in feed):
        assert time.monotonic() < deadline, "the table's events never came"
        feed = read(client, answer["url"], after=start)
    assert read(client, answer["path"], bearer(auditor), after=start)[:len(feed)] == feed
    refused(client.post("/v1/stream-tickets", json={"stream": "feed"}, headers=ann.auth),
            403, "forbidden")


def test_a_ticket_opens_its_own_stream_alone_and_is_no_bearer_token(
        client: FlaskClient, dealt: tuple[str, list[Player]], new_player: Any):
    table_id, (ann, _) = dealt
    other = cassino_table(client, [new_player("Fay", 10), new_player("Gus", 10)])
    ticket = ticket_for(client, ann.auth, stream="table", table_id=table_id)["ticket"]
    feed_ticket = ticket_for(client, OPERATOR, stream="feed")["ticket"]
    q = {"ticket": ticket}
    refused(client.get(f"/v1/tables/{other}/stream", query_string=q), 403, "ticket_wrong_stream")
    refused(client.get(f"/v1/tables/{table_id}/stream", query_string={"ticket": feed_ticket}),
            403, "ticket_wrong_stream")
    refused(client.get("/v1/feed/stream", query_string=q), 403, "ticket_wrong_stream")
    # Anywhere but a stream's GET, a ticket is refused, with a token beside it or not.
    for method, path in (("get", f"/v1/tables/{table_id}"), ("get", f"/v1/tables/{table_id}/events"),
                         ("post", f"/v1/tables/{table_id}/actions"), ("get", "/v1/me"),
                         ("post", "/v1/stream-tickets"), ("get", f"/v1/players/{ann.id}/balance")):
        for headers in ({}, ann.auth):
            refused(getattr(client, method)(path, query_string=q, headers=headers),
                    401, "ticket_not_accepted")
    # An endpoint open to all takes no `ticket` either.
    refused(client.get("/v1/games", query_string=q), 422, "invalid_input")
    refused(client.get("/v1/me", headers=bearer(ticket)), 401, "ticket_not_a_token")
    refused(client.get(f"/v1/tables/{table_id}/stream", headers=bearer(ticket)),
            401, "ticket_not_a_token")
    # Beside a token, the token speaks: the operator's stream with Ann's ticket is his own.
    assert read(client, f"/v1/tables/{table_id}/stream", OPERATOR, ticket=ticket) == read(
        client, f"/v1/tables/{table_id}/stream", OPERATOR)
    refused(client.get(f"/v1/tables/{table_id}/stream", query_string={"ticket": ticket + "x"},
                       headers=bearer("bnc_nothing")), 401, "unauthorized")
    for wrong in ("bst_" + "x" * 43, "bnc_nothing", ticket + "x", "", "bst_" + "é" * 10):
        refused(client.get(f"/v1/tables/{table_id}/stream", query_string={"ticket": wrong}),
                401, "invalid_ticket")
    assert read(client, f"/v1/tables/{table_id}/stream", ticket=ticket)  # all that left it good


def test_a_ticket_given_twice_is_refused_whichever_comes_first(
        client: FlaskClient, dealt: tuple[str, list[Player]]):
    """`?ticket=<good>&ticket=bst_nope` opened the stream with the first: which ticket speaks
    for the caller, nothing says, so neither is looked up."""
    table_id, (ann, _) = dealt
    path = f"/v1/tables/{table_id}/stream"
    ticket = ticket_for(client, ann.auth, stream="table", table_id=table_id)["ticket"]
    feed_ticket = ticket_for(client, OPERATOR, stream="feed")["ticket"]
    for url, twice in [(path, [ticket, "bst_nope"]), (path, ["bst_nope", ticket]),
                       (path, [ticket, ticket]), ("/v1/feed/stream", [feed_ticket, feed_ticket])]:
        for headers in ({}, ann.auth):
            r = client.get(url, query_string=[("timeout", "0.1")] + [("ticket", t) for t in twice],
                           headers=headers)
            refused(r, 422, "invalid_input")
            assert list(r.json["errors"]["query"]) == ["ticket"], r.json
            assert "more than once" in r.json["errors"]["query"]["ticket"][0]
    assert read(client, path, ticket=ticket)  # once, it opens the stream


def test_a_ticket_stops_opening_its_stream_when_it_expires(config: Config, new_player: Any):
    """A ticket opens its stream until its time is up (`BANCO_STREAM_TICKET_TTL_S`, 1 second
    here), and then never again: a reconnection is a 401. The stream it opened goes on."""
    with app_on(replace(config, stream_ticket_ttl_s=1)) as app:
        client = app.test_client()
        players = [new_player("Hal", 10), new_player("Ida", 10)]
        table_id = cassino_table(client, players)
        answer = ticket_for(client, players[0].auth, stream="table", table_id=table_id)
        assert answer["expires_in"] == 1
        # A stream opened before the expiry goes on past it, to its own `timeout`.
        opened: list[str] = []
        reader = threading.Thread(target=lambda: opened.append(
            client.get(f"{answer['url']}&timeout=2.5").get_data(as_text=True)), daemon=True)
        reader.start()
        time.sleep(1.05)
        refused(client.get(answer["url"]), 401, "invalid_ticket")
        dealt = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
        assert dealt.status_code == 201, dealt.json
        reader.join(10)
        assert f"id: {dealt.json['version']}\n" in opened[0]


def test_the_ttl_is_a_setting_within_bounds():
    env = {"DATABASE_URL": "postgresql://x", "REDIS_URL": "redis://x",
           "BANCO_OPERATOR_KEY": "k" * 16}
    assert Config.from_env(env).stream_ticket_ttl_s == 60
    assert Config.from_env({**env, "BANCO_STREAM_TICKET_TTL_S": "5"}).stream_ticket_ttl_s == 5
    for bad in ("0", "3601", "soon"):
        with pytest.raises(ConfigError, match="BANCO_STREAM_TICKET_TTL_S"):
            Config.from_env({**env, "BANCO_STREAM_TICKET_TTL_S": bad})


def test_a_revoked_token_takes_its_tickets_with_it(client: FlaskClient,
                                                   dealt: tuple[str, list[Player]]):
    table_id, (ann, _) = dealt
    url = ticket_for(client, ann.auth, stream="table", table_id=table_id)["url"]
    assert read(client, url)
    r = client.post(f"/v1/players/{ann.id}/token", headers=ann.auth)
    assert r.status_code == 201
    refused(client.get(url), 401, "invalid_ticket")
    new = Player(ann.id, r.json["token"])
    assert read(client, ticket_for(client, new.auth, stream="table", table_id=table_id)["url"])


def _redis_keys(app: Flask) -> set[bytes]:
    return set(app.extensions["banco.redis"].scan_iter(
        match=f"banco:ticket:{app.config['BANCO'].queue_name}:*"))


def test_bad_requests_for_a_ticket_are_problems_that_issue_none(
        app: Flask, client: FlaskClient, dealt: tuple[str, list[Player]]):
    table_id, (ann, _) = dealt
    before = _redis_keys(app)
    for body in ({}, {"stream": "hand"}, {"stream": "table"}, {"stream": "feed", "table_id": table_id},
                 {"stream": "table", "table_id": ""}, {"stream": "table", "table_id": 7},
                 {"stream": "table", "table_id": table_id, "extra": 1}, [], "table"):
        r = client.post("/v1/stream-tickets", json=body, headers=ann.auth)
        refused(r, 422, "invalid_input")
    refused(client.post("/v1/stream-tickets", json={"stream": "table", "table_id": "tb_none"},
                        headers=ann.auth), 404, "table_not_found")
    refused(client.post("/v1/stream-tickets", json={"stream": "feed"}, headers=ann.auth),
            403, "forbidden")
    refused(client.post("/v1/stream-tickets", json={"stream": "feed"}), 401, "unauthorized")
    assert _redis_keys(app) == before


def test_a_ticket_is_kept_only_hashed_and_for_its_time(app: Flask, client: FlaskClient,
                                                        dealt: tuple[str, list[Player]]):
    table_id, (ann, _) = dealt
    before = _redis_keys(app)
    ticket = ticket_for(client, ann.auth, stream="table", table_id=table_id)["ticket"]
    [key] = _redis_keys(app) - before
    assert key.decode().endswith(token_hash(ticket).hex())
    redis = app.extensions["banco.redis"]
    held = redis.get(key)
    assert ticket.encode() not in key and ticket.encode() not in held
    assert ann.token.encode() not in held  # the token it was asked with, by its hash only
    assert orjson.loads(held)["credential"] == token_hash(ann.token).hex()
    assert 55 <= redis.ttl(key) <= 60


def test_a_replayed_request_issues_a_new_ticket_and_its_record_keeps_none(
        app: Flask, client: FlaskClient, dealt: tuple[str, list[Player]]):
    table_id, (ann, _) = dealt
    headers = {**ann.auth, "Idempotency-Key": "ticket-1"}
    body = {"stream": "table", "table_id": table_id}
    first = client.post("/v1/stream-tickets", json=body, headers=headers)
    again = client.post("/v1/stream-tickets", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json["path"] == first.json["path"]
    assert again.json["ticket"] != first.json["ticket"]
    for answer in (first.json, again.json):
        assert read(client, answer["url"])
    with app.extensions["banco.pool"].connection() as conn:
        kept = bytes(conn.execute("SELECT body FROM idempotency_keys WHERE principal = %s"
                                  " AND key = 'ticket-1'", (f"player:{ann.id}",)).fetchone()[0]
                     ).decode()
    assert "bst_" not in kept and first.json["path"] in kept


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    logs.configure("DEBUG")
    stream = io.StringIO()
    logging.getLogger("banco").handlers[0].setStream(stream)  # type: ignore[attr-defined]
    yield stream


def test_no_ticket_reaches_the_logs_or_the_metrics(client: FlaskClient, log_lines: io.StringIO,
                                                   dealt: tuple[str, list[Player]]):
    """The request log writes the stream's path, never its query; refusals and metrics hold no
    ticket either."""
    table_id, (ann, _) = dealt
    ticket = ticket_for(client, ann.auth, stream="table", table_id=table_id)["ticket"]
    assert read(client, f"/v1/tables/{table_id}/stream", ticket=ticket,
                headers={"X-Request-ID": "ticketed"})
    refused(client.get(f"/v1/tables/{table_id}", query_string={"ticket": ticket}),
            401, "ticket_not_accepted")
    refused(client.get("/v1/me", headers=bearer(ticket)), 401, "ticket_not_a_token")
    metrics = client.get("/metrics", headers=OPERATOR).get_data(as_text=True)
    written = log_lines.getvalue()
    entries = [orjson.loads(line) for line in written.splitlines()]
    [streamed] = [e for e in entries if e.get("request_id") == "ticketed"]
    assert streamed["path"] == f"/v1/tables/{table_id}/stream" and streamed["status"] == 200
    assert ticket not in written and ticket not in metrics
    assert ticket.removeprefix("bst_")[:16] not in written
