"""The published vectors (`verifier/vectors/`) against both standalone verifiers and against
Banco's own reading of a bundle: each good one passes everywhere, each tampered one fails its
named check everywhere; and the verifiers' pieces checked on their own."""

from __future__ import annotations

import ast
import base64
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from service.verification.bundle_check import check

ROOT = Path(__file__).resolve().parents[2]
VERIFIER = ROOT / "verifier"
VECTORS = VERIFIER / "vectors"
KEY = VECTORS / "house-key.json"
FILES = sorted(p for p in VECTORS.glob("*.json") if p.name != "house-key.json")


def python_verifier(bundle: Path, key: Path | None = KEY, *options: str) -> dict[str, Any]:
    """The Python verifier's outcome, run from its own folder as a separate program."""
    env = {**os.environ, "PYTHONPATH": str(VERIFIER)}
    args = [sys.executable, "-m", "banco_verifier.cli", "--json", *options, str(bundle)]
    out = subprocess.run(args + (["--key", str(key)] if key else []), capture_output=True, text=True,
                         env=env, cwd=VERIFIER, timeout=60)
    assert out.returncode in (0, 1), out.stderr
    return dict(json.loads(out.stdout))


def node_verifier(bundle: Path, key: Path | None = KEY, *options: str) -> dict[str, Any]:
    args = ["node", str(VERIFIER / "js" / "verify.mjs"), "--json", *options, str(bundle)]
    out = subprocess.run(args + (["--key", str(key)] if key else []), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode in (0, 1), out.stderr
    return dict(json.loads(out.stdout))


NOT_KEYS: dict[str, tuple[str | None, str]] = {
    "JSON without public_key": ('{"key": "abc"}', 'has no "public_key"'),
    "JSON that is cut short": ('{"public_key": "ab', "is not JSON"),
    "a JSON list": ('{"public_key": ["abc"]}', 'has no "public_key"'),
    "a short key": ("YWJj", "an Ed25519 public key is 32 bytes"),
    # A misspelled name (`house-kee.json`) was read as base64: "a key is 32 bytes".
    "a file that is not there": (None, "house-key.json cannot be read (no such file)"),
    # Python said "(Is a directory)", Node "(EISDIR: illegal operation on a directory, read)".
    "a folder": ("", "house-key.json cannot be read (a folder, not a file)"),
}


@pytest.mark.parametrize("case", NOT_KEYS)
@pytest.mark.parametrize("verifier", ["python", "node"])
def test_a_key_file_that_holds_no_key_is_one_line_in_both_verifiers(case, verifier, tmp_path):
    """Not a traceback (Python's KeyError: 'public_key', node's TypeError): the file and what
    it lacks, exit status 2 as for a bundle that cannot be read."""
    text, why = NOT_KEYS[case]
    key = tmp_path / "house-key.json"
    if text == "":
        key.mkdir()
    elif text is not None:
        key.write_text(text)
    bundle = FILES[0]
    if verifier == "python":
        args = [sys.executable, "-m", "banco_verifier.cli", str(bundle), "--key", str(key)]
    else:
        args = ["node", str(VERIFIER / "js" / "verify.mjs"), str(bundle), "--key", str(key)]
    out = subprocess.run(args, capture_output=True, text=True, cwd=VERIFIER, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(VERIFIER)})
    assert out.returncode == 2 and out.stdout == "", out.stdout + out.stderr
    [line] = out.stderr.splitlines()
    assert line.startswith("--key: ") and why in line, line


@pytest.mark.parametrize("verifier", ["python", "node"])
def test_a_key_given_as_base64_is_taken_and_a_short_one_refused(verifier):
    """`--key` takes the key itself, in base64, when no file has that name."""
    public = json.loads(KEY.read_text())["public_key"]
    out = run_cli(verifier, FILES[0], "--key", public)
    assert out.returncode in (0, 1) and "not pinned" not in out.stdout, out.stdout + out.stderr
    assert one_line(run_cli(verifier, FILES[0], "--key", "YWJj")) == \
        "--key: YWJj is no file, and as base64 not an Ed25519 public key (32 bytes)"


@pytest.mark.parametrize("verifier", ["python", "node"])
def test_an_empty_key_is_said_so_alike_by_both_verifiers(verifier):
    """`--key ""` (a variable that was not set) was read by Python as the current folder
    (`--key:  cannot be read (Is a directory)`) and by Node as base64 of no bytes."""
    assert one_line(run_cli(verifier, FILES[0], "--key", "")) == \
        "--key: empty: give the house's public key (base64) or a file that holds it"


def expected_failure(path: Path) -> str | None:
    """`fail-deck-order.json` must fail `deck`; a `good-` one nothing."""
    return path.stem.split("-")[1] if path.stem.startswith("fail-") else None


def test_the_vectors_cover_every_check():
    assert {p.stem for p in FILES if p.stem.startswith("good-")} == {
        "good-auditor", "good-player", "good-cassino-auditor", "good-cassino-player",
        "good-pirate-pairs-auditor", "good-pirate-pairs-player", "good-casino-pirate-no-bet-auditor",
        "good-casino-pirate-no-bet-player", "good-casino-pirate-no-bet-operator"}
    assert {expected_failure(p) for p in FILES} - {None} == {
        "signature", "attestation", "inclusion", "chain", "contents", "commitment", "deck", "replay",
        "settlement"}


@pytest.mark.parametrize("vector", FILES, ids=[p.stem for p in FILES])
def test_each_vector_fails_its_named_check_in_both_verifiers_alike(vector):
    py, js = python_verifier(vector), node_verifier(vector)
    # The two readings agree check by check, not just on the verdict.
    assert {k: v["status"] for k, v in py["checks"].items()} == \
        {k: v["status"] for k, v in js["checks"].items()}
    named = expected_failure(vector)
    failed = {k for k, v in py["checks"].items() if v["status"] == "failed"}
    if named is None:
        assert py["ok"] and js["ok"] and not failed, py
    else:
        assert not py["ok"] and not js["ok"] and named in failed, py


@pytest.mark.parametrize("vector", FILES, ids=[p.stem for p in FILES])
def test_each_vector_fails_its_named_check_in_banco_itself(vector):
    key = base64.b64decode(json.loads(KEY.read_text())["public_key"])
    outcomes = check(json.loads(vector.read_text()), key)
    failed = {name for name, (passed, _) in outcomes.items() if passed is False}
    named = expected_failure(vector)
    assert (not failed) if named is None else named in failed, outcomes


def test_a_full_bundle_is_checked_whole_and_a_players_as_far_as_he_may_see():
    full = python_verifier(VECTORS / "good-auditor.json")["checks"]
    assert {k: v["status"] for k, v in full.items()} == dict.fromkeys(full, "passed")
    # A settled hand of Sette e mezzo hides nothing from its player any more: his bundle is
    # whole, and he checks all of it.
    mine = python_verifier(VECTORS / "good-player.json")["checks"]
    assert {k: v["status"] for k, v in mine.items()} == dict.fromkeys(mine, "passed")
    # Pirate pairs' opening cards are chosen in secret: his bundle withholds what he may not see.
    secret = python_verifier(VECTORS / "good-pirate-pairs-player.json")["checks"]
    assert "withheld" in secret["chain"]["detail"] and secret["deck"]["status"] == "passed"


def outcomes(bundle: dict[str, Any], tmp_path: Path, key_file: Path = KEY, *,
             allow_unattested: bool = False) -> list[dict[str, Any]]:
    """Each check's status and detail by the three readers: both verifiers and Banco's own,
    the house key pinned (`key_file`: the vectors' unless told), a bundle of the first format
    checked when `allow_unattested`."""
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(bundle))
    key = base64.b64decode(json.loads(key_file.read_text())["public_key"])
    banco = {name: {"status": {True: "passed", False: "failed", None: "skipped"}[passed],
                    "detail": detail}
             for name, (passed, detail) in check(bundle, key, allow_unattested=allow_unattested).items()}
    options = ["--allow-unattested"] if allow_unattested else []
    return [python_verifier(edited, key_file, *options)["checks"],
            node_verifier(edited, key_file, *options)["checks"], banco]


def edited_version(good: dict[str, Any], bad: dict[str, Any]) -> int:
    """The version of the first event whose stored text differs between two bundles."""
    return next(g["version"] for g, b in zip(good["events"], bad["events"], strict=True)
                if g["canonical"] != b["canonical"])


@pytest.mark.parametrize(("game", "tampered"), [("cassino", "fail-deck-cassino-dealt-card"),
                                                ("pirate-pairs", "fail-deck-pirate-pairs-drawn-card")])
