"""A restore of the database takes back no revocation nor rotation: each is kept in the erasure
journal outside the database before it commits (ids and times, never a secret), and
`banco erasures reapply`, the documented step after a restore (docs/operations.md), retires
again every credential it names that the restored database holds valid.

The restore is the one an outside check reproduced it with: a backup taken with `pg_dump -Fc`
while Banco runs, then revocations and rotations through the API, then the backup restored
(`pg_restore`) into a new database. Before this journal, the revoked key, the revoked and the
rotated tokens and the key's old secret all worked again on it."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from service.runtime.config import Config
from tests.conftest import fresh_database
from tests.service.conftest import OPERATOR, ROOT, app_on, bearer, register

# As the journal kept an erasure before credentials were kept: no "kind".
OLD_ERASURE = '{{"player_id": "{}", "actor": "operator:operator", "recorded_at": "{}"}}\n'


def works(client: Any, secret: str) -> int:
    return client.get("/v1/tables", headers=bearer(secret)).status_code  # open to every role


@contextlib.contextmanager
def restored(url: str, backup: Path) -> Iterator[str]:
    """`backup` (`pg_dump -Fc`) restored into a new database beside `url`'s, dropped after."""
    name = f"banco_restored_{os.getpid()}_{secrets.token_hex(3)}"
    admin = make_conninfo(url, dbname="postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    target = make_conninfo(url, dbname=name)
    try:
        done = subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "-d", target,
                               str(backup)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        yield target
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def banco(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "BANCO_ERASURE_JOURNAL"}
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=120, env={**env, "DATABASE_URL": url})


@pytest.fixture
def live(servers: Any) -> Iterator[str]:
    """A database of the test's own, which it backs up whole."""
    with fresh_database(servers.database_url, "banco_live") as url:
        yield url


