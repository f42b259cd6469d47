"""Checkpoints time-stamped by an RFC 3161 authority outside Banco (`openssl ts` on loopback),
checked with `openssl ts -verify` from what an evidence bundle carries alone."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from service.verification import checkpoints
from tests.service.conftest import OPERATOR, app_on, bearer, running_worker
from tests.service.play import Session, evidence
from tests.service.tsa import Tsa, running_tsa
from workers.checkpoints import record_checkpoint


@pytest.fixture(scope="module")
def tsa() -> Tsa:
    with running_tsa() as found:
        yield found


@pytest.fixture(scope="module")
def worker(config, tsa) -> Iterator[subprocess.Popen[bytes]]:
    """The worker stamps by the same authority, as every process of one deployment does: its
    sweeper records checkpoints too, and a bundle may carry one of those."""
    with running_worker(config, BANCO_TSA_URL=tsa.url) as proc:
        yield proc


def openssl_verify(tsa: Tsa, statement: str, reply: bytes, folder: Path) -> subprocess.CompletedProcess[str]:
    (folder / "statement.json").write_text(statement)
    (folder / "reply.tsr").write_bytes(reply)
    return subprocess.run(["openssl", "ts", "-verify", "-data", "statement.json", "-in", "reply.tsr",
                           "-CAfile", str(tsa.ca), "-untrusted", str(tsa.cert)],
                          cwd=folder, capture_output=True, text=True, timeout=60)


def test_a_hands_bundle_carries_a_stamp_openssl_verifies(config, new_player, worker, tsa, tmp_path):
    stamped = replace(config, tsa_url=tsa.url)
    with app_on(stamped) as app:
        client = app.test_client()
        auditor = client.post("/v1/auditors", json={"name": "t"}, headers=OPERATOR).json["token"]
        session = Session(client, "sette-e-mezzo", [new_player(f"T{i}", deposit=100) for i in range(2)])
        session.open({}, 50)
        hand_id = session.deal()
        session.play_hand()
        session.wait_settled(hand_id)
        bundle = evidence(client, hand_id, bearer(auditor)).json
    # The checkpoint the bundle carries was stamped when it was recorded: the authority was asked
    # for its statement's digest. Whether the request or the worker's sweeper recorded it first is
    # a race, and either is stamped by the same authority.
    digest = hashlib.sha256(bundle["checkpoint"]["statement"].encode()).digest()
    assert [asked for asked in tsa.asked if digest in asked], len(tsa.asked)
    stamp = bundle["checkpoint"]["timestamp"]
    assert stamp["tsa_url"] == tsa.url
    reply = base64.b64decode(stamp["reply"])
    statement = bundle["checkpoint"]["statement"]
    checked = openssl_verify(tsa, statement, reply, tmp_path)
    assert checked.returncode == 0 and "Verification: OK" in checked.stdout, checked.stderr
    # Another root under the same stamp does not verify.
    other = json.loads(statement)
    other["root"] = "00" * 32
    forged = openssl_verify(tsa, json.dumps(other, sort_keys=True, separators=(",", ":")), reply, tmp_path)
    assert forged.returncode != 0


def test_the_workers_checkpoint_is_stamped_and_one_no_authority_answers_is_kept_unstamped(
        config, app, tsa, tmp_path, monkeypatch):
    monkeypatch.setenv("BANCO_TSA_URL", tsa.url)
    found = record_checkpoint(config.database_url)
    with app.extensions["banco.pool"].connection() as c:
        reply, url = c.execute("SELECT timestamp_reply, tsa_url FROM audit_checkpoints WHERE id = %s",
                               (found["id"],)).fetchone()
    assert url == tsa.url
    checked = openssl_verify(tsa, checkpoints.statement(found), bytes(reply), tmp_path)
    assert checked.returncode == 0, checked.stderr

    monkeypatch.setenv("BANCO_TSA_URL", "http://127.0.0.1:9/")  # nothing listens there
    unanswered = record_checkpoint(config.database_url)
    with app.extensions["banco.pool"].connection() as c:
        row = c.execute("SELECT timestamp_reply FROM audit_checkpoints WHERE id = %s",
                        (unanswered["id"],)).fetchone()
    assert row == (None,)
