"""The README's curl listings, run as written against `banco run`: the first session (a player
registered, credited and read), then docs/play-a-hand.sh as the README lists it, playing a hand
to its settlement, and the listings that audit that hand and export a balance history."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from games import deck
from tests.test_cli import free_port, wait_ready

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SCRIPT = ROOT / "docs" / "play-a-hand.sh"


def listing(after: str) -> str:
    """The README's first shell listing after the text `after`."""
    return README.read_text().split(after, 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]


def test_the_readme_shows_the_script_as_it_is():
    """The README's listing is the script, but for its two settings' defaults."""
    script = SCRIPT.read_text().split("set -euo pipefail\n", 1)[1]
    script = script.replace("B=${B:-http://127.0.0.1:8000}", "B=http://127.0.0.1:8000")
    script = script.replace("KEY=${KEY:-$(cat .banco/operator_key)}", "KEY=$(cat .banco/operator_key)")
    assert listing("## Playing a hand with curl") == script


@pytest.fixture(scope="module")
def banco(database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory):
    """`banco run` on the session's servers: its URL, operator key and database."""
    tmp_path = tmp_path_factory.mktemp("banco")
    port, key = free_port(), secrets.token_urlsafe(24)
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "BANCO_OPERATOR_KEY": key, "BANCO_QUEUE": f"banco-docs-{secrets.token_hex(4)}"}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "run", "--data-dir",
                             str(tmp_path / "data"), "--port", str(port), "--workers", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 60)
        yield f"http://127.0.0.1:{port}", key, database_url
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def tools(tmp_path: Path) -> str:
    """A PATH with `jq` (tests/jq_cli.py) and `banco` first; curl is the machine's."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "jq").write_text(f"#!/bin/sh\nexec {sys.executable} {ROOT / 'tests' / 'jq_cli.py'} \"$@\"\n")
    (folder / "jq").chmod(0o755)
    assert shutil.which("curl"), "the documentation's examples use curl"
    return f"{folder}:{Path(sys.executable).parent}:{os.environ['PATH']}"


def test_the_first_session_registers_credits_and_reads_a_player(banco, tmp_path: Path):
    url, key, _ = banco
    (tmp_path / ".banco").mkdir()
    (tmp_path / ".banco" / "operator_key").write_text(key + "\n")  # where `banco run` keeps it
    session = listing("## A first session with curl").replace("B=http://127.0.0.1:8000", f"B={url}")
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", session], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PATH": tools(tmp_path)})
    assert run.returncode == 0, run.stderr
    deposit, balance, *csv = run.stdout.splitlines()
    assert json.loads(deposit)["posting"]["amount"] == 100
    assert json.loads(deposit)["balance"]["balance"] == json.loads(balance)["balance"] == 100
    assert csv[0].startswith("position,") and len(csv) == 2  # the header and the deposit


def test_the_walkthrough_plays_audits_and_exports_a_hand(banco, tmp_path: Path):
    url, key, database_url = banco
    # The play script, then the README's listings that go on from its shell variables.
    walkthrough = f"source {SCRIPT}\n{listing('## Auditing a hand')}{listing('**Exports.**')}"
    run = subprocess.run(["bash", "-c", walkthrough], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "B": url, "KEY": key,
                                           "PATH": tools(tmp_path), "DATABASE_URL": database_url})
    assert run.returncode == 0, run.stderr

    lines = run.stdout.splitlines()
    assert lines[:2] == ['{"seat":0}', '{"seat":1}']
    moves = [line for line in lines if re.match(r"^(ann|bob) sends \{", line)]
    assert moves and all(json.loads(m.split(" sends ", 1)[1])["type"] for m in moves)
    at = next(i for i, line in enumerate(lines) if line.startswith('{"status":"settled"'))
    hand, balance, table = (json.loads(line) for line in lines[at:at + 3])
    # The hand is settled and its deck's commitment opens with the seed now revealed.
    assert re.fullmatch(r"[0-9a-f]{64}", hand["server_seed"])
    assert hand["commitment"] == deck.commitment(hand["server_seed"])
    # Ann keeps in her wallet what she did not bring to the table; no treasure was lost.
    assert balance == {"balance": 50}
    assert table["status"] == "open" and sum(s["balance"] for s in table["seats"]) == 100
    # The hand's treasure moves: Bob's bet, then what was paid during the hand (a bust) and what
    # the settlement paid, its postings; together they make the seats' balances.
    moved = [json.loads(line) for line in lines[at + 3:] if line.startswith('{"reason"')]
    assert moved[0]["reason"] == "bet"
    assert moved[len(moved) - len(hand["postings"]):] == hand["postings"]
    if not hand["postings"]:  # Bob busted: his stake was paid to Ann's seat during the hand
        assert [m["reason"] for m in moved] == ["bet", "bust"]
    balances = {s["player_id"]: s["balance"] for s in table["seats"]}
    for m in moved:
        for side, sign in (("from", -1), ("to", 1)):
            if m[side].startswith("seat:"):
                balances[m[side].rsplit(":", 1)[1]] -= sign * m["amount"]
    assert set(balances.values()) == {50}, balances  # every seat began with its buy-in
    # The auditor's replay, step by step, then the verification: passed, check by check.
    audit = lines[at + 3 + len(moved):]
    steps = [json.loads(line) for line in audit if line.startswith('{"step"')]
    assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
    assert steps[0]["type"] == "HandBegan" and "SeedRevealed" in {s["type"] for s in steps}
    verdict = audit[len(steps):]
    checks = [json.loads(line) for line in verdict[1:]]
    assert verdict[0] == "true" and checks and all(c["passed"] for c in checks)
    # Ann's balance history, as CSV and as a chart.
    assert (tmp_path / "ann.csv").read_text().splitlines()[0].startswith("position,")
    assert (tmp_path / "ann.svg").read_text().lstrip().startswith("<svg")
