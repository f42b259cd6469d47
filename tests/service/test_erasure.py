"""Erasing a player: his name, sealed in the log under his own key, is unreadable once the key is
destroyed, while his balances, hands, the hash chain, checkpoints and verifications all hold."""

from __future__ import annotations

import dataclasses
import random
import threading
import uuid
from typing import Any

import orjson

from tests.service.conftest import OPERATOR, Player, app_on, bearer
from tests.service.play import Session, concrete
from tests.service.test_audit_cli import banco
from tests.service.test_tokens import all_text, works


def text_holds(app, name: str) -> bool:
    text = all_text(app)
    return name in text or name.encode().hex() in text  # bytea reads as hex in a row's text


def register(client, name: str, key: str) -> Player:
    r = client.post("/v1/players", json={"name": name}, headers={**OPERATOR, "Idempotency-Key": key})
    assert r.status_code == 201, r.json
    player = Player(r.json["player"]["id"], r.json["token"])
    r = client.post(f"/v1/players/{player.id}/deposits", json={"amount": 100, "reason": "desk"},
                    headers=OPERATOR)
    assert r.status_code == 201, r.json
    return player


def stream_length(app, player_id: str) -> int:
    with app.extensions["banco.pool"].connection() as c:
        return int(c.execute("SELECT count(*) FROM events WHERE stream_id = %s",
                             (f"player-{player_id}",)).fetchone()[0])


def test_a_name_is_sealed_in_the_log_from_the_start(app, client):
    name = f"Sealed {uuid.uuid4().hex}"
    player = register(client, name, f"sealed-{uuid.uuid4().hex}")
    assert client.get(f"/v1/players/{player.id}", headers=OPERATOR).json["name"] == name
    with app.extensions["banco.pool"].connection() as c:
        [(data,)] = c.execute("SELECT data::text FROM events WHERE stream_id = %s"
                              " AND type = 'PlayerRegistered'", (f"player-{player.id}",))
    assert name not in data and "name_enc" in data


def test_an_erased_player_who_played_a_hand_is_unreadable_everywhere_and_every_check_passes(
        app, client, worker, database_url, tmp_path):
    name = f"Ada Lovelace {uuid.uuid4().hex}"
    key = f"register-{uuid.uuid4().hex}"
    ada, bob = register(client, name, key), register(client, f"Bob {uuid.uuid4().hex}", "bob")
    session = Session(client, "sette-e-mezzo", [ada, bob])
    session.open({}, 50)
    hand = session.deal()
    session.play_hand()
    session.wait_settled(hand)
    digest = tmp_path / "before.json"
    assert banco("checkpoint", "-o", str(digest), url=database_url).returncode == 0
    balance = client.get(f"/v1/players/{ada.id}/balance", headers=OPERATOR).json["balance"]
    assert text_holds(app, name)  # the players projection, the registration's kept answer
    named = client.get(f"/v1/hands/{hand}", headers=OPERATOR).json["seats"]
    assert {s["player_id"]: s["name"] for s in named}[ada.id] == name

    r = client.post(f"/v1/players/{ada.id}/erasure", headers=OPERATOR)
    assert r.status_code == 200, r.json
    assert (r.json["id"], r.json["name"], r.json["erased"]) == (ada.id, None, True)

    assert not text_holds(app, name)
    assert works(client, ada.token) == 401
    shown = client.get(f"/v1/players/{ada.id}", headers=OPERATOR).json
    assert (shown["name"], shown["erased"]) == (None, True)
    assert client.get(f"/v1/players/{ada.id}/balance", headers=OPERATOR).json["balance"] == balance
    # No token for him again; the registration's retry no longer hands one out.
    assert client.post(f"/v1/players/{ada.id}/token", headers=OPERATOR).json["code"] == "player_erased"
    again = client.post("/v1/players", json={"name": name},
                        headers={**OPERATOR, "Idempotency-Key": key})
    # ... and says why: he was erased (a new token would be refused as `player_erased` too).
    assert (again.status_code, again.json["code"]) == (409, "player_erased")
    # A second erasure changes nothing.
    events = stream_length(app, ada.id)
    assert client.post(f"/v1/players/{ada.id}/erasure", headers=OPERATOR).json["erased"]
    assert stream_length(app, ada.id) == events

    auditor = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"]
    assert client.get(f"/v1/hands/{hand}/verification", headers=bearer(auditor)).json["passed"]
    assert client.get(f"/v1/hands/{hand}/replay", headers=bearer(auditor)).status_code == 200
    seats = client.get(f"/v1/hands/{hand}", headers=bearer(auditor)).json["seats"]
    assert {s["player_id"]: s["name"] for s in seats}[ada.id] is None
    for args in (("verify", "--all"), ("verify", "--against", str(digest)), ("replay", hand)):
        out = banco(*args, url=database_url)
        assert out.returncode == 0, out.stdout + out.stderr
        assert name not in out.stdout

    # The projection rebuilt from the log reads him as erased too.
    assert banco("projections", "rebuild", url=database_url).returncode == 0
    shown = client.get(f"/v1/players/{ada.id}", headers=OPERATOR).json
    assert (shown["name"], shown["erased"]) == (None, True)
    assert client.get(f"/v1/players/{bob.id}", headers=OPERATOR).json["name"].startswith("Bob ")
    assert not text_holds(app, name)


