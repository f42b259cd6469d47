"""The operator's scoped keys over HTTP on PostgreSQL: shown once, kept only hashed, refused at
once when rotated away, revoked or expired, named (by id, never by secret) in events and log
lines; the bootstrap key holds every scope. (Which route needs which scope:
tests/service/test_authorization.py.)"""

from __future__ import annotations

import hashlib
import logging
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from service.application.scopes import SCOPES
from tests.service.conftest import OPERATOR, bearer
from tests.service.test_tokens import assert_nowhere


def make(client, *scopes: str, name: str = "desk", headers: dict[str, str] = OPERATOR,
         **extra: Any):
    return client.post("/v1/keys", json={"name": name, "scopes": list(scopes), **extra},
                       headers=headers)


def metrics(client, secret: str) -> int:
    return client.get("/metrics", headers=bearer(secret)).status_code


def listed(client, key_id: str) -> dict[str, Any]:
    [key] = [k for k in client.get("/v1/keys", headers=OPERATOR).json["items"]
             if k["id"] == key_id]
    return key


def test_a_key_is_shown_once_kept_hashed_and_works_for_its_scopes_only(app, client):
    made = make(client, "metrics:read", name="monitoring")
    assert made.status_code == 201, made.json
    key, secret = made.json["key"], made.json["secret"]
    assert secret.startswith("bok_") and key["status"] == "active" and key["scopes"] == ["metrics:read"]
    assert metrics(client, secret) == 200
    refused = client.get("/v1/players", headers=bearer(secret))
    assert refused.status_code == 403 and refused.json["code"] == "missing_scope"
    assert refused.json["scope"] == "players:read" and key["id"] in refused.json["detail"]
    me = client.get("/v1/me", headers=bearer(secret)).json
    assert me == {"role": "operator", "id": key["id"], "name": "monitoring", "key_id": key["id"],
                  "scopes": ["metrics:read"]}
    shown = listed(client, key["id"])
    assert "secret" not in shown and shown["name"] == "monitoring"
    assert client.get(f"/v1/keys/{key['id']}", headers=OPERATOR).json == shown
    with app.extensions["banco.pool"].connection() as c:
        [stored] = c.execute("SELECT key_hash FROM operator_keys WHERE key_id = %s",
                             (key["id"],)).fetchone() or [None]
    assert bytes(stored) == hashlib.sha256(secret.encode()).digest()
    assert_nowhere(app, [secret])


def test_the_bootstrap_key_holds_every_scope(client):
    me = client.get("/v1/me", headers=OPERATOR).json
    assert me == {"role": "operator", "id": "operator", "name": None, "key_id": "bootstrap",
                  "scopes": list(SCOPES)}
    assert make(client, *SCOPES).status_code == 201


def test_a_rotated_a_revoked_and_an_expired_key_are_refused_at_once(app, client):
    key_id, first = (lambda j: (j["key"]["id"], j["secret"]))(make(client, "metrics:read").json)
    rotated = client.post(f"/v1/keys/{key_id}/rotation", headers=OPERATOR)
    assert rotated.status_code == 200 and rotated.json["key"]["id"] == key_id
    second = rotated.json["secret"]
    assert metrics(client, first) == 401 and metrics(client, second) == 200
    assert listed(client, key_id)["rotated_at"] is not None
    assert client.delete(f"/v1/keys/{key_id}", headers=OPERATOR).status_code == 204
    assert metrics(client, second) == 401
    assert listed(client, key_id)["status"] == "revoked"
    again = client.post(f"/v1/keys/{key_id}/rotation", headers=OPERATOR)
    assert again.status_code == 409 and again.json["code"] == "key_revoked"
    assert client.delete(f"/v1/keys/{key_id}", headers=OPERATOR).status_code == 204

    soon = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    expiring = make(client, "metrics:read", expires_at=soon).json
    assert metrics(client, expiring["secret"]) == 200
    with app.extensions["banco.pool"].connection() as c:  # an hour later
        c.execute("UPDATE operator_keys SET expires_at = now() - interval '1 second'"
                  " WHERE key_id = %s", (expiring["key"]["id"],))
    assert metrics(client, expiring["secret"]) == 401
    assert listed(client, expiring["key"]["id"])["status"] == "expired"
    late = client.post(f"/v1/keys/{expiring['key']['id']}/rotation", headers=OPERATOR)
    assert late.status_code == 409 and late.json["code"] == "key_expired"