def test_every_card_dealt_or_drawn_is_walked_against_the_deck_by_every_reader(game, tampered,
                                                                              tmp_path):
    """The standalone verifiers compared Cassino's deck and Pirate pairs' pile with the seeds'
    shuffle, not the cards the events hand out: a card dealt (or drawn) replaced by another,
    the chain hashed again and signed by the house, gave VERIFIED. Every reader walks each card
    dealt and drawn against the deck, and names the event where it breaks."""
    good = json.loads((VECTORS / f"good-{game}-auditor.json").read_text())
    for checks in outcomes(good, tmp_path):
        assert checks["deck"]["status"] == "passed", checks["deck"]
        assert "failed" not in {c["status"] for c in checks.values()}, checks
    bad = json.loads((VECTORS / f"{tampered}.json").read_text())
    version = edited_version(good, bad)
    for checks in outcomes(bad, tmp_path):
        assert checks["deck"]["status"] == "failed", checks["deck"]
        assert re.search(rf"\bv(ersion )?{version}\b", checks["deck"]["detail"]), checks["deck"]
        # The deck's order is the seeds' and the rest holds: only the walk tells.
        assert {k for k, c in checks.items() if c["status"] == "failed"} == {"deck"}, checks


@pytest.mark.parametrize(("game", "withheld", "seen"), [
    ("cassino", {"RoundStarted", "CardsDealt", "CardDrawn"}, "TableDealt"),
    ("pirate-pairs", {"HandOpened", "CardsDealt", "CardDrawn", "DiscardsReshuffled"}, "PlayerChallenged")])
def test_a_spectator_walks_the_cards_he_sees_past_the_deals_withheld_from_him(game, withheld, seen,
                                                                               tmp_path):
    """The deck's order and the hands dealt are withheld from a spectator: each withheld event
    takes off the deck what the rules deal, so the cards shown to all (Cassino's table,
    Pirate pairs' challenges) are still walked at their place, and one changed fails there."""
    bundle = json.loads((VECTORS / f"good-{game}-auditor.json").read_text())
    bundle["viewer"] = {"kind": "operator"}
    for e in bundle["events"]:
        if e["type"].removeprefix("game.") in withheld:
            e["canonical"] = None
    for checks in outcomes(bundle, tmp_path)[:2]:  # Banco's own reading needs every event
        assert checks["deck"]["status"] == "passed" and "withheld" in checks["deck"]["detail"], checks
    shown = next(e for e in bundle["events"] if e["type"] == f"game.{seen}")
    body = json.loads(shown["canonical"])
    data = body["data"]["data"]
    if "cards" in data:
        data["cards"][0], data["cards"][1] = data["cards"][1], data["cards"][0]
    else:
        data["card"] = "10.1" if data["card"] != "10.1" else "9.1"
    shown["canonical"] = json.dumps(body)
    for checks in outcomes(bundle, tmp_path)[:2]:
        assert checks["deck"]["status"] == "failed", checks["deck"]
        assert f"version {shown['version']} ({seen})" in checks["deck"]["detail"], checks["deck"]


def test_what_a_bundle_withholds_is_skipped_never_passed(tmp_path):
    """A deck check that saw no card at all was reported PASSED. What the viewer's bundle
    cannot check is skipped, by every reader alike."""
    bundle = json.loads((VECTORS / "good-player.json").read_text())
    for e in bundle["events"]:  # the deck and every card dealt hidden from this viewer
        if e["type"] in ("game.HandStarted", "game.CardDealt"):
            e["canonical"], e["shown"] = None, None
    for checks in outcomes(bundle, tmp_path):
        assert checks["deck"]["status"] == "skipped", checks["deck"]
        assert checks["contents"]["status"] == "passed", checks["contents"]


def test_a_posting_withheld_or_anything_withheld_from_an_auditor_fails(tmp_path):
    """Any event could be made "withheld" and the checks that need its text were skipped: a
    posting's amount edited in the summary, its event withheld, gave VERIFIED, as did an
    auditor's bundle with every event but two withheld. Banco withholds no posting (no secret
    move posts, and postings are no one's secret) and nothing from an auditor."""
    player = json.loads((VECTORS / "good-player.json").read_text())
    posted = [i for i, e in enumerate(player["events"]) if e["type"] == "TreasurePosted"]
    player["events"][posted[0]]["canonical"] = None
    player["postings"][0]["amount"] += 5
    for checks in outcomes(player, tmp_path):
        assert checks["contents"]["status"] == "failed", checks["contents"]
    auditor = json.loads((VECTORS / "good-auditor.json").read_text())
    for e in auditor["events"][1:-1]:
        e["canonical"] = None
    for checks in outcomes(auditor, tmp_path):
        assert checks["chain"]["status"] == "failed", checks["chain"]
        assert "auditor" in checks["chain"]["detail"]


def test_a_hand_still_in_play_is_skipped_where_nothing_is_settled(tmp_path):
    """An auditor may take a hand's bundle while it is played: its re-play was reported FAILED
    ("the hand has not ended") and its seed "not revealed to this viewer"."""
    bundle = json.loads((VECTORS / "good-auditor.json").read_text())
    ended = next(i for i, e in enumerate(bundle["events"]) if e["type"] == "game.HandEnded")
    bundle["events"] = bundle["events"][:ended]
    bundle["postings"] = [json.loads(e["canonical"])["data"] for e in bundle["events"]
                          if e["type"] == "TreasurePosted"]
    for checks in outcomes(bundle, tmp_path):
        assert checks["replay"]["status"] == "skipped", checks["replay"]
        assert "in play" in checks["replay"]["detail"]
        assert checks["commitment"]["status"] == "skipped"
        assert "not settled" in checks["commitment"]["detail"], checks["commitment"]


def test_an_unpinned_key_is_said_so_and_a_bundle_signed_by_another_key_passes_only_unpinned():
    other = VECTORS / "fail-signature-other-key.json"
    unpinned = python_verifier(other, key=None)["checks"]["signature"]
    assert unpinned["status"] == "passed" and "not pinned" in unpinned["detail"]
    assert node_verifier(other, key=None)["checks"]["signature"]["status"] == "passed"
    assert python_verifier(other)["checks"]["signature"]["status"] == "failed"


def test_rules_of_a_version_the_verifiers_do_not_know_are_not_re_played(tmp_path):
    bundle = json.loads((VECTORS / "good-auditor.json").read_text())
    bundle["rules_version"] = 2
    changed = tmp_path / "v2.json"
    changed.write_text(json.dumps(bundle))
    for outcome in (python_verifier(changed), node_verifier(changed)):
        assert outcome["checks"]["replay"]["status"] == "skipped"
        assert outcome["checks"]["contents"]["status"] == "failed"  # TableCreated says otherwise


