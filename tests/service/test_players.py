"""Players, deposits, withdrawals, balances and history over HTTP."""

from __future__ import annotations

import csv
import hashlib
import io

import orjson

from tests.service.conftest import OPERATOR, bearer


def balance(client, player) -> int:
    return client.get(f"/v1/players/{player.id}/balance", headers=OPERATOR).json["balance"]


def test_register_returns_the_player_and_a_token_stored_only_hashed(client, new_player, app):
    r = client.post("/v1/players", json={"name": "Ada"}, headers=OPERATOR)
    assert r.status_code == 201
    token = r.json["token"]
    me = client.get(f"/v1/players/{r.json['player']['id']}", headers=bearer(token))
    assert me.status_code == 200 and me.json["name"] == "Ada"
    with app.extensions["banco.pool"].connection() as c:
        stored = [bytes(row[0]) for row in c.execute("SELECT token_hash FROM tokens")]
    assert token.encode() not in stored and all(len(h) == 32 for h in stored)


def test_deposit_and_withdrawal_move_treasure(client, new_player):
    p = new_player(deposit=100)
    r = client.post(f"/v1/players/{p.id}/withdrawals", json={"amount": 30, "reason": "cash out"},
                    headers=OPERATOR)
    assert r.status_code == 201
    assert r.json["posting"]["from"] == f"wallet:{p.id}" and r.json["posting"]["to"] == "house:issued"
    assert r.json["balance"]["balance"] == 70
    assert balance(client, p) == 70


def test_overdraft_is_refused_with_422_and_writes_nothing(client, new_player):
    p = new_player(deposit=10)
    before = client.get(f"/v1/players/{p.id}/balance-history", headers=OPERATOR).json["items"]
    r = client.post(f"/v1/players/{p.id}/withdrawals", json={"amount": 11, "reason": "x"},
                    headers=OPERATOR)
    assert r.status_code == 422
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json["code"] == "insufficient_treasure"
    assert balance(client, p) == 10
    assert client.get(f"/v1/players/{p.id}/balance-history", headers=OPERATOR).json["items"] == before


def test_history_pages_with_a_cursor_and_running_balance(client, new_player):
    p = new_player()
    for amount in (5, 7, 11, 13, 17):
        client.post(f"/v1/players/{p.id}/deposits", json={"amount": amount, "reason": "d"},
                    headers=OPERATOR)
    client.post(f"/v1/players/{p.id}/withdrawals", json={"amount": 3, "reason": "w"},
                headers=OPERATOR)
    rows, cursor = [], None
    while True:
        query = {"limit": 4} if cursor is None else {"limit": 4, "cursor": cursor}
        page = client.get(f"/v1/players/{p.id}/balance-history", query_string=query,
                          headers=p.auth).json
        rows += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [r["amount"] for r in rows] == [5, 7, 11, 13, 17, -3]
    assert [r["balance_after"] for r in rows] == [5, 12, 23, 36, 53, 50]
    only_w = client.get(f"/v1/players/{p.id}/balance-history", query_string={"reason": "w"},
                        headers=p.auth).json["items"]
    assert [r["amount"] for r in only_w] == [-3]


def test_history_streams_as_csv_and_ndjson(client, new_player):
    p = new_player()
    for amount in range(1, 8):
        client.post(f"/v1/players/{p.id}/deposits", json={"amount": amount, "reason": "d"},
                    headers=OPERATOR)
    r = client.get(f"/v1/players/{p.id}/balance-history", headers={**p.auth, "Accept": "text/csv"})
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert [int(row["balance_after"]) for row in rows] == [1, 3, 6, 10, 15, 21, 28]
    r = client.get(f"/v1/players/{p.id}/balance-history",
                   headers={**p.auth, "Accept": "application/x-ndjson"})
    lines = [orjson.loads(line) for line in r.get_data().splitlines()]
    assert [line["amount"] for line in lines] == list(range(1, 8))


