"""Bearer tokens: rotated and revoked at once in every process, logged, never kept in clear."""

from __future__ import annotations

import threading
import uuid

import orjson
import psycopg
import pytest

from service.application.tokens import token_hash
from service.http.app import create_app
from tests.service.conftest import OPERATOR, bearer
from workers.purges import purge


def works(client, token: str) -> int:
    return client.get("/v1/tables", headers=bearer(token)).status_code  # open to every role


def register(client, kind: str, key: str | None = None):
    headers = {**OPERATOR, "Idempotency-Key": key} if key else OPERATOR
    return client.post(f"/v1/{kind}", json={"name": "T"}, headers=headers)


def subject_of(kind: str, r) -> str:
    return r.json["player"]["id"] if kind == "players" else r.json["id"]


def test_a_player_rotates_his_own_token_and_the_operator_revokes_it(client, new_player):
    p = new_player()
    r = client.post(f"/v1/players/{p.id}/token", headers=p.auth)
    assert r.status_code == 201 and r.json["role"] == "player" and r.json["subject"] == p.id
    assert works(client, p.token) == 401 and works(client, r.json["token"]) == 200
    assert client.delete(f"/v1/players/{p.id}/token", headers=OPERATOR).status_code == 204
    assert works(client, r.json["token"]) == 401
    again = client.post(f"/v1/players/{p.id}/token", headers=OPERATOR)
    assert again.status_code == 201 and works(client, again.json["token"]) == 200
    assert client.get(f"/v1/players/{p.id}", headers=bearer(again.json["token"])).status_code == 200


def test_the_operator_rotates_and_revokes_an_auditors_token(client):
    r = register(client, "auditors")
    auditor, first = r.json["id"], r.json["token"]
    seen = client.get(f"/v1/auditors/{auditor}", headers=bearer(first))
    assert seen.status_code == 200 and seen.json["name"] == "T"
    rotated = client.post(f"/v1/auditors/{auditor}/token", headers=OPERATOR)
    assert rotated.status_code == 201
    assert works(client, first) == 401 and works(client, rotated.json["token"]) == 200
    assert client.delete(f"/v1/auditors/{auditor}/token", headers=OPERATOR).status_code == 204
    assert works(client, rotated.json["token"]) == 401


@pytest.mark.parametrize("path", ["/v1/players/pl_nobody/token", "/v1/auditors/au_nobody/token"])
def test_the_token_of_no_one_is_a_404(client, path):
    for method in ("POST", "DELETE"):
        r = client.open(path, method=method, headers=OPERATOR)
        assert r.status_code == 404 and r.json["code"].endswith("_not_found")


def test_a_revoked_token_is_refused_at_once_by_every_process(app, config, new_player):
    other_app = create_app(config)
    try:
        here, there = app.test_client(), other_app.test_client()
        p = new_player()
        assert works(there, p.token) == 200  # the other process has seen the token
        assert here.delete(f"/v1/players/{p.id}/token", headers=OPERATOR).status_code == 204
        assert works(there, p.token) == 401
        r = here.post("/v1/auditors", json={"name": "T"}, headers=OPERATOR)
        assert works(there, r.json["token"]) == 200
        rotated = here.post(f"/v1/auditors/{r.json['id']}/token", headers=OPERATOR).json["token"]
        assert works(there, r.json["token"]) == 401 and works(there, rotated) == 200
    finally:
        other_app.extensions["banco.pool"].close()
        other_app.extensions["banco.export_pool"].close()


