"""`banco replay`, `banco verify` and `banco checkpoint` on a played hand, and digests over HTTP."""

from __future__ import annotations

import os
import subprocess
import sys

import orjson
import pytest

from tests.service.conftest import OPERATOR, ROOT, bearer
from tests.service.tamper import edit, log_copy


def banco(*args: str, url: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=ROOT, env=env,
                          input=stdin, capture_output=True, text=True, timeout=120)


def test_replay_prints_a_readable_transcript(database_url, played):
    out = banco("replay", played["hand"], url=database_url)
    assert out.returncode == 0, out.stderr
    assert "HandBegan" in out.stdout and "CardDealt" in out.stdout and "totals:" in out.stdout
    assert "TreasurePosted" in out.stdout and "SeedRevealed" in out.stdout
    stepped = banco("replay", played["hand"], "--step", url=database_url, stdin="\n\nq\n")
    assert stepped.returncode == 0, stepped.stderr
    assert [line.split()[0] for line in stepped.stdout.splitlines()[1:]
            if line[:4].strip().isdigit()] == ["1", "2", "3"]
    assert banco("replay", "hd_nope", url=database_url).returncode == 2


def test_verify_a_hand_a_table_and_everything(database_url, played):
    one = banco("verify", played["hand"], url=database_url)
    assert one.returncode == 0, one.stdout + one.stderr
    assert one.stdout.count("  ok  ") == 8 and "passed" in one.stdout
    table = banco("verify", "--table", played["stream"][len("table-"):], url=database_url)
    assert table.returncode == 0 and "1 of 1 hands passed" in table.stdout
    assert "verifying hands" in table.stderr  # the progress bar
    everything = banco("verify", "--all", url=database_url)
    assert everything.returncode == 0, everything.stdout
    assert banco("verify", url=database_url).returncode == 2
    as_json = banco("verify", played["hand"], "--json", url=database_url)
    report = orjson.loads(as_json.stdout)
    assert report["passed"] and report["checks"][0]["evidence"]["server_seed"]


def test_verify_names_what_a_tampered_copy_broke(database_url, played):
    with log_copy(database_url) as copy:
        stream = played["stream"]
        version = copy.execute("SELECT min(version) FROM events WHERE stream_id = %s"
                               " AND type = 'game.CardDealt'", (stream,)).fetchone()[0]
        edit(copy, stream, version, lambda d: d["data"].update(card="Ks" if d["data"]["card"] != "Ks"
                                                               else "As"), rehash=False)
        out = banco("verify", played["hand"], url=copy.info.dsn)
    assert out.returncode == 1
    assert f"FAIL integrity.chain: the stored hash does not match the event at {stream} v{version}" \
        in out.stdout
    assert f"FAIL deck.dealt: a card dealt is not the deck's next card at {stream} v{version}" in out.stdout


def test_a_saved_checkpoint_proves_the_log_unchanged_or_not(database_url, played, tmp_path):
    digest = tmp_path / "digest.json"
    made = banco("checkpoint", "-o", str(digest), url=database_url)
    assert made.returncode == 0, made.stderr
    saved = orjson.loads(digest.read_bytes())
    assert saved["events"] > 0 and len(saved["root"]) == 64
    same = banco("verify", "--against", str(digest), url=database_url)
    assert same.returncode == 0 and "log matches" in same.stdout
    with log_copy(database_url) as copy:
        assert banco("verify", "--against", str(digest), url=copy.info.dsn).returncode == 0
        # The last event the digest covers (a concurrent transaction may hold its watermark back).
        stream, version = copy.execute(
            "SELECT stream_id, version FROM events WHERE (txid, position) <= (%s::text::xid8, %s)"
            " ORDER BY txid DESC, position DESC LIMIT 1",
            (str(saved["txid"]), saved["position"])).fetchone()
        edit(copy, stream, version, lambda d: d.update(tampered=True))
        changed = banco("verify", "--against", str(digest), url=copy.info.dsn)
    assert changed.returncode == 1 and "log DIFFERS" in changed.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    refused = banco("verify", "--against", str(bad), url=database_url)
    assert refused.returncode == 2 and f'{bad} is not a checkpoint file: it has no "txid"' \
        in refused.stderr, refused.stderr


@pytest.fixture
def auditor(client) -> str:
    return str(client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"])


def test_checkpoints_over_http(client, auditor, new_player):
    made = client.post("/v1/audit/checkpoints", headers=OPERATOR)
    assert made.status_code == 201, made.json
    listed = client.get("/v1/audit/checkpoints", headers=bearer(auditor)).json["items"]
    assert listed[0]["id"] == made.json["id"] and listed[0]["root"] == made.json["root"]
    assert client.post("/v1/audit/checkpoints", headers=bearer(auditor)).status_code == 403
    player = new_player("Nosy")
    assert client.get("/v1/audit/checkpoints", headers=player.auth).status_code == 403


def test_the_checkpoint_job_records_a_digest_the_log_still_matches(client, auditor, database_url,
                                                                   app):
    from service.verification.checkpoints import compare
    from workers.checkpoints import record_checkpoint

    made = record_checkpoint(database_url)
    listed = client.get("/v1/audit/checkpoints", headers=bearer(auditor)).json["items"]
    assert listed[0]["id"] == made["id"] and listed[0]["events"] == made["events"]
    with app.extensions["banco.pool"].connection() as conn:
        assert compare(conn, made)["passed"]
        assert not compare(conn, {**made, "root": "00" * 32})["passed"]


def test_the_transcript_prints_totals_in_the_display_form_the_replay_carries():
    """001_6b5bbd2473d5c47f.txt: a figure is ½ and 7½ is 15 half-points; the transcript prints
    what the replay's display forms say, and nothing for a hand it shows no total of."""
    from service.verification.transcript import describe, totals

    state = {"hands": [{"seat": 1, "cards": ["Kd"], "stake": 2, "total": 1, "total_display": "0½"},
                       {"seat": 2, "cards": [None]}],
             "bank": {"seat": 0, "cards": ["7s", "Kd"], "total": 15, "total_display": "7½"}}
    assert totals(state) == "seat 1: 0½ (bet 2); bank: 7½"
    step = {"type": "CallDecided", "data": {"seat": 1, "total": 20, "total_display": "10",
                                            "meneur_total": 13, "meneur_total_display": "6½"}}
    assert describe(step) == "seat 1 total=10 meneur_total=6½"
