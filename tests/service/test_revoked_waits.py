"""What a request that waits may read once its credential stops working: a long poll opened
before its token or key was revoked answered with the events recorded after the revocation
(a seat's face-down card among them), and a stream or long poll opened with an operator key
that expires read on until its own timeout. Both end with the credential, as its next request
would be refused."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.service.conftest import OPERATOR, bearer
from tests.service.test_fanout import play_cassino, seats_of
from tests.service.test_streams import cassino_table


def _long_poll(client: FlaskClient, table_id: str, after: int, auth: dict[str, str],
               wait: float) -> tuple[threading.Thread, dict[str, Any]]:
    answer: dict[str, Any] = {}

    def poll() -> None:
        r = client.get(f"/v1/tables/{table_id}/events", headers=auth,
                       query_string={"after": after, "wait": wait})
        answer.update(status=r.status_code, body=r.json, content_type=r.content_type)

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    return thread, answer


def _waiting_on(app: Flask, table_id: str, count: int = 1) -> None:
    """Until `count` requests wait on the table's notices (the long polls have subscribed)."""
    listener = app.extensions["banco.notify"]
    deadline = time.monotonic() + 15
    while len(listener._waiters.get(table_id, ())) < count or not listener.listening.is_set():
        assert time.monotonic() < deadline, "the long poll never waited"
        time.sleep(0.02)


def test_a_long_poll_whose_token_is_revoked_answers_401_not_the_events_after(
        app: Flask, client: FlaskClient, new_player: Any):
    players = [new_player("Rae", deposit=10), new_player("Sol", deposit=10)]
    table_id = cassino_table(client, players)
    version = client.get(f"/v1/tables/{table_id}", headers=OPERATOR).json["version"]
    revoked, answer = _long_poll(client, table_id, version, players[0].auth, wait=25)
    kept, kept_answer = _long_poll(client, table_id, version, players[1].auth, wait=25)
    _waiting_on(app, table_id, 2)
    assert client.delete(f"/v1/players/{players[0].id}/token",
                         headers=OPERATOR).status_code == 204
    play_cassino(client, table_id, seats_of(client, table_id, players), moves=0)  # a deal
    revoked.join(20)
    kept.join(20)
    assert not revoked.is_alive() and not kept.is_alive()
    assert answer["status"] == 401, answer
    assert answer["content_type"] == "application/problem+json"
    assert answer["body"]["code"] == "unauthorized" and "revoked" in answer["body"]["detail"]
    # The other player's wait, woken by the same revocation's notice, goes on: its token works.
    assert kept_answer["status"] == 200 and kept_answer["body"]["items"], kept_answer
    assert client.get(f"/v1/tables/{table_id}/events", headers=players[0].auth).status_code == 401


def test_a_long_poll_woken_by_a_revocation_of_another_token_goes_on(
        app: Flask, client: FlaskClient, new_player: Any):
    """The notice names the holder: a player's new token, given after the old one, keeps its
    long poll when the old one's revocation is heard."""
    players = [new_player("Tam", deposit=10), new_player("Uli", deposit=10)]
    table_id = cassino_table(client, players)
    version = client.get(f"/v1/tables/{table_id}", headers=OPERATOR).json["version"]
    fresh = client.post(f"/v1/players/{players[0].id}/token", headers=OPERATOR)
    assert fresh.status_code in (200, 201), fresh.json
    auth = bearer(fresh.json["token"])
    listener = app.extensions["banco.notify"]
    poll, answer = _long_poll(client, table_id, version, auth, wait=25)
    _waiting_on(app, table_id)
    listener._revoke(f"player:{players[0].id}")  # the old token's notice, heard late
    play_cassino(client, table_id, seats_of(client, table_id, players), moves=0)
    poll.join(20)
    assert not poll.is_alive()
    assert answer["status"] == 200 and answer["body"]["items"], answer


def test_a_stream_and_a_long_poll_end_when_their_operator_key_expires(
        app: Flask, client: FlaskClient, new_player: Any):
    players = [new_player("Vic", deposit=10), new_player("Wen", deposit=10)]
    table_id = cassino_table(client, players)
    version = client.get(f"/v1/tables/{table_id}", headers=OPERATOR).json["version"]
    expires = datetime.now(UTC) + timedelta(seconds=3)
    made = client.post("/v1/keys", headers=OPERATOR, json={
        "name": "floor", "scopes": ["tables:read", "audit:read"], "expires_at": expires.isoformat()})
    assert made.status_code == 201, made.json
    key = bearer(made.json["secret"])
    ended: dict[str, datetime] = {}

    def follow(path: str) -> None:
        r = client.get(path, headers=key, query_string={"timeout": 60}, buffered=False)
        for _ in r.response:
            pass
        r.close()
        ended[path] = datetime.now(UTC)

    readers = [threading.Thread(target=follow, args=(path,), daemon=True)
               for path in (f"/v1/tables/{table_id}/stream", "/v1/feed/stream")]
    for reader in readers:
        reader.start()
    poll, answer = _long_poll(client, table_id, version, key, wait=30)
    # Each ends at the key's expiry, seconds away, not at its own end: 30 s for the long poll,
    # 60 s for the streams.
    poll.join(20)
    assert not poll.is_alive(), "the long poll outlived its key"
    for reader in readers:
        reader.join(15)
    assert not any(r.is_alive() for r in readers), "a stream outlived its key"
    assert answer["status"] == 200 and answer["body"]["items"] == []
    assert sorted(ended) == sorted([f"/v1/tables/{table_id}/stream", "/v1/feed/stream"])
    assert all(at >= expires for at in ended.values())  # at the expiry, not before
    assert client.get(f"/v1/tables/{table_id}/events", headers=key).status_code == 401