def test_every_change_of_a_token_is_an_event_naming_its_id_never_the_token(app, client, new_player):
    p = new_player()
    rotated = client.post(f"/v1/players/{p.id}/token", headers=p.auth).json
    client.delete(f"/v1/players/{p.id}/token", headers=OPERATOR)
    store = app.extensions["banco.store"]
    events = [e for e in store.read_stream(f"player-{p.id}")]
    assert [e.type for e in events] == ["PlayerRegistered", "TokenIssued", "TokenRevoked",
                                        "TokenIssued", "TokenRevoked"]
    first = events[1].data["token_id"]
    assert [e.data["token_id"] for e in events[1:]] == [first, first, rotated["token_id"],
                                                        rotated["token_id"]]
    assert [e.data["actor"] for e in events[1:]] == [
        "operator:operator", f"player:{p.id}", f"player:{p.id}", "operator:operator"]
    assert all(e.data["role"] == "player" and e.data["subject"] == p.id for e in events[1:])
    assert p.token not in str(events) and rotated["token"] not in str(events)

    auditor = register(client, "auditors").json
    client.delete(f"/v1/auditors/{auditor['id']}/token", headers=OPERATOR)
    events = store.read_stream(f"auditor-{auditor['id']}")
    assert [e.type for e in events] == ["AuditorRegistered", "TokenIssued", "TokenRevoked"]
    assert events[0].data == {"auditor_id": auditor["id"], "name": "T"}