def test_an_erasure_blanks_his_name_in_the_answers_kept_for_others_retries(app, client):
    """A join's, a deal's and a move's answers show the table with every seated player's name,
    and each was kept for a day for its caller to replay: an erasure left Ada's name in Bob's and
    the operator's, and their replays handed it out."""
    name = f"Ada Private {uuid.uuid4().hex}"
    ada, bob = register(client, name, f"ada-{uuid.uuid4().hex}"), register(client, "Bob", "b")
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {}},
                        headers=OPERATOR).json["id"]
    assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": 50},
                       headers=bearer(ada.token)).status_code == 201
    kept: list[tuple[str, dict[str, str]]] = []

    def sent(path: str, headers: dict[str, str], **kwargs: Any) -> Any:
        headers = {**headers, "Idempotency-Key": uuid.uuid4().hex}
        r = client.post(path, headers=headers, **kwargs)
        assert r.status_code in (200, 201), r.json
        kept.append((path, headers, kwargs))
        return r.json

    sent(f"/v1/tables/{table}/seats", bearer(bob.token), json={"buy_in": 50})
    sent(f"/v1/tables/{table}/hands", OPERATOR)
    shown = client.get(f"/v1/tables/{table}", headers=bearer(bob.token)).json
    assert shown["legal_actions"], "Bob, not the banker, bets first"
    sent(f"/v1/tables/{table}/actions", {**bearer(bob.token), "If-Match": f'"{shown["version"]}"'},
         json=concrete(shown["legal_actions"][0], random.Random(0)))
    assert all(name in str(client.post(path, headers=headers, **kwargs).json)
               for path, headers, kwargs in kept)

    assert client.post(f"/v1/players/{ada.id}/erasure", headers=OPERATOR).status_code == 200

    assert not text_holds(app, name)
    for path, headers, kwargs in kept:
        again = client.post(path, headers=headers, **kwargs)
        assert again.headers["Idempotent-Replayed"] == "true"
        seats = again.json["seats"] if "seats" in again.json else again.json["table"]["seats"]
        assert {s["player_id"]: s["name"] for s in seats} == {ada.id: None, bob.id: "Bob"}
    # What is not his stays as it was: Bob's name, the tables' ids.
    assert client.get(f"/v1/players/{bob.id}", headers=OPERATOR).json["name"] == "Bob"


def test_erasing_an_unknown_player_is_a_404(client):
    r = client.post("/v1/players/pl_nobody/erasure", headers=OPERATOR)
    assert r.status_code == 404 and r.json["code"] == "player_not_found"



