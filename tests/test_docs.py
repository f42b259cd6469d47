"""The README's listings, run as written against `banco run` started as a new user does, in a
clone with `.venv` and no DATABASE_URL / REDIS_URL (embedded servers, data in `.banco/`): the
first session (a player registered, credited and read), then docs/play-a-hand.sh as the README
lists it, playing a hand to its settlement, the listings that audit that hand (curl and
`.venv/bin/banco`), record and check a checkpoint and export a balance history, and those of the
`banco` command's section."""

from __future__ import annotations

import csv
import json
import os
import re
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


# What a new user's shell has: none of the settings that name servers or the data folder.
UNSET = ("DATABASE_URL", "REDIS_URL", "BANCO_OPERATOR_KEY", "BANCO_DATA_DIR", "BANCO_QUEUE")


def user_env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in UNSET}, **extra}


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder laid out as a clone after `./quickstart run`: `.venv` (this one), `.banco/`."""
    folder = tmp_path_factory.mktemp("clone")
    (folder / ".venv").symlink_to(Path(sys.prefix))
    assert (folder / ".venv" / "bin" / "banco").exists(), "the tests run from the project's .venv"
    return folder


@pytest.fixture(scope="module")
def banco(clone: Path):
    """`banco run` as `./quickstart run` starts it, in the clone: its URL and operator key."""
    port = free_port()
    proc = subprocess.Popen([".venv/bin/banco", "run", "--port", str(port), "--workers", "1"],
                            cwd=clone, env=user_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 90)
        yield f"http://127.0.0.1:{port}", (clone / ".banco" / "operator_key").read_text().strip()
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


def test_the_first_session_registers_credits_and_reads_a_player(banco, clone: Path, tmp_path: Path):
    url, _ = banco
    session = listing("## A first session with curl").replace("B=http://127.0.0.1:8000", f"B={url}")
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", session], cwd=clone,
                         capture_output=True, text=True, timeout=60,
                         env=user_env(PATH=tools(tmp_path)))
    assert run.returncode == 0, run.stderr
    deposit, balance, *csv = run.stdout.splitlines()
    assert json.loads(deposit)["posting"]["amount"] == 100
    assert json.loads(deposit)["balance"]["balance"] == json.loads(balance)["balance"] == 100
    assert csv[0].startswith("position,") and len(csv) == 2  # the header and the deposit


def command_lines(after: str) -> str:
    """The commands (`$ ` lines) of the README's first listing of output after the text `after`."""
    block = README.read_text().split(after, 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    return "".join(line[2:] + "\n" for line in block.splitlines() if line.startswith("$ "))


def output_lines(after: str) -> list[str]:
    """The lines the README shows the commands of that listing printing."""
    block = README.read_text().split(after, 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if not line.startswith("$ ")]


def sections(stdout: str) -> dict[str, list[str]]:
    """The output of a script whose parts begin with `echo '=== name'`, by part."""
    parts: dict[str, list[str]] = {"play": []}
    current = parts["play"]
    for line in stdout.splitlines():
        if line.startswith("=== "):
            current = parts.setdefault(line[4:], [])
        else:
            current.append(line)
    return parts


def test_the_walkthrough_plays_audits_and_exports_a_hand(banco, clone: Path, tmp_path: Path):
    url, key = banco
    home = tmp_path / "home"
    home.mkdir()
    # The play script, then the README's listings that go on from its shell variables, each
    # `banco` line as written: the embedded servers found from `.banco/`, no URL in the environment.
    walkthrough = "\n".join([
        f"source {SCRIPT}",
        "echo '=== audit'", listing("## Auditing a hand"),
        "echo '=== replay'", command_lines("The same from the command line").split("\n")[0],
        "echo '=== verify'", command_lines("The same from the command line").split("\n")[1],
        "echo '=== checkpoint'", listing("**Checkpoints.**"),
        "echo '=== exports'", listing("**Exports.**"),
        "echo '=== feed'", listing("**The feed.**"),
        "echo '=== balances'", listing("**Balances at a point.**")])
    run = subprocess.run(["bash", "-c", walkthrough], cwd=clone, capture_output=True, text=True,
                         timeout=180, env=user_env(B=url, KEY=key, HOME=str(home),
                                                   PATH=tools(tmp_path)))
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    parts = sections(run.stdout)

    lines = parts["play"]
    assert lines[:2] == ['{"seat":0}', '{"seat":1}']
    moves = [line for line in lines if re.match(r"^(ann|bob) sends \{", line)]
    assert moves and all(json.loads(m.split(" sends ", 1)[1])["type"] for m in moves)
    at = next(i for i, line in enumerate(lines) if line.startswith('{"status":"settled"'))
    hand, balance, table = (json.loads(line) for line in lines[at:at + 3])
    # The hand is settled and its deck's commitment opens with the seed now revealed.
    assert hand["status"] == "settled" and re.fullmatch(r"[0-9a-f]{64}", hand["server_seed"])
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
    audit = parts["audit"]
    steps = [json.loads(line) for line in audit if line.startswith('{"step"')]
    assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
    assert steps[0]["type"] == "HandBegan" and "SeedRevealed" in {s["type"] for s in steps}
    verdict = audit[len(steps):]
    checks = [json.loads(line) for line in verdict[1:]]
    assert verdict[0] == "true" and checks and all(c["passed"] for c in checks)
    # The same from the command line, shaped as the README shows it.
    shown = output_lines("The same from the command line")
    replayed = parts["replay"]
    assert re.fullmatch(r"hand hd_\S+ at tb_\S+ \(sette-e-mezzo\); seats: 0 pl_\S+, 1 pl_\S+",
                        replayed[0]), replayed[0]
    assert re.match(r"\s+1 v\d+\s+\S+\s+HandBegan\s+hand 1, commitment ", replayed[1])
    assert {"SeedRevealed", "HandSettled"} <= {line.split()[3] for line in replayed[1:]
                                                if re.match(r"\s+\d+ v", line)}
    verified = parts["verify"]
    assert re.fullmatch(r"hd_\S+ \(sette-e-mezzo at tb_\S+\): passed", verified[0])
    assert verified[1:] == [line for line in shown if line.startswith("  ok ")]
    # The checkpoint, recorded and written where the listing says, then checked against the log.
    digest = home / "banco-digests" / "2026-11-22.json"
    recorded = json.loads(digest.read_text())
    printed = parts["checkpoint"]
    assert json.loads("\n".join(printed[:-1])) == recorded
    assert printed[-1] == (f"log matches {digest}: {recorded['events']} events up to position "
                           f"{recorded['position']}, root {recorded['root']}")
    # Ann's balance history, as CSV and as a chart.
    assert (clone / "ann.csv").read_text().splitlines()[0].startswith("position,")
    assert (clone / "ann.svg").read_text().lstrip().startswith("<svg")
    # The log's feed: its first three events and where to go on, then postings streamed live.
    first = [json.loads(line) for line in parts["feed"][:4]]
    positions = [e["position"] for e in first[:3]]
    assert positions == sorted(positions) and first[3] == positions[-1]
    assert parts["feed"][4:] == ["event: TreasurePosted"] * 3
    # The balances as of now, as CSV: every account, summing to zero.
    closed = parts["balances"]
    assert closed[0] == "account,balance,last_position" and len(closed) == 3
    rows = list(csv.reader((clone / "close.csv").read_text().splitlines()[1:]))
    assert rows and sum(int(r[1]) for r in rows) == 0


def test_the_commands_listing_runs_beside_banco_run(banco, clone: Path, tmp_path: Path):
    """`.venv/bin/banco` in another terminal while `banco run` runs: it finds the embedded
    servers from `.banco/`, and leaves them running."""
    url, _ = banco
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", listing("## The `banco` command")],
                         cwd=clone, capture_output=True, text=True, timeout=120,
                         env=user_env(PATH=tools(tmp_path)))
    assert run.returncode == 0, run.stderr
    queue, lane, *rest = run.stdout.splitlines()
    assert re.fullmatch(r"queue banco: \d+ queued, \d+ scheduled, \d+ started, 0 failed", queue)
    # Every queue /metrics counts: the webhooks' lane too.
    assert re.fullmatch(r"queue banco-webhooks: \d+ queued, \d+ scheduled, \d+ started, 0 failed",
                        lane)
    # The workers of `banco run`: one on the queue, one on its webhooks' lane.
    assert rest[0] == "workers: 2 alive (banco: 1, banco-webhooks: 1)"
    assert re.fullmatch(r"worker \S+ \(banco(-webhooks)?\): (idle|busy)", rest[1])
    assert re.fullmatch(r"rebuilt projections from \d+ events", rest[-1])
    ready = wait_ready(f"{url}/readyz", time.monotonic() + 10)
    assert ready["status"] == "ready", ready


# What the documentation's listings may run: a fresh machine of the project's kind has these
# (Debian's coreutils, curl, jq, openssl; Python, which Banco needs; Node.js for the TypeScript
# SDK), or the README installs them (`banco` in .venv, npm's packages, pgBackRest).
FRESH_MACHINE = {"banco", "base64", "cat", "cd", "curl", "date", "echo", "grep", "head", "jq", "mkdir",
                 "node", "npm", "openssl", "pgbackrest", "pip", "printf", "python", "python3",
                 "sleep", "whoami", ".venv/bin/banco", ".venv/bin/python", "./quickstart"}


def test_the_docs_command_substitutions_need_no_tool_a_fresh_machine_lacks():
    """Each `$(command ...)` of the shell listings of the README and docs/ runs a tool a fresh
    machine has (`uuidgen`, in no Debian image by default, was one)."""
    pages = [README, *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "docs").rglob("*.sh")),
             *sorted((ROOT / "clients").glob("*/README.md"))]
    used = {(m.group(1), page.name) for page in pages
            for m in re.finditer(r"\$\(\s*([\w./-]+)", page.read_text())}
    assert used, "no command substitution found: the check reads nothing"
    assert {(tool, page) for tool, page in used if tool not in FRESH_MACHINE} == set()
