"""The hand page's own deck check (service/http/static/deck_check.js) run on a bundle's hand,
under Node, so that the browser's reading is held to the verifiers' in the same test.

The page reads a hand's replay (GET /v1/hands/{id}/replay), not a bundle: the bundle's events
are given it as the replay shows them to an auditor. The page's modules are plain ES modules
served as `.js`, which Node reads as such only under a package.json saying so: they are copied
beside one."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parents[2] / "service" / "http" / "static"


def replay_of(bundle: dict[str, Any], seat: int | None = None, *,
              operator: bool = False) -> dict[str, Any]:
    """The bundle's hand as its replay lists it: each event a step, engine events by their
    engine's type (`CardsShown`, not `game.CardsShown`) with the engine's data. To a player
    (`seat`) or the operator an engine event visible to others only shows its public data, as
    the replay shows it them; to an auditor (neither) everything."""
    steps = []
    for number, entry in enumerate(bundle["events"], 1):
        body = json.loads(entry["canonical"])
        game = entry["type"].startswith("game.")
        data = body["data"]["data"] if game else body["data"]
        seen = body["data"].get("visible_to") if game else None
        if seen is not None and (operator or seat is not None) and seat not in seen:
            data = body["data"]["public"]
        steps.append({"step": number, "version": entry["version"],
                      "type": entry["type"][5:] if game else entry["type"],
                      "kind": "game" if game else "table", "data": data})
    return {"game": bundle["game"], "steps": steps}


def browser_checks(bundle: dict[str, Any], tmp_path: Path, seat: int | None = None, *,
                   operator: bool = False) -> dict[str, dict[str, Any]]:
    """`checkHand` of deck_check.js on the bundle's hand as `replay_of` shows it to its viewer:
    each check's status and detail, by name (`deck.commitment`, `deck.order`, `deck.dealt`)."""
    here = tmp_path / "static"
    here.mkdir(exist_ok=True)
    for name in ("deck_check.js", "fair_deck.js"):
        shutil.copy(STATIC / name, here / name)
    (here / "package.json").write_text('{"type": "module"}')
    script = ("import { readFileSync } from 'node:fs';"
              f"import {{ checkHand }} from {json.dumps((here / 'deck_check.js').as_uri())};"
              "const replay = JSON.parse(readFileSync(0, 'utf8'));"
              "const r = await checkHand(null, replay);"
              "console.log(JSON.stringify(r.checks.map((c) => [c.name, c.passed, c.detail])));")
    run = subprocess.run(["node", "--input-type=module", "-e", script],
                         input=json.dumps(replay_of(bundle, seat, operator=operator)),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    status = {True: "passed", False: "failed", None: "skipped"}
    return {name: {"status": status[passed], "detail": detail}
            for name, passed, detail in json.loads(run.stdout)}