def test_an_erasure_the_journal_cannot_keep_is_a_503_that_erases_nothing(config, tmp_path):
    """Its journal moved away under a running API: every erasure was a 500 with a traceback."""
    journal = tmp_path / "erasures.jsonl"
    with app_on(dataclasses.replace(config, erasure_journal=journal)) as app:
        client = app.test_client()
        ada = register(client, "Ada Journal", uuid.uuid4().hex)
        journal.mkdir()  # a folder where the file was to be: it cannot be written
        r = client.post(f"/v1/players/{ada.id}/erasure", headers=OPERATOR)
        assert r.status_code == 503 and r.json["code"] == "unavailable", r.json
        assert "erasure journal" in r.json["detail"] and r.headers["Retry-After"]
        shown = client.get(f"/v1/players/{ada.id}", headers=OPERATOR).json
        assert (shown["name"], shown["erased"]) == ("Ada Journal", False)


def race(app, player_id: str, name: str, key: str) -> list[tuple[str, Any]]:
    """His erasure and three replays of his registration, released at once; their answers."""
    barrier = threading.Barrier(4)
    replies: list[tuple[str, Any]] = []

    def erase() -> None:
        c = app.test_client()
        barrier.wait()
        replies.append(("erasure", c.post(f"/v1/players/{player_id}/erasure", headers=OPERATOR)))

    def replay() -> None:
        c = app.test_client()
        barrier.wait()
        replies.append(("replay", c.post("/v1/players", json={"name": name},
                                         headers={**OPERATOR, "Idempotency-Key": key})))

    threads = [threading.Thread(target=erase)] + [threading.Thread(target=replay) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return replies


def test_an_erasure_racing_replays_of_the_registration_never_deadlocks(app, client):
    """An erasure locks the player's row, then the registration's kept answer (to clear the name
    in it); a replay of that registration locks the kept answer and the player's row (to issue a
    token in place of the one it carried). Taken in opposite orders the two deadlock and one of
    them is a 503; taken in one order, each waits its turn."""
    seen: set[tuple[str, int]] = set()
    for round_ in range(25):
        name, key = f"Racer {uuid.uuid4().hex}", f"race-erasure-{uuid.uuid4().hex}"
        first = client.post("/v1/players", json={"name": name},
                            headers={**OPERATOR, "Idempotency-Key": key})
        assert first.status_code == 201, first.json
        player_id = first.json["player"]["id"]
        for kind, r in race(app, player_id, name, key):
            # A replay before the erasure issues a token; after it, there is none to hand out.
            assert (kind, r.status_code) in {("erasure", 200), ("replay", 201), ("replay", 409)}, \
                (round_, kind, r.status_code, r.json)
            seen.add((kind, r.status_code))
            if kind == "replay" and r.status_code == 201:
                assert r.json["player"]["id"] == player_id
                assert works(client, r.json["token"]) == 401  # revoked by the erasure
            elif kind == "replay":
                assert r.json["code"] == "player_erased", r.json
        shown = client.get(f"/v1/players/{player_id}", headers=OPERATOR).json
        assert (shown["name"], shown["erased"]) == (None, True)
        with app.extensions["banco.pool"].connection() as c:
            assert c.execute("SELECT count(*) FROM tokens WHERE subject = %s",
                             (player_id,)).fetchone()[0] == 0
            [(body,)] = c.execute("SELECT body::text FROM idempotency_keys WHERE key = %s", (key,))
        assert name not in body and name.encode().hex() not in body
        again = client.post("/v1/players", json={"name": name},
                            headers={**OPERATOR, "Idempotency-Key": key})
        # ... and says why: he was erased (a new token would be refused as `player_erased` too).
    assert (again.status_code, again.json["code"]) == (409, "player_erased")
    # Both orders were run: some replays came before an erasure, some after.
    assert seen == {("erasure", 200), ("replay", 201), ("replay", 409)}


def test_an_answer_a_request_under_way_keeps_after_his_erasure_is_blanked_too(app, client):
    """A request that read his name before his erasure and kept its answer after the erasure had
    blanked the kept answers kept his name, for its caller to replay for a day. The erasure waits
    for the requests keeping an answer, then blanks theirs too."""
    name = f"Ada Private {uuid.uuid4().hex}"
    ada = register(client, name, f"ada-{uuid.uuid4().hex}")
    pool, key = app.extensions["banco.pool"], f"under-way-{uuid.uuid4().hex}"
    done: list[Any] = []
    erasure = threading.Thread(target=lambda: done.append(
        app.test_client().post(f"/v1/players/{ada.id}/erasure", headers=OPERATOR)))
    with pool.connection() as under_way, pool.connection() as watch, under_way.transaction():
        # The request under way has claimed its key, as every keyed write does at its start.
        under_way.execute("INSERT INTO idempotency_keys (principal, key, request_hash)"
                          " VALUES ('operator', %s, '\\x00')", (key,))
        erasure.start()
        for _ in range(200):  # until the erasure is done or waits on the answers being kept
            with watch.transaction():
                waiting = watch.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    " AND query LIKE 'LOCK TABLE idempotency_keys%%'").fetchone()[0]
            if waiting or done:
                break
            erasure.join(0.05)
        body = orjson.dumps({"seats": [{"player_id": ada.id, "name": name}]})
        under_way.execute("UPDATE idempotency_keys SET status = 201, body = %s"
                          " WHERE principal = 'operator' AND key = %s", (body, key))
    erasure.join(10)
    assert [r.status_code for r in done] == [200]
    with pool.connection() as c:
        [(kept,)] = c.execute("SELECT body FROM idempotency_keys WHERE key = %s", (key,))
    assert orjson.loads(kept)["seats"] == [{"player_id": ada.id, "name": None}]