@pytest.mark.parametrize("kind", ["players", "auditors"])
def test_a_replayed_registration_issues_a_new_token_in_place_of_the_first(client, kind):
    key = f"reg-{uuid.uuid4().hex}"
    first = register(client, kind, key)
    again = register(client, kind, key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert subject_of(kind, again) == subject_of(kind, first)
    assert works(client, first.json["token"]) == 401 and works(client, again.json["token"]) == 200
    third = register(client, kind, key)
    assert works(client, again.json["token"]) == 401 and works(client, third.json["token"]) == 200
    assert {k: v for k, v in third.json.items() if k != "token"} == {
        k: v for k, v in first.json.items() if k != "token"}


def test_a_replayed_rotation_issues_a_new_token_in_place_of_its_first(client, new_player):
    p = new_player()
    headers = {**p.auth, "Idempotency-Key": "rotate"}
    first = client.post(f"/v1/players/{p.id}/token", headers=headers)
    again = client.post(f"/v1/players/{p.id}/token", headers={**headers, **bearer(first.json["token"])})
    # The key belongs to the caller, and the caller is the same player with his new token.
    assert again.headers["Idempotent-Replayed"] == "true"
    assert works(client, first.json["token"]) == 401 and works(client, again.json["token"]) == 200


def test_a_replay_after_the_token_was_revoked_says_so_and_issues_none(client):
    key = f"reg-{uuid.uuid4().hex}"
    first = register(client, "players", key)
    player = first.json["player"]["id"]
    client.delete(f"/v1/players/{player}/token", headers=OPERATOR)
    again = register(client, "players", key)
    assert again.status_code == 409 and again.json["code"] == "token_revoked"
    assert "/v1/players/{id}/token" in again.json["detail"]
    rotated = client.post(f"/v1/players/{player}/token", headers=OPERATOR).json["token"]
    assert register(client, "players", key).status_code == 409  # a rotation is no way around it
    assert works(client, rotated) == 200


def all_text(app) -> str:
    """Every row of every table of the database, each as PostgreSQL's text of it."""
    with app.extensions["banco.pool"].connection() as c:
        tables = [r[0] for r in c.execute(
            "SELECT format('%I.%I', table_schema, table_name) FROM information_schema.tables"
            " WHERE table_type = 'BASE TABLE'"
            " AND table_schema NOT IN ('pg_catalog', 'information_schema')")]
        return "\n".join(str(row[0]) for t in tables
                         for row in c.execute(f"SELECT t::text FROM {t} t"))


def assert_nowhere(app, tokens: list[str]) -> None:
    text = all_text(app)
    for token in tokens:
        # bytea reads as hex in a row's text.
        assert token not in text and token.encode().hex() not in text


def test_no_token_is_stored_in_clear_anywhere(app, client, new_player):
    tokens = []
    for kind in ("players", "auditors"):
        for key in (None, f"clear-{uuid.uuid4().hex}"):
            r = register(client, kind, key)
            tokens.append(r.json["token"])
            if key:
                tokens.append(register(client, kind, key).json["token"])  # the replay's
    assert_nowhere(app, tokens)
    p = new_player()
    tokens.append(p.token)
    for key in (None, "rotate-clear"):
        headers = {**OPERATOR, "Idempotency-Key": key} if key else OPERATOR
        tokens.append(client.post(f"/v1/players/{p.id}/token", headers=headers).json["token"])
    tokens.append(client.post(f"/v1/players/{p.id}/token",
                              headers={**OPERATOR, "Idempotency-Key": "rotate-clear"}).json["token"])
    auditor = register(client, "auditors").json["id"]
    tokens.append(client.post(f"/v1/auditors/{auditor}/token",
                              headers={**OPERATOR, "Idempotency-Key": "clear-au"}).json["token"])
    assert_nowhere(app, tokens)


def age(app, key: str, seconds: int) -> None:
    with app.extensions["banco.pool"].connection() as c:
        c.execute("UPDATE idempotency_keys SET created_at = created_at - make_interval(secs => %s)"
                  " WHERE key = %s", (seconds, key))


def test_a_key_reused_after_its_retention_is_a_new_request(app, client, new_player):
    p = new_player()
    key = f"late-{p.id}"
    headers = {**OPERATOR, "Idempotency-Key": key}
    body = {"amount": 4, "reason": "d"}
    assert client.post(f"/v1/players/{p.id}/deposits", json=body, headers=headers).status_code == 201
    age(app, key, 24 * 3600 - 60)
    replayed = client.post(f"/v1/players/{p.id}/deposits", json=body, headers=headers)
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    age(app, key, 120)  # now past the default 24 hours, and not purged
    fresh = client.post(f"/v1/players/{p.id}/deposits", json=body, headers=headers)
    assert fresh.status_code == 201 and "Idempotent-Replayed" not in fresh.headers
    assert client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"] == 8
    again = client.post(f"/v1/players/{p.id}/deposits", json=body, headers=headers)
    assert again.headers.get("Idempotent-Replayed") == "true" and again.data == fresh.data
    age(app, key, 25 * 3600)
    other = client.post(f"/v1/players/{p.id}/deposits", json={**body, "amount": 1}, headers=headers)
    assert other.status_code == 201  # expired: not a reuse for another request either


def test_the_purge_deletes_expired_records_only_in_batches_with_workers_side_by_side(
        app, database_url):
    tag = uuid.uuid4().hex
    # Older than any other test's records, so only these are past this retention.
    retention = 1000 * 24 * 3600
    with app.extensions["banco.pool"].connection() as c:
        c.execute(
            "INSERT INTO idempotency_keys (principal, key, request_hash, created_at)"
            " SELECT %s, 'k' || i, '\\x00', now() - make_interval(days => 1000 + i)"
            " FROM generate_series(1, 25) i", (f"purge:{tag}",))
        c.execute("INSERT INTO idempotency_keys (principal, key, request_hash, created_at)"
                  " VALUES (%s, 'young', '\\x00', now() - interval '999 days')", (f"purge:{tag}",))
    counts: list[int] = []

    def purging() -> None:
        with psycopg.connect(database_url) as conn:
            counts.append(purge(conn, "idempotency_keys", retention, batch=3))

    threads = [threading.Thread(target=purging) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(counts) == 25
    with psycopg.connect(database_url) as conn:
        assert purge(conn, "idempotency_keys", retention, batch=3) == 0
        left = conn.execute("SELECT key FROM idempotency_keys WHERE principal = %s",
                            (f"purge:{tag}",)).fetchall()
    assert left == [("young",)]


def test_the_upgrade_takes_the_tokens_out_of_responses_kept_before(servers):
    from psycopg.conninfo import make_conninfo

    from projections import migrate
    from service.application.tokens import new_token

    name = f"banco_mig_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(servers.database_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        with psycopg.connect(make_conninfo(servers.database_url, dbname=name), autocommit=True) as c:
            migrate.upgrade(c, upto=8)
            live, digest = new_token()
            gone, _ = new_token()
            c.execute("INSERT INTO tokens (token_hash, role, subject) VALUES (%s, 'player', 'pl_1')",
                      (digest,))
            for key, token in (("live", live), ("gone", gone)):
                body = b'{"player":{"id":"pl_1"},"token":"%s"}\n' % token.encode()
                c.execute("INSERT INTO idempotency_keys (principal, key, request_hash, status, body)"
                          " VALUES ('operator:operator', %s, '\\x00', 201, %s)", (key, body))
            migrate.upgrade(c)
            rows = dict(c.execute("SELECT key, token_id FROM idempotency_keys").fetchall())
            token_id = c.execute("SELECT token_id FROM tokens").fetchone()
            text = "\n".join(str(r[0]) for r in c.execute("SELECT k::text FROM idempotency_keys k"))
            bodies = [orjson.loads(bytes(r[0])) for r in c.execute("SELECT body FROM idempotency_keys")]
    finally:
        with psycopg.connect(servers.database_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    assert token_id is not None and rows == {"live": token_id[0], "gone": "tk_revoked"}
    assert bodies == [{"player": {"id": "pl_1"}}] * 2
    assert live.encode().hex() not in text and gone.encode().hex() not in text


def test_a_worker_purges_expired_records_as_it_sweeps(app, config):
    from tests.service.test_timeouts import wait_for, worker_process

    principal = f"purge:{uuid.uuid4().hex}"
    pool = app.extensions["banco.pool"]
    with pool.connection() as c:
        c.execute("INSERT INTO idempotency_keys (principal, key, request_hash, created_at)"
                  " VALUES (%s, 'old', '\\x00', now() - interval '2 days'),"
                  " (%s, 'new', '\\x00', now())", (principal, principal))

    def keys() -> list[str]:
        with pool.connection() as c:
            return [r[0] for r in c.execute(
                "SELECT key FROM idempotency_keys WHERE principal = %s", (principal,))]

    with worker_process(config):
        wait_for(lambda: keys() == ["new"])


def test_a_worker_purges_retired_secrets_hashes_past_their_retention(app, client, config, new_player):
    """The hashes kept to name a revoked or replaced key or token in a refusal's log line grew
    by a row at each rotation, revocation and erasure, and nothing purged them: the workers now
    do, past `BANCO_RETIRED_SECRETS_RETENTION_DAYS` (a year unless set)."""
    from tests.service.test_timeouts import wait_for, worker_process

    issued = client.post("/v1/keys", json={"name": "old", "scopes": ["metrics:read"]},
                         headers=OPERATOR).json
    kept = client.post("/v1/keys", json={"name": "kept", "scopes": ["metrics:read"]},
                       headers=OPERATOR).json
    for key in (issued, kept):
        assert client.delete(f"/v1/keys/{key['key']['id']}", headers=OPERATOR).status_code == 204
    old_player, kept_player = new_player("Old"), new_player("Kept")
    for p in (old_player, kept_player):  # each player's first token replaced, so retired
        assert client.post(f"/v1/players/{p.id}/token", headers=p.auth).status_code == 201
    pool = app.extensions["banco.pool"]
    with pool.connection() as c:
        c.execute("UPDATE operator_key_retired_hashes SET retired_at = now() - interval '366 days'"
                  " WHERE key_id = %s", (issued["key"]["id"],))
        c.execute("UPDATE operator_key_retired_hashes SET retired_at = now() - interval '364 days'"
                  " WHERE key_id = %s", (kept["key"]["id"],))
        c.execute("UPDATE retired_token_hashes SET retired_at = now() - interval '366 days'"
                  " WHERE token_hash = %s", (token_hash(old_player.token),))

    def retired() -> tuple[set[str], set[bytes]]:
        with pool.connection() as c:
            keys = {r[0] for r in c.execute(
                "SELECT key_id FROM operator_key_retired_hashes WHERE key_id = ANY(%s)",
                ([issued["key"]["id"], kept["key"]["id"]],))}
            hashes = {bytes(r[0]) for r in c.execute(
                "SELECT token_hash FROM retired_token_hashes WHERE token_hash = ANY(%s)",
                ([token_hash(p.token) for p in (old_player, kept_player)],))}
        return keys, hashes

    assert retired() == ({issued["key"]["id"], kept["key"]["id"]},
                         {token_hash(p.token) for p in (old_player, kept_player)})
    with worker_process(config):
        wait_for(lambda: retired() == ({kept["key"]["id"]},
                                       {token_hash(kept_player.token)}))