def test_idempotent_retry_returns_the_first_response_and_writes_once(client, new_player):
    p = new_player()
    headers = {**OPERATOR, "Idempotency-Key": f"dep-{p.id}"}
    first = client.post(f"/v1/players/{p.id}/deposits", json={"amount": 40, "reason": "d"},
                        headers=headers)
    again = client.post(f"/v1/players/{p.id}/deposits", json={"amount": 40, "reason": "d"},
                        headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.data == first.data and again.headers["Idempotent-Replayed"] == "true"
    assert balance(client, p) == 40
    other = client.post(f"/v1/players/{p.id}/deposits", json={"amount": 41, "reason": "d"},
                        headers=headers)
    assert other.status_code == 422 and other.json["code"] == "idempotency_key_reused"
    assert balance(client, p) == 40
    # The same JSON spelt otherwise, as a client that serialises its body again for its retry
    # sends it: the same request (it was a 422 `idempotency_key_reused`).
    respelt = client.post(f"/v1/players/{p.id}/deposits",
                          data=' {"reason" : "d",\n "amount": 40} ',
                          headers={**headers, "Content-Type": "application/json"})
    assert respelt.status_code == 201 and respelt.data == first.data, respelt.json
    assert balance(client, p) == 40


def test_a_key_kept_with_the_hash_of_its_bytes_still_replays(app, client, new_player):
    """Records kept before bodies were compared as JSON hold the hash of the bytes sent: a
    retry of such a request, within the key's retention, is still the same request."""
    p = new_player()
    key = f"old-{p.id}"
    sent = b'{"amount": 9, "reason": "d"}'
    headers = {**OPERATOR, "Idempotency-Key": key, "Content-Type": "application/json"}
    path = f"/v1/players/{p.id}/deposits"
    first = client.post(path, data=sent, headers=headers)
    assert first.status_code == 201
    as_sent = hashlib.sha256(b"POST\0" + path.encode() + b"\0\0" + sent).digest()
    with app.extensions["banco.pool"].connection() as c:
        assert c.execute("UPDATE idempotency_keys SET request_hash = %s WHERE key = %s",
                         (as_sent, key)).rowcount == 1
    again = client.post(path, data=sent, headers=headers)
    assert again.status_code == 201 and again.data == first.data, again.json
    assert balance(client, p) == 9


def test_a_failed_request_does_not_consume_its_idempotency_key(client, new_player):
    p = new_player()
    headers = {**OPERATOR, "Idempotency-Key": f"wd-{p.id}"}
    body = {"amount": 5, "reason": "w"}
    assert client.post(f"/v1/players/{p.id}/withdrawals", json=body, headers=headers).status_code == 422
    client.post(f"/v1/players/{p.id}/deposits", json={"amount": 5, "reason": "d"}, headers=OPERATOR)
    assert client.post(f"/v1/players/{p.id}/withdrawals", json=body, headers=headers).status_code == 201
    assert balance(client, p) == 0


def test_simultaneous_retries_with_one_key_write_once(app, new_player):
    import threading

    p = new_player()
    statuses: list[int] = []
    bodies: list[bytes] = []
    barrier = threading.Barrier(6)

    def deposit() -> None:
        client = app.test_client()
        barrier.wait()
        r = client.post(f"/v1/players/{p.id}/deposits", json={"amount": 9, "reason": "d"},
                        headers={**OPERATOR, "Idempotency-Key": f"race-{p.id}"})
        statuses.append(r.status_code)
        bodies.append(r.data)

    threads = [threading.Thread(target=deposit) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [201] * 6 and len(set(bodies)) == 1
    assert balance(app.test_client(), p) == 9


def test_events_record_who_and_why(app, client, new_player):
    p = new_player()
    client.post(f"/v1/players/{p.id}/deposits", json={"amount": 3, "reason": "d"},
                headers={**OPERATOR, "Idempotency-Key": "meta-1", "X-Request-ID": "req-meta-1"})
    [event] = [e for e in app.extensions["banco.store"].read_stream(f"player-{p.id}")
               if e.type == "TreasurePosted"]
    assert event.metadata["actor"] == "operator:operator"
    assert event.metadata["request_id"] == "req-meta-1"
    assert event.metadata["idempotency_key"] == "meta-1"
    assert event.metadata["command"] == "Deposit"


def test_a_key_used_before_does_not_come_before_the_method_or_the_callers_rights(client,
                                                                                 new_player):
    """An Idempotency-Key was looked up before the route's method and the caller's role were:
    a DELETE on a route that serves none, or a player's POST where players may not post, was a
    422 `idempotency_key_reused` when the key had been used, where a fresh key got the 405 (with
    `Allow`) or the 403 it should."""
    p = new_player()
    key = f"used-{p.id}"
    made = client.post("/v1/players", json={"name": "Idem"}, headers={**OPERATOR, "Idempotency-Key": key})
    assert made.status_code == 201
    wrong_method = client.delete("/v1/players", json={"name": "Idem"},
                                 headers={**OPERATOR, "Idempotency-Key": key})
    assert wrong_method.status_code == 405, wrong_method.json
    assert "POST" in wrong_method.headers["Allow"]
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
    ticket = client.post("/v1/stream-tickets", json={"stream": "table", "table_id": table},
                         headers={**p.auth, "Idempotency-Key": key})
    assert ticket.status_code == 201, ticket.json
    forbidden = client.post("/v1/auditors", json={"name": "A"}, headers={**p.auth, "Idempotency-Key": key})
    assert forbidden.status_code == 403 and forbidden.json["code"] == "forbidden", forbidden.json
    # Where he may post, the key he used is still his: another request under it is refused.
    reused = client.post("/v1/stream-tickets", json={"stream": "feed"},
                         headers={**p.auth, "Idempotency-Key": key})
    assert reused.status_code == 422 and reused.json["code"] == "idempotency_key_reused", reused.json