def test_an_erased_player_s_wallet_takes_no_deposit_but_may_be_paid_out(app, client):
    """A deposit to an erased player's wallet was taken (201), though no token can ever spend it.
    It is a 409 `player_erased` that posts nothing; a withdrawal still pays out what it holds."""
    ada = register(client, f"Ada {uuid.uuid4().hex}", f"wallet-{uuid.uuid4().hex}")
    assert client.post(f"/v1/players/{ada.id}/erasure", headers=OPERATOR).status_code == 200
    events = stream_length(app, ada.id)
    r = client.post(f"/v1/players/{ada.id}/deposits", json={"amount": 5, "reason": "desk"},
                    headers={**OPERATOR, "Idempotency-Key": f"late-{uuid.uuid4().hex}"})
    assert (r.status_code, r.json["code"]) == (409, "player_erased"), r.json
    assert r.headers["Content-Type"] == "application/problem+json"
    assert stream_length(app, ada.id) == events
    assert client.get(f"/v1/players/{ada.id}/balance", headers=OPERATOR).json["balance"] == 100
    r = client.post(f"/v1/players/{ada.id}/withdrawals", json={"amount": 100, "reason": "paid out"},
                    headers=OPERATOR)
    assert r.status_code == 201 and r.json["balance"]["balance"] == 0, r.json


def test_a_revocation_the_journal_cannot_keep_is_made_all_the_same(config, tmp_path, caplog):
    """A leaked token must stop working now, whatever the journal's disk: its revocation is
    made and its failure to be journaled logged, where an erasure is refused (above)."""
    journal = tmp_path / "erasures.jsonl"
    with app_on(dataclasses.replace(config, erasure_journal=journal)) as app:
        client = app.test_client()
        ada = register(client, "Ada Revoked", uuid.uuid4().hex)
        journal.unlink(missing_ok=True)
        journal.mkdir()  # a folder where the file was to be: it cannot be written
        r = client.delete(f"/v1/players/{ada.id}/token", headers=OPERATOR)
        assert r.status_code == 204, r.get_json()
        assert works(client, ada.token) == 401
        assert "it is retired all the same" in caplog.text
        assert f"the player {ada.id}'s token tk_" in caplog.text and "revoke it again" in caplog.text
