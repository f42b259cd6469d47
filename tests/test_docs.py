"""The README's hand played with curl: docs/play-a-hand.sh, as the README shows it, plays a hand
to its settlement against `banco run`."""

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
SCRIPT = ROOT / "docs" / "play-a-hand.sh"


def test_the_readme_shows_the_script_as_it_is():
    """The README's listing is the script, but for its two settings' defaults."""
    readme = (ROOT / "README.md").read_text()
    listing = readme.split("## Playing a hand with curl", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    script = SCRIPT.read_text().split("set -euo pipefail\n", 1)[1]
    script = script.replace("B=${B:-http://127.0.0.1:8000}", "B=http://127.0.0.1:8000")
    script = script.replace("KEY=${KEY:-$(cat .banco/operator_key)}", "KEY=$(cat .banco/operator_key)")
    assert listing == script


@pytest.fixture
def banco(database_url: str, redis_url: str, tmp_path: Path):
    """`banco run` on the session's servers: its URL and operator key."""
    port, key = free_port(), secrets.token_urlsafe(24)
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "BANCO_OPERATOR_KEY": key, "BANCO_QUEUE": f"banco-docs-{secrets.token_hex(4)}"}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "run", "--data-dir",
                             str(tmp_path / "data"), "--port", str(port), "--workers", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 60)
        yield f"http://127.0.0.1:{port}", key
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def test_the_script_plays_a_hand_to_its_settlement(banco, tmp_path: Path):
    url, key = banco
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "jq").write_text(f"#!/bin/sh\nexec {sys.executable} {ROOT / 'tests' / 'jq_cli.py'} \"$@\"\n")
    (tools / "jq").chmod(0o755)
    assert shutil.which("curl"), "the documentation's examples use curl"
    run = subprocess.run(["bash", str(SCRIPT)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "B": url, "KEY": key,
                                           "PATH": f"{tools}:{os.environ['PATH']}"})
    assert run.returncode == 0, run.stderr

    lines = run.stdout.splitlines()
    assert lines[:2] == ['{"seat":0}', '{"seat":1}']
    moves = [line for line in lines if re.match(r"^(ann|bob) sends \{", line)]
    assert moves and all(json.loads(m.split(" sends ", 1)[1])["type"] for m in moves)
    hand, balance, table = (json.loads(line) for line in lines[-3:])
    # The hand is settled and its deck's commitment opens with the seed now revealed.
    assert hand["status"] == "settled"
    assert re.fullmatch(r"[0-9a-f]{64}", hand["server_seed"])
    assert hand["commitment"] == deck.commitment(hand["server_seed"])
    # Ann keeps in her wallet what she did not bring to the table; no treasure was lost.
    assert balance == {"balance": 50}
    assert table["status"] == "open" and sum(s["balance"] for s in table["seats"]) == 100