def test_the_verifier_shares_no_code_with_banco_and_needs_only_cryptography():
    project = tomllib.loads((VERIFIER / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == ["cryptography>=42"]
    banco = {"service", "events", "games", "projections", "workers", "tests"}
    for source in (VERIFIER / "banco_verifier").glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not {n.split(".")[0] for n in names} & banco, (source, names)
    for source in (VERIFIER / "js").glob("*.mjs"):
        imports = [line.split("from")[-1].strip(' ";') for line in source.read_text().splitlines()
                   if line.startswith("import ")]
        assert all(i.startswith(("node:", "./")) for i in imports), (source, imports)


# --- the pieces, against published figures and the rules' seed texts -----------------------------
def node_call(function: str, *args: Any) -> Any:
    """`function(...args)` of the JavaScript verifier's checks.mjs."""
    script = ("import { readFileSync } from 'node:fs';"
              f"import * as m from {json.dumps((VERIFIER / 'js' / 'checks.mjs').as_uri())};"
              f"const args = JSON.parse(readFileSync(0, 'utf8'));"
              f"console.log(JSON.stringify(m.{function}(...args)));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps(args),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture
def py_verifier(monkeypatch):
    monkeypatch.syspath_prepend(str(VERIFIER))
    from banco_verifier import sevenhalf, shuffle

    return sevenhalf, shuffle


def test_both_shuffles_give_the_published_test_vector(py_verifier):
    """docs/fair-decks.md's test vector."""
    _, shuffle = py_verifier
    seed = "00" * 31 + "01"
    cards = [str(n) for n in range(10)]
    want = ["8", "5", "0", "1", "2", "6", "9", "7", "4", "3"]
    assert shuffle.commitment(seed) == "ec4916dd28fc4c10d78e287ca5d9cc51ee1ae73cbfde08c6b37324cbfaac8bc5"
    assert shuffle.shuffle(cards, seed, ["alice"]) == want
    assert node_call("shuffle", cards, seed, ["alice"]) == want


def hand(game: str, player: list[str], bank: list[str], stake: int, results: list[dict[str, Any]],
         postings: list[list[Any]], options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """A two-seat hand's engine events: seat 1 bets `stake` and draws `player`, the banker
    (seat 0) draws `bank`; it ends with the `results` and `postings` recorded."""
    events = [{"type": "HandStarted", "data": {"banker": 0, "options": options or {},
                                               "seats": [{"seat": 0, "balance": 50},
                                                         {"seat": 1, "balance": 50}]}},
              {"type": "BetPlaced", "data": {"seat": 1, "index": 0, "amount": stake}}]
    events += [{"type": "CardDealt", "data": {"seat": 1, "index": 0, "card": c, "face_up": True}}
               for c in player]
    events += [{"type": "CardDealt", "data": {"seat": 0, "index": -1, "card": c, "face_up": True}}
               for c in bank]
    return [*events, {"type": "HandEnded", "data": {"results": results, "postings": postings}}]


def replayed(py_verifier, game: str, events: list[dict[str, Any]]) -> list[str]:
    sevenhalf, _ = py_verifier
    wrong = sevenhalf.replay(game, events)
    assert bool(node_call("replaySevenHalf", game, events)) == bool(wrong)
    return list(wrong)


def row(total: int, outcome: str, net: int, stake: int = 10) -> dict[str, Any]:
    return {"seat": 1, "index": 0, "stake": stake, "total": total, "outcome": outcome, "net": net}


def test_sette_e_mezzo_ties_go_to_the_banker(py_verifier):
    """Seed: ../shared/seeds/001_6b5bbd2473d5c47f.txt (Sette e mezzo: the banker wins every
    stake whose total is at most his; J/Q/K count ½). 5 + ½ against 5 + ½: the banker's."""
    events = hand("sette-e-mezzo", ["5s", "Jh"], ["5d", "Qc"], 10, [row(11, "lost", -10)],
                  [["escrow", "seat:0", 10, "lost"]])
    assert replayed(py_verifier, "sette-e-mezzo", events) == []
    events[-1]["data"] = {"results": [row(11, "won", 10)],
                          "postings": [["escrow", "seat:1", 10, "returned"], ["seat:0", "seat:1", 10, "won"]]}
    assert replayed(py_verifier, "sette-e-mezzo", events)


def test_siete_y_media_pays_seven_and_a_half_double_and_both_at_it_four_times(py_verifier):
    """Seed: ../shared/seeds/004_34f1b911eeb84e49.txt (Siete y media: 7½ receives double the
    stake; when the bank reaches 7½ a player at 7½ too pays it 4 times the stake)."""
    double = hand("siete-y-media", ["7o", "10c"], ["5e", "1b"], 10, [row(15, "won", 20)],
                  [["escrow", "seat:1", 10, "returned"], ["seat:0", "seat:1", 20, "won"]])
    assert replayed(py_verifier, "siete-y-media", double) == []
    both = hand("siete-y-media", ["7o", "10c"], ["7e", "12b"], 10, [row(15, "lost", -40)],
                [["escrow", "seat:0", 10, "lost"], ["seat:1", "seat:0", 30, "lost"]],
                {"both_seven_half_pays": 4})
    assert replayed(py_verifier, "siete-y-media", both) == []
    both[-1]["data"]["results"] = [row(15, "lost", -20)]
    assert replayed(py_verifier, "siete-y-media", both)


def walked_alike(game: str, events: list[dict[str, Any]], seats: list[int], seed: str,
                 player_seeds: list[str]) -> str | None:
    """Both verifiers' walk of the cards dealt in `events`: None when it holds, else the one
    message both give."""
    from banco_verifier import dealt, shuffle

    unshuffled = shuffle.composition(game, {})
    assert unshuffled is not None
    try:
        dealt.walk(game, events, unshuffled, seats,
                   lambda cards, label: shuffle.shuffle(cards, seed, player_seeds, label))
        py = None
    except dealt.Mismatch as e:
        py = str(e)
    js_dir = VERIFIER / "js"
    script = ("import { readFileSync } from 'node:fs';"
              f"import {{ composition, shuffle }} from {json.dumps((js_dir / 'checks.mjs').as_uri())};"
              f"import {{ walk }} from {json.dumps((js_dir / 'dealt.mjs').as_uri())};"
              "const [game, events, seats, seed, seeds] = JSON.parse(readFileSync(0, 'utf8'));"
              "let out = null;"
              "try { walk(game, events, composition(game, {}), seats,"
              "  (cards, label) => shuffle(cards, seed, seeds, label)); }"
              "catch (e) { out = e.message; }"
              "console.log(JSON.stringify(out));")
    run = subprocess.run(["node", "--input-type=module", "-e", script],
                         input=json.dumps([game, events, seats, seed, player_seeds]),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == py
    return py


def test_a_siete_y_media_split_is_held_to_the_cards_its_hand_was_dealt(py_verifier):
    """Seed: ../shared/seeds/004_34f1b911eeb84e49.txt (Siete y media: a player dealt a pair may
    split it). Both walks held a hand shown to its cards but let a split move any card, so a
    split off a card never dealt to the hand passed. A split moves one of the hand's cards to
    the new hand, which is shown with it; any other card fails, in the same words."""
    _, shuffle = py_verifier
    seed, seeds = "00" * 31 + "09", ["seed-0", "seed-1"]
    deck = shuffle.shuffle(shuffle.composition("siete-y-media", {}), seed, seeds)

    def events(split_off: str) -> list[dict[str, Any]]:
        plays = [("CardDealt", {"seat": 1, "index": 0, "card": deck[0], "face_up": False}),
                 ("CardDealt", {"seat": 0, "index": -1, "card": deck[1], "face_up": False}),
                 ("CardDealt", {"seat": 1, "index": 0, "card": deck[2], "face_up": True}),
                 ("HandSplit", {"seat": 1, "index": 0, "new_index": 1, "card": split_off, "amount": 5}),
                 ("CardsShown", {"seat": 1, "index": 1, "cards": [split_off], "reason": "showdown",
                                 "declared": {}})]
        return [{"type": t, "data": d, "version": 20 + i} for i, (t, d) in enumerate(plays)]

    assert walked_alike("siete-y-media", events(deck[2]), [0, 1], seed, seeds) is None
    for other in (deck[1], deck[3]):  # the banker's hidden card; a card not yet dealt
        wrong = walked_alike("siete-y-media", events(other), [0, 1], seed, seeds)
        assert wrong == f"version 23 (HandSplit) shows {other}, hand 0 was dealt {deck[0]} {deck[2]}"


def test_a_hand_shown_after_deals_withheld_from_the_viewer_is_still_compared(py_verifier):
    """Both walks stopped comparing the hands shown at the first deal withheld from the viewer
    (an operator's bundle, a player's of another seat's card never shown): a hand shown with
    cards never dealt passed. A withheld deal still took the deck's next card; a card shown
    that no hand the viewer saw was dealt must be one of those, each shown once."""
    _, shuffle = py_verifier
    seed, seeds = "00" * 31 + "0b", ["seed-0", "seed-1"]
    deck = shuffle.shuffle(shuffle.composition("sette-e-mezzo", {}), seed, seeds)

    def events(*shown: tuple[int, list[str]]) -> list[dict[str, Any]]:
        # Seat 1's two cards (deck 0 and 2) are withheld from the viewer, seat 0's (the
        # banker's, deck 1 and 3) are not.
        plays: list[tuple[str, dict[str, Any] | None]] = [
            ("CardDealt", None),
            ("CardDealt", {"seat": 0, "index": -1, "card": deck[1], "face_up": False}),
            ("CardDealt", None),
            ("CardDealt", {"seat": 0, "index": -1, "card": deck[3], "face_up": True})]
        plays += [("CardsShown", {"seat": 1 if i >= 0 else 0, "index": i, "cards": cards,
                                  "reason": "showdown", "declared": {}}) for i, cards in shown]
        return [{"type": t, "data": d, "version": 40 + i} for i, (t, d) in enumerate(plays)]

    def walked(*shown: tuple[int, list[str]]) -> str | None:
        return walked_alike("sette-e-mezzo", events(*shown), [0, 1], seed, seeds)

    assert walked((0, [deck[0], deck[2]]), (-1, [deck[1], deck[3]])) is None
    withheld = " and cards withheld from this viewer"
    assert walked((0, [deck[0], deck[4]])) == (  # a card the deck had not dealt yet
        f"version 44 (CardsShown) shows {deck[0]} {deck[4]}, hand 0 was dealt nothing{withheld}")
    assert walked((0, [deck[0], deck[1]])) == (  # the banker's card, which the viewer saw dealt
        f"version 44 (CardsShown) shows {deck[0]} {deck[1]}, hand 0 was dealt nothing{withheld}")
    assert walked((0, [deck[2], deck[0]])) == (  # out of the order dealt
        f"version 44 (CardsShown) shows {deck[2]} {deck[0]}, hand 0 was dealt nothing{withheld}")
    assert walked((0, [deck[0]]), (1, [deck[0], deck[2]])) == (  # a withheld card shown twice
        f"version 45 (CardsShown) shows {deck[0]} {deck[2]}, hand 1 was dealt nothing{withheld}")
    assert walked((-1, [deck[1]])) == (  # the banker's hand, short of a card the viewer saw
        f"version 44 (CardsShown) shows {deck[1]}, hand -1 was dealt {deck[1]} {deck[3]}{withheld}")


def test_pirate_pairs_discards_reshuffled_are_walked_as_a_new_pile(py_verifier):
    """RULES.md §2 (Pirate pairs: when the draw pile is empty the discards are shuffled, seeded,
    into a new pile). No published hand reshuffles: both walks are held to it on a hand written
    here, from the deal round the seats to a draw off the new pile, its order shown or withheld."""
    _, shuffle = py_verifier
    seed, seeds = "00" * 31 + "07", ["seed-0", "seed-1"]
    deck = shuffle.shuffle(shuffle.composition("pirate-pairs", {}), seed, seeds)
    out = [deck[0], deck[2], deck[4]]
    discards = [deck[6], *out]
    pile = shuffle.shuffle(discards, seed, seeds, "reshuffle-1")

    def events(reshuffled: list[str] | None, drawn: str) -> list[dict[str, Any]]:
        plays = [("HandOpened", {"pile": deck, "seats": [{"seat": 0}, {"seat": 1}]}),
                 ("CardsDealt", {"seat": 0, "cards": out}),
                 ("CardsDealt", {"seat": 1, "cards": [deck[1], deck[3], deck[5]]}),
                 ("PlayerChallenged", {"seat": 0, "target": 1, "card": deck[6], "paired": True}),
                 ("PlayerEliminated", {"seat": 0, "reason": "paired_on_challenge", "cards": out}),
                 ("DiscardsReshuffled", None if reshuffled is None
                  else {"reshuffle": 1, "count": len(reshuffled), "pile": reshuffled}),
                 ("CardDrawn", {"seat": 1, "card": drawn})]
        return [{"type": t, "data": d, "version": 10 + i} for i, (t, d) in enumerate(plays)]

    for shown in (pile, None):  # the new pile's order shown (an auditor), or withheld
        assert walked_alike("pirate-pairs", events(shown, pile[0]), [0, 1], seed, seeds) is None
        wrong = walked_alike("pirate-pairs", events(shown, pile[1]), [0, 1], seed, seeds)
        assert wrong is not None and wrong.startswith("version 16 (CardDrawn)"), wrong
    swapped = [pile[1], pile[0], *pile[2:]]
    wrong = walked_alike("pirate-pairs", events(swapped, pile[1]), [0, 1], seed, seeds)
    assert wrong is not None and wrong.startswith("version 15 (DiscardsReshuffled)"), wrong


@pytest.mark.parametrize("viewer", ["player", "operator"])
def test_a_hand_nobody_bet_in_proves_the_last_event_given_whole(viewer, tmp_path):
    """Casino pirate's seed is for auditors only: a hand nobody bet in ends with its reveal,
    withheld from the players and the operator, whose bundles then proved an event they could
    not see and failed every reader. They prove the last event they are given whole."""
    bundle = json.loads((VECTORS / f"good-casino-pirate-no-bet-{viewer}.json").read_text())
    assert bundle["events"][-1]["type"] == "SeedRevealed" and bundle["events"][-1]["canonical"] is None
    proven = bundle["inclusion"]["last_event"]["version"]
    assert proven == max(e["version"] for e in bundle["events"] if e["canonical"] is not None)
    for checks in outcomes(bundle, tmp_path):
        assert not {k for k, c in checks.items() if c["status"] == "failed"}, checks
        assert checks["inclusion"]["status"] == "passed", checks["inclusion"]
    # Without the version (as a banco-evidence/1 bundle reads), the withheld last event is
    # the one to prove: nothing can.
    del bundle["inclusion"]["last_event"]["version"]
    for checks in outcomes(bundle, tmp_path):
        assert checks["inclusion"]["status"] == "failed", checks["inclusion"]


def _tampered_views(good: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The fields of a bundle no chain link covers, each edited."""
    out = {}
    v = json.loads(json.dumps(good))
    v["viewer"], v["redacted"] = {"kind": "seat", "seat": 1}, True
    for e in v["events"]:
        if e["type"] == "game.HandEnded":
            body = json.loads(e["canonical"])
            for row in body["data"]["data"]["results"]:
                row["outcome"] = "won"
            e["canonical"], e["shown"] = None, {"type": e["type"], "data": body["data"]}
    out["viewer, outcome withheld and shown otherwise"] = v
    for field, value in (("recorded_at", "2001-01-01T00:00:00+00:00"), ("position", 1)):
        v = json.loads(json.dumps(good))
        v["events"][2][field] = value
        out[field] = v
    v = json.loads(json.dumps(good))
    v["options"]["max_bet"] += 1
    out["options"] = v
    v = json.loads(json.dumps(good))
    v["redacted"] = True
    out["redacted"] = v
    return out


def test_every_field_of_a_bundle_is_attested_by_the_house(tmp_path):
    """An auditor's bundle passed off as a seat's, its outcome withheld and shown otherwise,
    gave VERIFIED from both verifiers: the viewer, what a withheld event shows, the summary
    fields and each event's time and place were signed by nothing. The house signs the whole
    bundle; any edit fails `attestation` in every reader."""
    good = json.loads((VECTORS / "good-auditor.json").read_text())
    for checks in outcomes(good, tmp_path):
        assert checks["attestation"]["status"] == "passed", checks["attestation"]
    for what, bundle in _tampered_views(good).items():
        for checks in outcomes(bundle, tmp_path):
            assert checks["attestation"]["status"] == "failed", (what, checks["attestation"])


def test_a_bundle_of_the_first_format_is_not_attested_and_says_so(tmp_path):
    """A banco-evidence/1 bundle is not attested: its viewer, shown data and summary fields
    are its own word, so it fails `attestation` unless asked (`--allow-unattested`, Banco's
    `allow_unattested`) to check one made before attestation; then its attestation is skipped,
    never passed, and the rest checked."""
    bundle = json.loads((VECTORS / "good-player.json").read_text())
    bundle["format"] = "banco-evidence/1"
    del bundle["attestation"]
    for proof in bundle["inclusion"].values():
        del proof["version"]
    py, js, banco = outcomes(bundle, tmp_path)
    for checks, allow in ((py, "--allow-unattested"), (js, "--allow-unattested"),
                          (banco, "allow_unattested")):
        assert checks["attestation"]["status"] == "failed", checks["attestation"]
        detail = checks["attestation"]["detail"]
        assert "banco-evidence/1" in detail and "not attested" in detail and allow in detail, detail
        assert {k for k, c in checks.items() if c["status"] == "failed"} == {"attestation"}, checks
    for checks in outcomes(bundle, tmp_path, allow_unattested=True):
        assert checks["attestation"]["status"] == "skipped", checks["attestation"]
        assert "not attested" in checks["attestation"]["detail"], checks["attestation"]
        assert not {k for k, c in checks.items() if c["status"] == "failed"}, checks
    # A /2 bundle without its attestation fails.
    bundle["format"] = "banco-evidence/2"
    for checks in outcomes(bundle, tmp_path):
        assert checks["attestation"]["status"] == "failed", checks["attestation"]


@pytest.mark.parametrize("good", ["good-auditor", "good-cassino-auditor", "good-pirate-pairs-auditor"])
def test_options_the_game_does_not_take_fail_in_every_reader_and_raise_in_none(good, tmp_path):
    """Banco's own reader raised the engine's refusal when a bundle's options held a key the
    game does not know, or a value of the wrong kind, instead of failing the bundle."""
    bundle = json.loads((VECTORS / f"{good}.json").read_text())
    for edit in ({"zzz": 1}, {"min_bet": "ten"}, {"variant": ["classic"]}):
        edited = {**bundle, "options": {**bundle["options"], **edit}}
        for checks in outcomes(edited, tmp_path):
            assert checks["contents"]["status"] == "failed", (edit, checks["contents"])
            assert checks["attestation"]["status"] == "failed", (edit, checks["attestation"])


def _opening_edited(bundle: dict[str, Any], edit: Any, canonical: bool = True) -> None:
    """`edit(data)` on the data of the bundle's opening engine event, its stored text written
    again (in Banco's canonical form, or loosely as an editor would)."""
    opening = next(e for e in bundle["events"] if e["type"].startswith("game."))
    body = json.loads(opening["canonical"])
    edit(body["data"]["data"])
    opening["canonical"] = (json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                            if canonical else json.dumps(body))


# A count past 2**53 - 1 (1e300 was one) is no bundle either reader reads at all.
@pytest.mark.parametrize(("gems", "shown", "canonical"), [(1_000_000_000, "1000000000", True),
                                                          (2**53 - 1, "9007199254740991", False)])
def test_a_deck_count_out_of_the_games_range_fails_in_every_reader_and_builds_nothing(
        gems, shown, canonical, tmp_path):
    """Casino pirate's deck is built from its options: gems 1,000,000,000 in the summary and the
    opening event ran the Node verifier out of memory (exit 134) and the Python one for minutes,
    1e300 threw RangeError, though the signatures failed. Each count is held to the game's
    range (1-8 gems) before anything is built; Banco's reader fails it too, never raises."""
    bundle = json.loads((VECTORS / "good-casino-pirate-no-bet-auditor.json").read_text())
    bundle["options"]["gems"] = gems
    _opening_edited(bundle, lambda data: data["options"].update(gems=gems), canonical)
    said = f"options.gems {shown} is outside the game's range 1-8"
    *verifiers, banco = outcomes(bundle, tmp_path)
    for checks in verifiers:
        assert checks["deck"] == {"status": "failed", "detail": said}, checks["deck"]
    assert banco["deck"]["status"] == "failed", banco["deck"]
    assert "gems" in banco["deck"]["detail"] or not canonical, banco["deck"]
    # The opening event withheld (from a spectator), the summary's options size the deck.
    spectator = json.loads((VECTORS / "good-casino-pirate-no-bet-auditor.json").read_text())
    spectator["viewer"], spectator["options"]["gems"] = {"kind": "operator"}, gems
    next(e for e in spectator["events"] if e["type"].startswith("game."))["canonical"] = None
    for checks in outcomes(spectator, tmp_path)[:2]:  # Banco's own reading needs every event
        assert checks["deck"] == {"status": "failed", "detail": said}, checks["deck"]


def test_the_seats_and_proofs_a_bundle_gives_are_held_to_their_limits_in_every_reader(tmp_path):
    """Other counts a bundle gives drive the readers' loops: the seats a hand deals to (each
    shuffle hashes every seat's seed), and an inclusion proof's size and path. Each is held to
    what the game seats and what a proof in a tree of its size holds."""
    good = json.loads((VECTORS / "good-auditor.json").read_text())
    crowded = json.loads(json.dumps(good))
    _opening_edited(crowded, lambda data: data["seats"].extend([data["seats"][0]] * 98))
    for checks in outcomes(crowded, tmp_path)[:2]:
        assert checks["deck"] == {"status": "failed", "detail": "the opening event seats 101 players,"
                                  " the game seats 2-12"}, checks["deck"]
    long_path = json.loads(json.dumps(good))
    long_path["inclusion"]["last_event"]["path"] += ["00" * 32] * 60
    for checks in outcomes(long_path, tmp_path):
        assert checks["inclusion"]["status"] == "failed", checks["inclusion"]
    size = good["inclusion"]["last_event"]["tree_size"]  # the published hand's checkpoint
    for checks in outcomes(long_path, tmp_path)[:2]:
        assert checks["inclusion"]["detail"] == (f"last_event: its path is not a list of at most"
                                                 f" {(size - 1).bit_length()} hashes, as a proof in"
                                                 f" a tree of {size} events is")
    # A tree_size of 2**53 or more is no bundle either reader reads at all; none of 0 events.
    empty = json.loads(json.dumps(good))
    statement = json.loads(empty["checkpoint"]["statement"])
    statement["events"] = empty["inclusion"]["last_event"]["tree_size"] = 0
    empty["checkpoint"]["statement"] = json.dumps(statement)
    for checks in outcomes(empty, tmp_path)[:2]:
        assert checks["inclusion"]["detail"] == \
            "last_event: tree_size 0 is not a count of events", checks["inclusion"]


def test_the_cards_a_hand_names_are_no_more_than_its_deck_in_both_verifiers(py_verifier):
    """A hand's events name the cards the readers walk one by one: more of them than the deck
    holds (a Pirate pairs hand's discards, a 7½ hand's cards dealt) fail there, both alike."""
    _, shuffle = py_verifier
    seed, seeds = "00" * 31 + "07", ["seed-0", "seed-1"]
    deck = shuffle.shuffle(shuffle.composition("pirate-pairs", {}), seed, seeds)
    events = [{"type": t, "data": d, "version": 10 + i} for i, (t, d) in enumerate([
        ("HandOpened", {"pile": deck, "seats": [{"seat": 0}, {"seat": 1}]}),
        ("CardsDealt", {"seat": 0, "cards": [deck[0], deck[2], deck[4]]}),
        ("CardsDealt", {"seat": 1, "cards": [deck[1], deck[3], deck[5]]}),
        ("PlayerEliminated", {"seat": 0, "reason": "paired_on_challenge", "cards": deck * 2})])]
    assert walked_alike("pirate-pairs", events, [0, 1], seed, seeds) == \
        "version 13 (PlayerEliminated) makes 110 discards, more than the deck's 55 cards"
    many = hand("sette-e-mezzo", ["Js"] * 41, ["5d"], 10, [row(41, "bust", -10)],
                [["escrow", "seat:0", 10, "lost"]])
    assert replayed(py_verifier, "sette-e-mezzo", many) == ["42 cards dealt, the deck holds 40"]


def run_cli(verifier: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """The command line of the Python verifier (from its own folder) or of Node's."""
    command = ([sys.executable, "-m", "banco_verifier.cli"] if verifier == "python"
               else ["node", str(VERIFIER / "js" / "verify.mjs")])
    return subprocess.run([*command, *map(str, args)], capture_output=True, text=True, cwd=VERIFIER,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(VERIFIER)})


def one_line(out: subprocess.CompletedProcess[str]) -> str:
    """The one line a verifier says, exit status 2, of a file it cannot read."""
    assert out.returncode == 2 and out.stdout == "", out.stdout + out.stderr
    [line] = out.stderr.splitlines()
    return line


@pytest.mark.parametrize("depth", [950, 3000, 100_000])
def test_a_bundle_nested_too_deep_is_one_line_in_both_verifiers_and_raises_in_no_reader(depth,
                                                                                        tmp_path):
    """A good bundle with a member nested 950 levels deep gave a RecursionError traceback from
    the Python verifier (its canonical JSON), 3,000 or 100,000 one from its JSON reading, where
    Node said FAILED. Both refuse a bundle nested deeper than 64 levels as one they cannot read
    (Banco's go 8 deep), and Banco's reader fails its format."""
    text = (VECTORS / "good-auditor.json").read_text().rstrip()
    deep = tmp_path / "deep.json"
    deep.write_text(text[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}")
    for verifier in ("python", "node"):
        line = one_line(run_cli(verifier, deep, "--key", KEY))
        assert line == f"{deep}: cannot be read as JSON (nested deeper than 64 levels)", line
    bundle, nested = json.loads(text), []
    for _ in range(depth):
        nested = [nested]
    bundle["x"] = nested
    key = base64.b64decode(json.loads(KEY.read_text())["public_key"])
    assert check(bundle, key) == {"format": (False, "nested deeper than 64 levels")}


@pytest.mark.parametrize("depth", [950, 3000, 100_000])
def test_a_stored_text_nested_too_deep_fails_alike_in_every_reader(depth, tmp_path):
    """An event's stored text is JSON read again: nested too deep, the checks that read it fail
    (the same ones in both verifiers), and no reader raises."""
    bundle = json.loads((VECTORS / "good-auditor.json").read_text())
    event = bundle["events"][1]
    event["canonical"] = event["canonical"][:-1] + ',"x":' + "[" * depth + "]" * depth + "}"
    py, js, banco = outcomes(bundle, tmp_path)
    assert {k: c["status"] for k, c in py.items()} == {k: c["status"] for k, c in js.items()}
    for checks in (py, js, banco):
        assert checks["chain"]["status"] == "failed", checks["chain"]
    assert "nested deeper than 64 levels" in py["chain"]["detail"], py["chain"]
    assert "nested deeper than 64 levels" in js["chain"]["detail"], js["chain"]


def test_nan_and_infinity_are_no_json_to_either_verifier(tmp_path):
    """Python's reader took NaN and Infinity, which JSON has not and Node refuses, and Node
    read a number past a double's range as Infinity where Python refused an integer of 5,000
    digits: the two gave different verdicts. Both refuse the file."""
    text = (VECTORS / "good-auditor.json").read_text().rstrip()
    for constant in ("NaN", "Infinity", "-Infinity", "1e400", "-2e308", "9" * 320, "1" + "0" * 5000):
        odd = tmp_path / "odd.json"
        odd.write_text(text[:-1] + f', "x": {constant}' + "}")
        for verifier in ("python", "node"):
            assert one_line(run_cli(verifier, odd)).startswith(f"{odd}: cannot be read as JSON (")


@pytest.mark.parametrize("allow_unattested", [False, True])
def test_an_attested_bundle_relabelled_to_the_first_format_fails_its_attestation(allow_unattested,
                                                                                tmp_path):
    """A signed banco-evidence/2 bundle, its attestation deleted, relabelled /1 and its events'
    times rewritten (which only the attestation covers), gave VERIFIED from both verifiers, its
    attestation SKIPPED. Its inclusion proofs still name a version, as only /2 ones do: what a
    /1 bundle cannot carry fails `attestation`, whether /1 bundles are allowed or not."""
    good = json.loads((VECTORS / "good-auditor.json").read_text())
    relabelled = json.loads(json.dumps(good))
    del relabelled["attestation"]
    relabelled["format"], relabelled["viewer"] = "banco-evidence/1", {"kind": "auditor"}
    for e in relabelled["events"]:
        e["recorded_at"] = "2001-01-01T00:00:00+00:00"
    kept = json.loads(json.dumps(good))  # relabelled, its attestation left in
    kept["format"] = "banco-evidence/1"
    for bundle in (relabelled, kept):
        for checks in outcomes(bundle, tmp_path, allow_unattested=allow_unattested):
            assert checks["attestation"]["status"] == "failed", checks["attestation"]
            assert "relabelled" in checks["attestation"]["detail"], checks["attestation"]


def test_both_verifiers_help_names_every_option():
    for verifier in ("python", "node"):
        out = run_cli(verifier, "--help")
        assert out.returncode == 0, out.stderr
        said = " ".join(out.stdout.split())
        for words in ("--key", "--json", "--allow-unattested", "check a banco-evidence/1 bundle",
                      "2 when the file or the key cannot be read"):
            assert words in said, (verifier, words, out.stdout)


def test_a_byte_order_mark_is_taken_and_a_file_not_utf8_refused_alike_by_both_verifiers(tmp_path):
    """A bundle saved with a UTF-8 byte order mark was VERIFIED by Python and "cannot be read"
    (exit 2) by Node; a key file with one the other way round. Both read UTF-8 alike: one
    leading mark dropped, bytes that are not UTF-8 (or UTF-16) refused."""
    marked, key = tmp_path / "marked.json", tmp_path / "house-key.json"
    marked.write_bytes(b"\xef\xbb\xbf" + (VECTORS / "good-auditor.json").read_bytes())
    key.write_bytes(b"\xef\xbb\xbf" + KEY.read_bytes())
    said = set()
    for verifier in ("python", "node"):
        out = run_cli(verifier, marked, "--key", key)
        assert out.returncode == 0 and out.stdout.splitlines()[-1] == "VERIFIED", out.stdout + out.stderr
        said.add(out.stdout)
    assert len(said) == 1, said
    text = (VECTORS / "good-auditor.json").read_text()
    for name, raw in (("latin-1", text.replace('"auditor"', '"audit\u00f6r"').encode("latin-1")),
                      ("utf-16", text.encode("utf-16"))):
        odd = tmp_path / f"{name}.json"
        odd.write_bytes(raw)
        for verifier in ("python", "node"):
            assert one_line(run_cli(verifier, odd)).startswith(f"{odd}: cannot be read as JSON (")


# --- the settlement: what was paid is what the engine decided, and the money adds up -------------
SETTLEMENTS = {"fail-settlement-redirected": ("good-auditor", "HandEnded", "to wallet:pl_thief"),
               "fail-settlement-overpaid": ("good-auditor", "HandEnded", "HandSettled pays"),
               "fail-settlement-pirate-pairs-redirected": ("good-pirate-pairs-auditor", "GameWon",
                                                           "to wallet:pl_thief"),
               "fail-settlement-cassino-unwon-pot": ("good-cassino-auditor", "RoundScored",
                                                     "which RoundScored did not decide")}


@pytest.mark.parametrize("forged", SETTLEMENTS)
def test_a_settlement_paid_otherwise_than_the_engine_decided_fails_in_every_reader(forged, tmp_path):
    """A bundle forged with the house key whose settlement (HandSettled, its TreasurePosted
    events, the summary's postings) pays otherwise than the engine's events decided (a stake
    redirected to a wallet, an escrow paying 7 more than it holds, a Cassino pot paid out that
    no side won), the engine's own events left as recorded, was VERIFIED by both verifiers:
    they compared HandEnded with the rules and the summary with TreasurePosted, never the
    settlement with what the hand's end decided. Both fail it, in `settlement` alone, in the
    same words; Banco's own reading fails it too."""
    good_name, by, said = SETTLEMENTS[forged]
    for checks in outcomes(json.loads((VECTORS / f"{good_name}.json").read_text()), tmp_path)[:2]:
        assert checks["settlement"]["status"] == "passed", checks["settlement"]
        assert f"as {by} decided" in checks["settlement"]["detail"], checks["settlement"]
    py, js, banco = outcomes(json.loads((VECTORS / f"{forged}.json").read_text()), tmp_path)
    assert py == js, (py, js)
    assert {k for k, c in py.items() if c["status"] == "failed"} == {"settlement"}, py
    detail = py["settlement"]["detail"]
    assert said in detail and (f"{by} decided" in detail or f"{by} did not decide" in detail), detail
    assert "\n" not in detail
    assert banco["settlement"]["status"] == "failed", banco["settlement"]


def _settled_otherwise(bundle: dict[str, Any], more: int) -> None:
    """The engine's plan (HandEnded), HandSettled, its TreasurePosted event and the summary all
    paying `more` on the first posting out of the escrow: the settlement is what the hand's end
    decided, but the escrow pays what it never took in (more > 0) or keeps some (more < 0)."""
    def edit(entry: dict[str, Any], change: Any) -> None:
        body = json.loads(entry["canonical"])
        change(body["data"])
        entry["canonical"] = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    at = next(i for i, e in enumerate(bundle["events"]) if e["type"] == "HandSettled")
    n = next(i for i, p in enumerate(json.loads(bundle["events"][at]["canonical"])["data"]["postings"])
             if p["from"].startswith("escrow:"))
    ended = next(e for e in bundle["events"] if e["type"] == "game.HandEnded")
    edit(ended, lambda d: d["data"]["postings"][n].__setitem__(2, d["data"]["postings"][n][2] + more))
    edit(bundle["events"][at], lambda d: d["postings"][n].update(amount=d["postings"][n]["amount"] + more))
    paid = [e for e in bundle["events"][at + 1:] if e["type"] == "TreasurePosted"][n]
    edit(paid, lambda d: d.update(amount=d["amount"] + more))
    bundle["postings"] = [json.loads(e["canonical"])["data"] for e in bundle["events"]
                          if e["type"] == "TreasurePosted"]


@pytest.mark.parametrize(("more", "said"), [(7, "more than it holds"),
                                            (-3, "keeps 3 once the hand is settled")])
def test_an_escrow_paying_what_it_never_held_or_keeping_some_fails_in_every_reader(more, said, tmp_path):
    """The settlement as the engine's HandEnded decided, but HandEnded itself paying out of the
    escrow 7 more than the bets put in (or 3 less, left in it): the money walked from the deal,
    every reader fails the settlement, whatever the rules' re-play says (Casino pirate's are not
    re-played by the verifiers)."""
    bundle = json.loads((VECTORS / "good-auditor.json").read_text())
    _settled_otherwise(bundle, more)
    for checks in outcomes(bundle, tmp_path):
        assert checks["settlement"]["status"] == "failed", checks["settlement"]
    py, js, _ = outcomes(bundle, tmp_path)
    assert py["settlement"] == js["settlement"], (py["settlement"], js["settlement"])
    assert said in py["settlement"]["detail"], py["settlement"]


# --- what a bundle is evidence of --------------------------------------------------------------
@pytest.mark.parametrize("vector", ["good-pirate-pairs-player", "good-auditor"])
def test_both_verifiers_say_which_hand_table_game_and_viewer_they_verified(vector):
    """A genuine bundle of another hand printed VERIFIED with nothing to compare against the
    disputed hand: both verifiers name the hand, table, game and viewer, in their text and in
    --json by the same field names."""
    bundle = json.loads((VECTORS / f"{vector}.json").read_text())
    want = {"hand_id": bundle["hand_id"], "table_id": bundle["table_id"], "game": bundle["game"],
            "viewer": {"kind": bundle["viewer"]["kind"], "seat": bundle["viewer"]["seat"]}}
    py, js = python_verifier(VECTORS / f"{vector}.json"), node_verifier(VECTORS / f"{vector}.json")
    for out in (py, js):
        assert {k: out.get(k) for k in want} == want, out
    texts = [run_cli(v, VECTORS / f"{vector}.json", "--key", KEY).stdout for v in ("python", "node")]
    assert texts[0] == texts[1], texts
    first = texts[0].splitlines()[0]
    seat = bundle["viewer"]["seat"]
    viewer = bundle["viewer"]["kind"] + ("" if seat is None else f" {seat}")
    assert first.split(None, 2)[2] == (f"hand {bundle['hand_id']}, table {bundle['table_id']}, game"
                                       f" {bundle['game']}, viewer {viewer}"), first


@pytest.mark.parametrize("verifier", ["python", "node"])
@pytest.mark.parametrize("as_json", [True, False])
def test_a_reader_that_goes_away_ends_the_verifier_quietly(verifier, as_json):
    """`banco-verify-bundle --json hand.json | head -c 10` ended the Python verifier with a
    BrokenPipeError traceback: a closed output ends it quietly, as Unix tools end."""
    command = ([sys.executable, "-m", "banco_verifier.cli"] if verifier == "python"
               else ["node", str(VERIFIER / "js" / "verify.mjs")])
    read, write = os.pipe()
    os.close(read)  # the reader is gone before a byte is written
    try:
        out = subprocess.run([*command, *(["--json"] if as_json else []), str(VECTORS / "good-auditor.json")],
                             stdout=write, stderr=subprocess.PIPE, text=True, cwd=VERIFIER, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(VERIFIER)})
    finally:
        os.close(write)
    assert out.stderr == "" and out.returncode in (0, 1), (out.returncode, out.stderr)


# --- events that are no hand's log -------------------------------------------------------------
@pytest.mark.parametrize("events", [{}, [], [1, 2], "events", None],
                         ids=["object", "empty", "numbers", "text", "null"])
def test_events_that_are_no_list_of_events_fail_the_same_checks_in_the_same_words(events, tmp_path):
    """`"events": {}` passed the Python verifier's chain ("0 links recomputed") and skipped its
    commitment, deck and replay, where Node failed them with `bundle.events.forEach is not a
    function`; an empty list passed the chain. Every check that reads the events fails alike in
    both, in words of the bundle's, and an empty list fails the chain in every reader."""
    bundle = json.loads((VECTORS / "good-auditor.json").read_text())
    bundle["events"] = events
    py, js, banco = outcomes(bundle, tmp_path)
    assert py == js, (py, js)
    for name in ("inclusion", "chain", "contents", "commitment", "deck", "replay", "settlement"):
        assert py[name]["status"] == "failed", (name, py[name])
        assert py[name]["detail"] in ("the bundle's events are not a list of events",
                                      "the bundle holds no events"), (name, py[name])
    assert banco["chain"]["status"] == "failed", banco["chain"]


# --- the postings made during the hand: each what its event posts -------------------------------
@pytest.fixture
def own_house(tmp_path) -> tuple[Any, Path]:
    """A house key of the test's own, and its published JSON: the committed vectors' house key
    is not at hand, so bundles forged here are signed, and checked, with this one."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from service.runtime import house_key

    key = Ed25519PrivateKey.generate()
    published = tmp_path / "own-house-key.json"
    published.write_text(json.dumps({"public_key": house_key.public_b64(key)}))
    return key, published


def in_hand_said_alike(bundle: dict[str, Any], tmp_path: Path, key_file: Path, said: str) -> None:
    """Every reader fails `settlement` (and no other check) in the same words, naming `said`."""
    py, js, banco = outcomes(bundle, tmp_path, key_file)
    assert py == js, (py, js)
    assert {k for k, c in py.items() if c["status"] == "failed"} == {"settlement"}, py
    assert said in py["settlement"]["detail"], py["settlement"]
    assert banco["settlement"] == py["settlement"], (banco["settlement"], py["settlement"])


def _to_house(data: dict[str, Any]) -> None:
    data["to"] = "house:issued"


def _from_house(data: dict[str, Any]) -> None:
    data["from"] = "house:issued"


def _one_more(data: dict[str, Any]) -> None:
    data["amount"] += 1


IN_HAND: dict[str, tuple[str, str, Any, str]] = {
    "a bet paid by the house": ("good-auditor", "bet", _from_house, "where version 12 (BetPlaced) posts 26"),
    "a bet raised": ("good-auditor", "bet", _one_more, "where version 12 (BetPlaced) posts 26"),
    "a Cassino stake raised": ("good-cassino-auditor", "stake", _one_more,
                               "where version 8 (StakesPaid) posts 2"),
    "a Cassino stake sent to the house": ("good-cassino-auditor", "stake", _to_house,
                                          "where version 8 (StakesPaid) posts 2"),
}


@pytest.mark.parametrize("case", IN_HAND)
def test_a_posting_made_during_the_hand_is_held_to_the_event_that_made_it(case, own_house, tmp_path):
    """The postings made during the hand were held only by the money's walk: a Cassino stake
    sent to house:issued, or raised by 1, a 7½ bet paid by the house, forged with the house key,
    gave VERIFIED. Each is what its event (BetPlaced, StakesPaid) posts, in every reader."""
    from tests.verifier.vectors import forged, reposted

    key, key_file = own_house
    good_name, reason, change, said = IN_HAND[case]
    good = json.loads((VECTORS / f"{good_name}.json").read_text())
    for checks in outcomes(forged(json.loads(json.dumps(good)), key), tmp_path, key_file):
        assert "failed" not in {c["status"] for c in checks.values()}, checks
    in_hand_said_alike(forged(reposted(good, reason, change), key), tmp_path, key_file, said)


def test_a_bets_posting_left_out_fails_in_every_reader(own_house, tmp_path):
    """A bet's posting taken out of the hand, its BetPlaced kept: its money never reached the
    escrow, though the hand paid from it. The next bet's posting is found where the first
    one's was due."""
    from tests.verifier.vectors import dropped, forged, posting_of

    key, key_file = own_house
    good = json.loads((VECTORS / "good-auditor.json").read_text())
    bundle = forged(dropped(good, posting_of("bet")), key)
    in_hand_said_alike(bundle, tmp_path, key_file,
                       "version 21: TreasurePosted pays 35 from seat:tb_6d1f05b0edd6fc9f:pl_7a83f4741061f69c"
                       " to escrow:tb_6d1f05b0edd6fc9f:hd_ba8051f19b4f7546 (bet) where version 12"
                       " (BetPlaced) posts 26")


# --- integers every reader reads alike ----------------------------------------------------------
INEXACT = "an integer beyond +/-(2^53 - 1), which not every reader reads exactly"


@pytest.mark.parametrize("number", ["9007199254740993", "-9007199254740993", "9007199254740992",
                                    "1e20", "18446744073709551617"])
def test_an_integer_past_two_to_the_53_is_refused_alike_by_every_reader(number, tmp_path):
    """Python read 2**53 + 1 exactly and Node as 2**53, so a bundle could be VERIFIED by one
    and FAILED by the other. A bundle holding an integer beyond +/-(2**53 - 1) cannot be read
    by either verifier (one line, exit status 2), and fails Banco's `format`; in an event's
    stored text, the checks that read it fail, in the same words in every reader."""
    text = (VECTORS / "good-auditor.json").read_text().rstrip()
    odd = tmp_path / "odd.json"
    odd.write_text(text[:-1] + f', "x": {number}' + "}")
    for verifier in ("python", "node"):
        assert one_line(run_cli(verifier, odd)) == f"{odd}: cannot be read as JSON ({INEXACT})"
    key = base64.b64decode(json.loads(KEY.read_text())["public_key"])
    assert check({**json.loads(text), "x": json.loads(number)}, key) == {"format": (False, INEXACT)}
    bundle = json.loads(text)
    event = bundle["events"][1]
    event["canonical"] = event["canonical"][:-1] + f',"x":{number}' + "}"
    py, js, banco = outcomes(bundle, tmp_path)
    assert py == js, (py, js)
    for checks in (py, js, banco):
        assert checks["chain"] == {"status": "failed",
                                   "detail": f"a stored text cannot be read ({INEXACT})"}, checks["chain"]


def test_the_largest_integer_both_read_exactly_is_taken(tmp_path):
    """2**53 - 1 is read alike: the bundle is refused for what the edit breaks, not for it."""
    bundle = json.loads((VECTORS / "good-auditor.json").read_text())
    bundle["x"] = 2**53 - 1
    for checks in outcomes(bundle, tmp_path):
        assert "format" not in checks and checks["attestation"]["status"] == "failed", checks


# --- a bundle lacking a member ------------------------------------------------------------------
@pytest.mark.parametrize("member", ["checkpoint", "events", "table_created", "chain", "seeds",
                                    "inclusion", "game", "postings"])
def test_a_bundle_lacking_a_member_fails_the_checks_that_read_it_naming_it(member, tmp_path):
    """A bundle without `checkpoint` failed with `KeyError: 'checkpoint'` in Python and
    `TypeError: Cannot read properties of undefined` in Node. Every reader fails the checks
    that read the member, naming it, in the same words."""
    bundle = json.loads((VECTORS / "good-auditor.json").read_text())
    del bundle[member]
    py, js, banco = outcomes(bundle, tmp_path)
    assert py == js, (py, js)
    named = {k for k, c in py.items() if c["detail"] == f"the bundle has no {member}"}
    assert named and all(c["status"] == "failed" for k, c in py.items() if k in named), py
    for checks in (py, js, banco):
        assert not [c for c in checks.values() if "cannot be read" in c["detail"]
                    or "Error" in c["detail"] or "unreadable" in c["detail"]], checks
    assert {k for k, (c) in banco.items() if c["detail"] == f"the bundle has no {member}"}, banco


NESTED = ["checkpoint.public_key", "checkpoint.statement", "checkpoint.signature",
          "attestation.algorithm", "attestation.key_id", "attestation.signature",
          "inclusion.last_event", "inclusion.table_created", "inclusion.last_event.path",
          "inclusion.last_event.tree_size", "inclusion.table_created.leaf_index",
          "chain.stream_id", "chain.first_version", "chain.previous_hash", "seeds.commitment",
          "seeds.player_seeds", "seeds.server_seed", "table_created.canonical",
          "table_created.hash", "table_created.version", "table_created.position",
          "events[0].canonical", "events[0].hash", "events[0].type", "events[0].version",
          "events[0].stream_id", "events[37].position"]


def _without(bundle: dict[str, Any], member: str) -> None:
    """`bundle` without `member` (`seeds.server_seed`, `events[3].hash`)."""
    *path, last = re.findall(r"[^.\[\]]+", member)
    for step in path:
        bundle = bundle[int(step)] if step.isdigit() else bundle[step]
    del bundle[last]


@pytest.mark.parametrize(("vector", "member"), [*(("good-auditor", m) for m in NESTED),
                                                ("good-pirate-pairs-player", "viewer.kind")])
def test_a_bundle_lacking_a_nested_member_fails_the_checks_that_read_it_naming_it(vector, member,
                                                                                   tmp_path):
    """A bundle whose `seeds` has no `server_seed` (or an event no `hash`, a proof no `path`)
    failed with `unreadable (KeyError)` in Banco, `the bundle cannot be read (KeyError:
    'server_seed')` in Python and a `TypeError` or a wrong reason in Node. Every reader fails
    the checks that read the member, naming it where it sits, in the same words."""
    bundle = json.loads((VECTORS / f"{vector}.json").read_text())
    if member.startswith("events[37]"):
        assert len(bundle["events"]) == 38 and bundle["inclusion"]["last_event"]["version"] == \
            bundle["events"][37]["version"]  # the event the inclusion proof proves
    _without(bundle, member)
    py, js, banco = outcomes(bundle, tmp_path)
    assert py == js, (py, js)
    said = f"the bundle has no {member}"
    named = {k for k, c in py.items() if c["detail"] == said}
    assert named and all(py[k]["status"] == "failed" for k in named), py
    for checks in (py, js, banco):
        assert not [c for c in checks.values() if "cannot be read" in c["detail"]
                    or "Error" in c["detail"] or "unreadable" in c["detail"]], checks
    assert {k for k, c in banco.items() if c["detail"] == said} >= named, banco


# --- the cards a 7½ hand shows ------------------------------------------------------------------
def test_a_hand_shown_with_a_card_never_dealt_to_it_fails_the_deck_in_every_reader(own_house,
                                                                                    tmp_path):
    """A Sette e mezzo CardsShown re-forged with its first card one never dealt to that hand
    gave VERIFIED: the deck walk compared the cards dealt, not the cards shown. Each hand
    shown is the cards dealt to it, in every reader, in the same words: the hand page's own
    check too (static/deck_check.js), which passed it."""
    from tests.verifier.browser_deck import browser_checks
    from tests.verifier.vectors import _edit, forged

    key, key_file = own_house
    good = json.loads((VECTORS / "good-auditor.json").read_text())
    shown = next(json.loads(e["canonical"])["data"]["data"] for e in good["events"]
                 if e["type"] == "game.CardsShown")
    assert shown["cards"][:3] == ["3c", "4s", "Qh"], shown  # hand 0: seat 2's, dealt at 17, 23, 25

    def other_card(body: dict[str, Any]) -> None:
        body["data"]["data"]["cards"][0] = "Kd"  # a card no hand of this one was dealt

    bundle = forged(_edit(good, "game.CardsShown", other_card), key)
    version = next(e["version"] for e in bundle["events"] if e["type"] == "game.CardsShown")
    py, js, banco = outcomes(bundle, tmp_path, key_file)
    assert py == js, (py, js)
    said = f"version {version} (CardsShown) shows Kd 4s Qh, hand 0 was dealt 3c 4s Qh"
    assert {k for k, c in py.items() if c["status"] == "failed"} == {"deck"}, py
    assert py["deck"]["detail"] == said, py["deck"]
    assert banco["deck"] == {"status": "failed", "detail": said}, banco["deck"]
    unedited = json.loads((VECTORS / "good-auditor.json").read_text())
    assert {k: c["status"] for k, c in browser_checks(unedited, tmp_path).items()} == dict.fromkeys(
        ("deck.commitment", "deck.order", "deck.dealt"), "passed")
    browser = browser_checks(bundle, tmp_path)
    assert browser["deck.dealt"] == {"status": "failed", "detail": said}, browser
    assert browser["deck.commitment"]["status"] == browser["deck.order"]["status"] == "passed", browser
    # A player, or the operator, not shown the deal of the hand's first card still knows the
    # deck's order once the seed is revealed, so the position it was dealt from: the forged
    # hand fails for each of them in the same words, and an honest one has every card it shows
    # compared.
    for seat, operator in ((0, False), (1, False), (2, False), (None, True)):
        viewer = {"seat": seat, "operator": operator}
        forged_seen = browser_checks(bundle, tmp_path, seat, operator=operator)
        assert forged_seen["deck.dealt"] == {"status": "failed", "detail": said}, (viewer, forged_seen)
        honest = browser_checks(unedited, tmp_path, seat, operator=operator)
        assert honest["deck.dealt"] == {
            "status": "passed", "detail": "7 cards dealt, each the deck's next card"}, (viewer, honest)
        assert honest["deck.order"]["status"] == "skipped", (viewer, honest)
    # A card dealt hidden and never shown stays uncompared: seat 1's hand, shown only at the
    # showdown, left unshown.
    unshown = json.loads(json.dumps(unedited))
    unshown["events"] = [e for e in unshown["events"] if not (
        e["type"] == "game.CardsShown" and json.loads(e["canonical"])["data"]["data"]["index"] == 1)]
    assert len(unshown["events"]) == len(unedited["events"]) - 1
    assert browser_checks(unshown, tmp_path, 0)["deck.dealt"] == {"status": "passed", "detail": (
        "7 cards dealt; 6 compared, each the deck's next card, 1 hidden from you not compared")}


@pytest.mark.parametrize("card", ["2d", "Kd"])
def test_a_card_turned_up_that_its_hand_was_not_dealt_fails_the_deck_in_every_reader(
        card, own_house, tmp_path):
    """Sette e mezzo's banker turned up `2c` (version 30), dealt face down to him at 19. Re-forged
    to turn up another seat's hidden card (`2d`) or one never dealt (`Kd`), it passed Banco's
    check and both verifiers, and failed only in the browser's: every reader now holds a card
    turned up to the cards dealt to that hand, in the same words."""
    from tests.verifier.browser_deck import browser_checks
    from tests.verifier.vectors import _edit, forged

    key, key_file = own_house
    good = json.loads((VECTORS / "good-auditor.json").read_text())

    def other_card(body: dict[str, Any]) -> None:
        assert body["data"]["data"]["card"] == "2c"
        body["data"]["data"]["card"] = card

    bundle = forged(_edit(good, "game.CardTurnedUp", other_card), key)
    version = next(e["version"] for e in bundle["events"] if e["type"] == "game.CardTurnedUp")
    py, js, banco = outcomes(bundle, tmp_path, key_file)
    assert py == js, (py, js)
    said = f"version {version} (CardTurnedUp) shows {card}, hand -1 was dealt 2c"
    assert py["deck"]["status"] == "failed" and py["deck"]["detail"] == said, py["deck"]
    assert banco["deck"] == {"status": "failed", "detail": said}, banco["deck"]
    assert browser_checks(bundle, tmp_path)["deck.dealt"] == {"status": "failed", "detail": said}