def test_every_change_of_a_key_is_an_event_of_its_stream(app, client):
    admin = make(client, "keys:admin", "metrics:read", name="key desk").json
    admin_id, auth = admin["key"]["id"], bearer(admin["secret"])
    made = make(client, "metrics:read", headers=auth).json
    key_id = made["key"]["id"]
    client.post(f"/v1/keys/{key_id}/rotation", headers=auth)
    client.delete(f"/v1/keys/{key_id}", headers=OPERATOR)
    events = app.extensions["banco.store"].read_stream(f"operator-key-{key_id}")
    assert [e.type for e in events] == ["OperatorKeyCreated", "OperatorKeyRotated",
                                        "OperatorKeyRevoked"]
    assert events[0].data == {"key_id": key_id, "name": "desk", "scopes": ["metrics:read"],
                              "expires_at": None, "actor": f"operator:{admin_id}"}
    assert [(e.data["actor"], e.metadata["key_id"]) for e in events] == [
        (f"operator:{admin_id}", admin_id), (f"operator:{admin_id}", admin_id),
        ("operator:operator", "bootstrap")]
    assert made["secret"] not in str(events)


def test_a_key_s_times_are_the_same_in_its_answers_its_listing_and_its_events(app, client):
    made = make(client, "metrics:read").json["key"]
    key_id = made["id"]
    assert listed(client, key_id)["created_at"] == made["created_at"]
    rotated = client.post(f"/v1/keys/{key_id}/rotation", headers=OPERATOR).json["key"]
    shown = client.get(f"/v1/keys/{key_id}", headers=OPERATOR).json
    assert (shown["created_at"], shown["rotated_at"]) == (made["created_at"],
                                                          rotated["rotated_at"])
    assert rotated["created_at"] == made["created_at"]
    assert client.delete(f"/v1/keys/{key_id}", headers=OPERATOR).status_code == 204
    revoked_at = listed(client, key_id)["revoked_at"]
    events = app.extensions["banco.store"].read_stream(f"operator-key-{key_id}")
    assert [e.recorded_at.isoformat() for e in events] == [
        made["created_at"], rotated["rotated_at"], revoked_at]


def test_a_key_grants_only_the_scopes_it_holds(client):
    admin = bearer(make(client, "keys:admin").json["secret"])
    refused = make(client, "keys:admin", "treasure:write", headers=admin)
    assert refused.status_code == 403 and refused.json["code"] == "scope_not_held"
    assert refused.json["scope"] == "treasure:write"
    assert make(client, "keys:admin", headers=admin).status_code == 201


def test_a_key_rotates_only_keys_whose_scopes_it_holds(client):
    """A new secret hands the key's scopes to whoever gets it: a key with `keys:admin` alone
    that rotated a key holding `treasure:write` could then mint treasure. The key refused keeps
    its secret, which still works."""
    admin = bearer(make(client, "keys:admin").json["secret"])
    cashier = make(client, "treasure:write", "players:read", name="cashier").json
    refused = client.post(f"/v1/keys/{cashier['key']['id']}/rotation", headers=admin)
    assert refused.status_code == 403 and refused.json["code"] == "scope_not_held"
    assert refused.json["missing"] == ["players:read", "treasure:write"]
    assert listed(client, cashier["key"]["id"])["rotated_at"] is None
    assert client.get("/v1/players", headers=bearer(cashier["secret"])).status_code == 200
    its_own = make(client, "keys:admin", headers=admin).json
    rotated = client.post(f"/v1/keys/{its_own['key']['id']}/rotation", headers=admin)
    assert rotated.status_code == 200 and rotated.json["secret"] != its_own["secret"]


def test_a_key_made_by_one_that_expires_expires_no_later(client):
    """A key with `keys:admin` that expires in an hour made one that never expired: temporary
    access made permanent."""
    now = datetime.now(UTC)
    admin = make(client, "keys:admin", "metrics:read", expires_at=(now + timedelta(hours=1)
                                                                   ).isoformat()).json
    limit = datetime.fromisoformat(admin["key"]["expires_at"])
    made = make(client, "metrics:read", headers=bearer(admin["secret"]))
    assert made.status_code == 201 and datetime.fromisoformat(made.json["key"]["expires_at"]) == limit
    before = client.get("/v1/keys", headers=OPERATOR).json["items"]
    later = make(client, "metrics:read", headers=bearer(admin["secret"]),
                 expires_at=(now + timedelta(hours=2)).isoformat())
    assert later.status_code == 422 and later.json["code"] == "expiry_too_far", later.json
    assert datetime.fromisoformat(later.json["limit"]) == limit
    assert client.get("/v1/keys", headers=OPERATOR).json["items"] == before
    sooner = make(client, "metrics:read", headers=bearer(admin["secret"]),
                  expires_at=(now + timedelta(minutes=30)).isoformat())
    assert sooner.status_code == 201
    # The bootstrap key, which never expires, still makes keys that never do.
    assert make(client, "metrics:read").json["key"]["expires_at"] is None