def test_a_restore_brings_back_no_revoked_or_rotated_credential_once_reapplied(
        config: Config, live: str, tmp_path: Path) -> None:
    journal, backup = tmp_path / "erasures.jsonl", tmp_path / "banco.dump"
    on_live = dataclasses.replace(config, database_url=live, erasure_journal=journal)
    with app_on(on_live) as app:
        client = app.test_client()
        made = client.post("/v1/keys", json={"name": "desk", "scopes": ["tables:read"]},
                           headers=OPERATOR).json
        key_id, key_secret = made["key"]["id"], made["secret"]
        rotated_key = client.post("/v1/keys", json={"name": "till", "scopes": ["tables:read"]},
                                  headers=OPERATOR).json
        ann, bob = register(client, "Ann"), register(client, "Bob")
        auditor = client.post("/v1/auditors", json={"name": "Aud"}, headers=OPERATOR).json
        secrets_shown = [key_secret, rotated_key["secret"], ann.token, bob.token,
                         auditor["token"]]
        for secret in secrets_shown:
            assert works(client, secret) == 200

        dumped = subprocess.run(["pg_dump", "-Fc", "-f", str(backup), "-d", live],
                                capture_output=True, text=True, timeout=120)
        assert dumped.returncode == 0, dumped.stderr

        assert client.delete(f"/v1/keys/{key_id}", headers=OPERATOR).status_code == 204
        again = client.post(f"/v1/keys/{rotated_key['key']['id']}/rotation", headers=OPERATOR)
        assert again.status_code == 200, again.json
        assert client.delete(f"/v1/players/{ann.id}/token", headers=OPERATOR).status_code == 204
        new_bob = client.post(f"/v1/players/{bob.id}/token", headers=OPERATOR)
        assert new_bob.status_code == 201, new_bob.json
        assert client.delete(f"/v1/auditors/{auditor['id']}/token",
                             headers=OPERATOR).status_code == 204
        for secret in secrets_shown:
            assert works(client, secret) == 401
        secrets_shown += [again.json["secret"], new_bob.json["token"]]

    # Kept before each commit: ids and times only, no secret nor its hash.
    text = journal.read_text()
    for secret in secrets_shown:
        assert secret not in text and hashlib.sha256(secret.encode()).hexdigest() not in text
    kinds = sorted(json.loads(line)["kind"] for line in text.splitlines())
    assert kinds == ["operator_key_revoked", "operator_key_rotated"] + ["token_retired"] * 3

    with restored(live, backup) as url:
        on_restored = dataclasses.replace(on_live, database_url=url, erasure_journal=None)
        with app_on(on_restored) as app:  # what the restore brought back
            client = app.test_client()
            assert [works(client, s) for s in secrets_shown[:5]] == [200] * 5

        done = banco(url, "erasures", "reapply", "--journal", str(journal))
        assert done.returncode == 0, done.stderr
        assert "0 erased again, 0 already erased, 0 not in the database" in done.stdout
        assert ("4 tokens or keys revoked again, 1 keys' secrets replaced, 0 not valid in the"
                " database already") in done.stdout, done.stdout
        assert f"revoked again: {key_id}" in done.stdout
        assert f"secret replaced: {rotated_key['key']['id']}" in done.stdout

        with app_on(on_restored) as app:
            client = app.test_client()
            for secret in secrets_shown[:5]:
                assert works(client, secret) == 401, secret
            keys = {k["id"]: k for k in client.get("/v1/keys", headers=OPERATOR).json["items"]}
            assert keys[key_id]["status"] == "revoked"
            # Its secret is one nobody holds; a rotation hands its holder a new one.
            assert keys[rotated_key["key"]["id"]]["status"] == "active"
            handed = client.post(f"/v1/keys/{rotated_key['key']['id']}/rotation",
                                 headers=OPERATOR)
            assert works(client, handed.json["secret"]) == 200
            # The player and the auditor are issued new tokens as ever.
            fresh = client.post(f"/v1/players/{bob.id}/token", headers=OPERATOR).json["token"]
            assert works(client, fresh) == 200

        with psycopg.connect(url) as conn:
            rows = conn.execute(
                "SELECT type, stream_id, data->>'actor', metadata FROM events"
                " WHERE metadata->>'actor' = 'restore' ORDER BY position").fetchall()
        assert sorted((t, s) for t, s, _, _ in rows) == sorted([
            ("OperatorKeyRevoked", f"operator-key-{key_id}"),
            ("OperatorKeyRotated", f"operator-key-{rotated_key['key']['id']}"),
            ("TokenRevoked", f"player-{ann.id}"), ("TokenRevoked", f"player-{bob.id}"),
            ("TokenRevoked", f"auditor-{auditor['id']}")])
        for _, _, actor, metadata in rows:
            assert actor == "restore"
            assert metadata["reapplied"]["actor"] == "operator:operator"
            assert metadata["reapplied"]["recorded_at"]

        listed = banco(url, "erasures", "list", "--journal", str(journal)).stdout
        assert f"  {key_id}  operator key revoked by operator:operator\n" in listed
        assert f"  {rotated_key['key']['id']}  operator key rotated by operator:operator," in listed
        assert f"token of auditor {auditor['id']} revoked by operator:operator\n" in listed
        assert len(listed.splitlines()) == 5 and not any(s in listed for s in secrets_shown)

        # A second reapply changes nothing.
        twice = banco(url, "erasures", "reapply", "--journal", str(journal))
        assert twice.returncode == 0, twice.stderr
        assert ("0 tokens or keys revoked again, 0 keys' secrets replaced, 5 not valid in the"
                " database already") in twice.stdout, twice.stdout
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT count(*) FROM events WHERE metadata->>'actor'"
                                " = 'restore'").fetchone() == (len(rows),)


def test_an_old_journal_of_erasures_only_still_reapplies_and_retires_nothing(
        config: Config, live: str, tmp_path: Path) -> None:
    """A journal written before credentials were kept: its lines, with no kind, are erasures
    as ever; nothing of its players' credentials is retired beyond what the erasure does."""
    backup = tmp_path / "banco.dump"
    on_live = dataclasses.replace(config, database_url=live, erasure_journal=None)
    with app_on(on_live) as app:
        client = app.test_client()
        ann, bob = register(client, "Ann"), register(client, "Bob")
        dumped = subprocess.run(["pg_dump", "-Fc", "-f", str(backup), "-d", live],
                                capture_output=True, text=True, timeout=120)
        assert dumped.returncode == 0, dumped.stderr
    journal = tmp_path / "erasures.jsonl"
    journal.write_text(OLD_ERASURE.format(ann.id, "2026-11-27T12:00:00+00:00"))
    with restored(live, backup) as url:
        done = banco(url, "erasures", "reapply", "--journal", str(journal))
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [
            f"erased again: {ann.id}",
            "1 erased again, 0 already erased, 0 not in the database",
            "0 tokens or keys revoked again, 0 keys' secrets replaced, 0 not valid in the"
            " database already"]
        with app_on(dataclasses.replace(on_live, database_url=url)) as app:
            client = app.test_client()
            assert works(client, ann.token) == 401
            assert works(client, bob.token) == 200
            shown = client.get(f"/v1/players/{ann.id}", headers=OPERATOR).json
            assert (shown["name"], shown["erased"]) == (None, True)
        listed = banco(url, "erasures", "list", "--journal", str(journal))
        assert listed.stdout == f"2026-11-27T12:00:00+00:00  {ann.id}  by operator:operator\n"