def test_a_key_that_cannot_be_made_is_a_422_that_keeps_nothing(client):
    before = client.get("/v1/keys", headers=OPERATOR).json["items"]
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    for body in ({"name": "k", "scopes": ["root"]}, {"name": "k", "scopes": []},
                 {"name": "", "scopes": ["metrics:read"]},
                 {"name": "k", "scopes": ["metrics:read"], "expires_at": past},
                 {"name": "k", "scopes": ["metrics:read"], "expires_at": "2030-01-01T00:00:00"},
                 {"name": "k", "scopes": ["metrics:read"],
                  "expires_at": "9999-12-31T23:00:00-14:00"},
                 {"name": "a\u0000b", "scopes": ["metrics:read"]}):
        r = client.post("/v1/keys", json=body, headers=OPERATOR)
        assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json", body
    after = client.get("/v1/keys", headers=OPERATOR)
    assert after.status_code == 200 and after.json["items"] == before
    for method, path in (("GET", "/v1/keys/ok_nobody"), ("DELETE", "/v1/keys/ok_nobody"),
                         ("POST", "/v1/keys/ok_nobody/rotation")):
        r = client.open(path, method=method, headers=OPERATOR)
        assert r.status_code == 404 and r.json["code"] == "key_not_found"


def test_events_and_log_lines_name_the_key_that_acted_never_its_secret(app, client, caplog):
    made = make(client, "players:write", "treasure:write").json
    key_id, secret = made["key"]["id"], made["secret"]
    caplog.set_level(logging.INFO, logger="banco.http")
    player = client.post("/v1/players", json={"name": "Keyed"}, headers=bearer(secret)).json
    client.post(f"/v1/players/{player['player']['id']}/deposits",
                json={"amount": 5, "reason": "desk"}, headers=bearer(secret))
    events = app.extensions["banco.store"].read_stream(f"player-{player['player']['id']}")
    assert events and all(e.metadata["key_id"] == key_id for e in events)
    assert all(e.metadata["actor"] == f"operator:{key_id}" for e in events)
    lines = [r for r in caplog.records if getattr(r, "path", "") == "/v1/players"]
    assert lines and all(r.key_id == key_id and r.actor == f"operator:{key_id}" for r in lines)
    assert secret not in caplog.text and all(secret not in str(r.__dict__) for r in caplog.records)
    # A player's request names his token's id.
    caplog.clear()
    client.get("/v1/me", headers=bearer(player["token"]))
    [line] = [r for r in caplog.records if getattr(r, "path", "") == "/v1/me"]
    [issued] = [e.data["token_id"] for e in events if e.type == "TokenIssued"]
    assert line.key_id == issued


def test_a_replayed_creation_gives_the_key_a_new_secret_in_place_of_the_first(app, client):
    headers = {**OPERATOR, "Idempotency-Key": f"key-{uuid.uuid4().hex}"}
    first = make(client, "metrics:read", headers=headers)
    again = make(client, "metrics:read", headers=headers)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json["key"]["id"] == first.json["key"]["id"]
    assert metrics(client, first.json["secret"]) == 401
    assert metrics(client, again.json["secret"]) == 200
    assert_nowhere(app, [first.json["secret"], again.json["secret"]])
    client.delete(f"/v1/keys/{first.json['key']['id']}", headers=OPERATOR)
    gone = make(client, "metrics:read", headers=headers)
    assert gone.status_code == 409 and gone.json["code"] == "key_revoked"


def test_a_scoped_key_follows_a_table_with_a_ticket_while_it_works(client):
    table = client.post("/v1/tables", json={"game": "cassino"}, headers=OPERATOR).json["id"]
    reader = make(client, "tables:read").json
    ticket = client.post("/v1/stream-tickets", json={"stream": "table", "table_id": table},
                         headers=bearer(reader["secret"]))
    assert ticket.status_code == 201
    url = ticket.json["url"] + "&timeout=0.1"
    opened = client.get(url)
    opened.close()
    assert opened.status_code == 200
    feed = client.post("/v1/stream-tickets", json={"stream": "feed"},
                       headers=bearer(reader["secret"]))
    assert feed.status_code == 403 and feed.json["scope"] == "audit:read"
    client.delete(f"/v1/keys/{reader['key']['id']}", headers=OPERATOR)
    refused = client.get(url)
    assert refused.status_code == 401 and refused.json["code"] == "invalid_ticket"
