"""The published test vectors of `verifier/vectors/`, made from a real hand played on a real
`banco run`: good bundles (an auditor's and a player's) and tampered ones, each named
`fail-<check>-<what>.json` after the check that must fail on it.

Some are tampered plainly (a byte of the signature, a proof, an event); others are forged as
the house itself could: events changed, the chain recomputed over them and a checkpoint of
their own signed with the house's key, so that only the checks of what the events say (the
commitment, the deck, the rules) can tell. Run it to publish a new set:

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/10 \\
      .venv/bin/python -m tests.verifier.vectors verifier/vectors
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.application import evidence as evidence_module
from service.runtime import house_key
from tests.conftest import fresh_database
from tests.service.conftest import OPERATOR, OPERATOR_KEY, Player
from tests.service.play import Session, evidence
from tests.service.test_metrics import Http
from tests.test_cli import banco_running

Bundle = dict[str, Any]


# --- playing a hand ------------------------------------------------------------------------------
def _player(http: Http, name: str) -> Player:
    r = http.post("/v1/players", json={"name": name}, headers=OPERATOR)
    player = Player(r.json["player"]["id"], r.json["token"])
    r = http.post(f"/v1/players/{player.id}/deposits", json={"amount": 200, "reason": "vectors"},
                  headers=OPERATOR)
    assert r.status_code == 201, r.json
    return player


def _ended(bundle: Bundle) -> dict[str, Any]:
    last = next(e for e in reversed(bundle["events"]) if e["type"] == "game.HandEnded")
    return dict(orjson.loads(last["canonical"])["data"]["data"])


def _has(bundle: Bundle, type_: str) -> bool:
    return any(e["type"] == type_ for e in bundle["events"])


def played_deals(base: str, game: str, options: dict[str, Any], players: int, must_have: str,
                 attempts: int = 20) -> tuple[Bundle, Bundle]:
    """A table's first hand of `game` (Cassino, Pirate pairs) whose events hold a `must_have`:
    its auditor's and first player's bundles, for the walk of the cards dealt and drawn."""
    http = Http(base)
    auditor = http.post("/v1/auditors", json={"name": f"vectors-{game}"}, headers=OPERATOR).json["token"]
    for attempt in range(attempts):
        seated = [_player(http, f"{game}-{attempt}-{i}") for i in range(players)]
        session = Session(http, game, seated)  # type: ignore[arg-type]
        session.open(options, 50)
        hand_id = session.deal()
        session.play_hand()
        session.wait_settled(hand_id)
        full = evidence(http, hand_id, {"Authorization": f"Bearer {auditor}"})
        assert full.status_code == 200, full.json
        if _has(full.json, f"game.{must_have}"):
            mine = evidence(http, hand_id, session.players[0].auth)
            assert mine.status_code == 200, mine.json
            return full.json, mine.json
    raise AssertionError(f"no hand of {game} had a {must_have}")


def played_no_bet(base: str) -> tuple[Bundle, Bundle, Bundle]:
    """A hand of Casino pirate in which nobody bets (both seats sit out when their turn times
    out): its last event is the seed's reveal, an auditor's alone. The auditor's, the first
    player's and the operator's bundles. Only rules version 1 sits a timed-out bettor out: the
    committed `good-casino-pirate-no-bet-*` vectors are version 1 hands, kept as old hands that
    must verify; a Banco whose current Casino pirate is version 2 bets the minimum for him, and
    this hand needs another way to settle with no posting before the vectors are made again."""
    http = Http(base)
    auditor = http.post("/v1/auditors", json={"name": "vectors-no-bet"}, headers=OPERATOR).json["token"]
    session = Session(http, "casino-pirate", [_player(http, f"nobet-{i}") for i in range(2)])  # type: ignore[arg-type]
    session.open({"turn_timeout_s": 1}, 10)
    hand_id = session.deal()
    session.wait_settled(hand_id, timeout=120)
    bundles = [evidence(http, hand_id, who) for who in
               ({"Authorization": f"Bearer {auditor}"}, session.players[0].auth, OPERATOR)]
    assert all(b.status_code == 200 for b in bundles), [b.json for b in bundles]
    full, mine, operators = (b.json for b in bundles)
    assert full["events"][-1]["type"] == "SeedRevealed" and mine["events"][-1]["canonical"] is None
    return full, mine, operators


def played(base: str, attempts: int = 20) -> tuple[Bundle, Bundle, dict[str, Any]]:
    """A table's first hand of Sette e mezzo on the Banco at `base`, ended with a payout: its
    auditor's and first player's bundles, and the house's published key."""
    http = Http(base)
    auditor = http.post("/v1/auditors", json={"name": "vectors"}, headers=OPERATOR).json["token"]
    for attempt in range(attempts):
        session = Session(http, "sette-e-mezzo", [_player(http, f"V{attempt}-{i}") for i in range(3)])  # type: ignore[arg-type]
        session.open({}, 50)
        hand_id = session.deal()
        session.play_hand()
        session.wait_settled(hand_id)
        full = evidence(http, hand_id, {"Authorization": f"Bearer {auditor}"})
        assert full.status_code == 200, full.json
        if _ended(full.json)["postings"]:
            mine = evidence(http, hand_id, session.players[0].auth)
            assert mine.status_code == 200, mine.json
            return full.json, mine.json, http.get("/.well-known/banco-house-key").json
    raise AssertionError("no hand ended with a payout")


# --- tampering -----------------------------------------------------------------------------------
def _canonical(body: Any) -> str:
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS).decode()


def _leaf(e: dict[str, Any]) -> bytes:
    head = f"{e['position']}\n{e['stream_id']}\n{e['version']}\n{e['hash']}\n"
    return hashlib.sha256(b"\x00" + head.encode() + e["canonical"].encode()).digest()


def attest(bundle: Bundle, key: Ed25519PrivateKey) -> Bundle:
    """`bundle` attested again by `key`, as only the house could."""
    bundle.pop("attestation", None)
    return evidence_module.attested(key, bundle)


def forged(bundle: Bundle, key: Ed25519PrivateKey) -> Bundle:
    """`bundle` made whole again after its events changed, as only the house could: the chain
    recomputed, a checkpoint over two leaves (TableCreated and the last event) signed, and the
    bundle attested."""
    head = bytes.fromhex(bundle["chain"]["previous_hash"])
    for e in bundle["events"]:
        head = hashlib.sha256(head + e["canonical"].encode()).digest()
        e["hash"] = head.hex()
    left, right = _leaf(bundle["table_created"]), _leaf(bundle["events"][-1])
    root = hashlib.sha256(b"\x01" + left + right).digest()
    statement = json.loads(bundle["checkpoint"]["statement"])
    statement.update(events=2, root=root.hex())
    text = json.dumps(statement, sort_keys=True, separators=(",", ":"))
    bundle["checkpoint"].update(statement=text, signature=base64.b64encode(key.sign(text.encode())).decode(),
                                public_key=house_key.public_b64(key), key_id=house_key.key_id(key))
    bundle["inclusion"] = {"table_created": {"leaf_index": 0, "tree_size": 2, "path": [right.hex()],
                                             "version": 1},
                           "last_event": {"leaf_index": 1, "tree_size": 2, "path": [left.hex()],
                                          "version": bundle["events"][-1]["version"]}}
    return attest(bundle, key)


def _summary(bundle: Bundle) -> Bundle:
    """The summary's postings written from the TreasurePosted events again."""
    bundle["postings"] = [orjson.loads(e["canonical"])["data"] for e in bundle["events"]
                          if e["type"] == "TreasurePosted"]
    return bundle


def reposted(bundle: Bundle, reason: str, change: Callable[[dict[str, Any]], None]) -> Bundle:
    """The first posting of `reason` made during the hand (a bet, a bust, a stake) changed by
    `change`, its event left as recorded, the summary's postings written again: what only
    the house could do, before `forged` makes the bundle whole again."""
    found = next(e for e in bundle["events"] if e["type"] == "TreasurePosted"
                 and orjson.loads(e["canonical"])["data"]["reason"] == reason)
    body = orjson.loads(found["canonical"])
    change(body["data"])
    found["canonical"] = _canonical(body)
    return _summary(bundle)


def dropped(bundle: Bundle, pick: Callable[[dict[str, Any]], bool]) -> Bundle:
    """The first event `pick` (given the entry and its parsed body) chooses taken out of the
    hand, the events after it moved up a version and a position, the summary written again."""
    at = next(i for i, e in enumerate(bundle["events"]) if pick(e))
    for e in bundle["events"][at + 1:]:
        e["version"] -= 1
        e["position"] -= 1
    del bundle["events"][at]
    return _summary(bundle)


def posting_of(reason: str) -> Callable[[dict[str, Any]], bool]:
    """Picks the TreasurePosted event of `reason`."""
    return lambda e: (e["type"] == "TreasurePosted"
                      and orjson.loads(e["canonical"])["data"]["reason"] == reason)


def tampered_views(full: Bundle, no_bet: tuple[Bundle, Bundle, Bundle]) -> dict[str, Bundle]:
    """The bundle fields no chain link covers, edited: an auditor's bundle passed off as a
    seat's, its outcome withheld and shown otherwise; an event's time; an event's place; a
    summary field. And a no-bet Casino pirate player's bundle given the seed's reveal whole
    after the event it proves."""
    out: dict[str, Bundle] = {}
    v = copy.deepcopy(full)
    v["viewer"], v["redacted"] = {"kind": "seat", "seat": 1}, True
    for e in v["events"]:
        if e["type"] in ("game.HandEnded", "game.CardsShown"):
            body = orjson.loads(e["canonical"])
            data = body["data"]["data"]
            for row in data.get("results", []):
                row["outcome"], row["net"] = "won", abs(row.get("net", 0)) + 10
            e["canonical"], e["shown"] = None, {"type": e["type"], "data": body["data"]}
    out["fail-attestation-viewer-withheld-shown"] = v
    v = copy.deepcopy(full)
    v["events"][1]["recorded_at"] = "2001-01-01T00:00:00+00:00"
    out["fail-attestation-recorded-at"] = v
    v = copy.deepcopy(full)
    v["events"][1]["position"] += 1
    out["fail-attestation-position"] = v
    v = copy.deepcopy(full)
    v["hand_id"] = v["hand_id"][:-1] + ("0" if v["hand_id"][-1] != "0" else "1")
    out["fail-attestation-hand-id"] = v
    auditors, players, _ = no_bet
    v = copy.deepcopy(players)
    v["events"][-1]["canonical"] = auditors["events"][-1]["canonical"]
    v["events"][-1].pop("shown", None)
    out["fail-inclusion-shown-after-proven"] = v
    return out


def _edit(bundle: Bundle, type_: str, change: Callable[[dict[str, Any]], None], nth: int = 0) -> Bundle:
    """Change the `nth` stored event of `type_` (its parsed body) and store it canonically."""
    found = [e for e in bundle["events"] if e["type"] == type_][nth]
    body = orjson.loads(found["canonical"])
    change(body)
    found["canonical"] = _canonical(body)
    return bundle


def _swap_two(body: dict[str, Any]) -> None:
    deck = body["data"]["data"]["deck"]
    deck[0], deck[1] = deck[1], deck[0]


def _other_card(body: dict[str, Any]) -> None:
    data = body["data"]["data"]
    data["card"] = "7s" if data["card"] != "7s" else "6s"


def _new_seed(body: dict[str, Any]) -> None:
    body["data"]["server_seed"] = "ab" * 32


def _another_card(order_key: str, field: str, bundle: Bundle) -> Callable[[dict[str, Any]], None]:
    """An edit putting, in place of the event's first card, the deck's last one (dealt, if
    ever, far later): the deck stays the seeds', only the walk of the cards can tell."""
    opening = next(orjson.loads(e["canonical"]) for e in bundle["events"] if e["type"].startswith("game."))
    last = opening["data"]["data"][order_key][-1]

    def change(body: dict[str, Any]) -> None:
        data = body["data"]["data"]
        if isinstance(data[field], list):
            data[field][0] = last
        else:
            data[field] = last

    return change


def tampered_deals(cassino: Bundle, pirate_pairs: Bundle, house: Ed25519PrivateKey) -> dict[str, Bundle]:
    """A card dealt in Cassino's second packet, and Pirate pairs' first card drawn, replaced by
    another: the chain recomputed and signed again, the deck's order the seeds'. And each
    game's settlement paid otherwise than its engine decided (`tampered_settlements`)."""
    c, p = copy.deepcopy(cassino), copy.deepcopy(pirate_pairs)
    return {"fail-deck-cassino-dealt-card": forged(
                _edit(c, "game.CardsDealt", _another_card("deck", "cards", c), nth=1), house),
            "fail-deck-pirate-pairs-drawn-card": forged(
                _edit(p, "game.CardDrawn", _another_card("pile", "card", p)), house),
            **tampered_settlements(cassino, pirate_pairs, house)}


THIEF = "wallet:pl_thief00000000000"


def _settlement(bundle: Bundle) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The bundle's HandSettled event and the TreasurePosted events after it (what settlement
    paid), each entry as the bundle holds it."""
    at = next(i for i, e in enumerate(bundle["events"]) if e["type"] == "HandSettled")
    return bundle["events"][at], [e for e in bundle["events"][at + 1:] if e["type"] == "TreasurePosted"]


def _paid_otherwise(bundle: Bundle, pick: Callable[[list[dict[str, Any]]], int],
                    change: Callable[[dict[str, Any]], None]) -> Bundle:
    """One settlement posting changed as the house could: `change` on the `pick`-th one, in
    HandSettled's postings and in its TreasurePosted event alike, and the summary's postings
    written from the events again; the engine's events (what it decided) left as recorded."""
    settled, paid = _settlement(bundle)
    bodies = [orjson.loads(e["canonical"]) for e in paid]
    n = pick([b["data"] for b in bodies])
    change(bodies[n]["data"])
    paid[n]["canonical"] = _canonical(bodies[n])
    settled_body = orjson.loads(settled["canonical"])
    settled_body["data"]["postings"][n] = {k: bodies[n]["data"][k]
                                           for k in ("from", "to", "amount", "reason")}
    settled["canonical"] = _canonical(settled_body)
    bundle["postings"] = [orjson.loads(e["canonical"])["data"] for e in bundle["events"]
                          if e["type"] == "TreasurePosted"]
    return bundle


def _paid_unwon(bundle: Bundle) -> Bundle:
    """A settlement posting the engine never decided, added: the pot paid to the first seat's
    player (a Cassino round no side won settles nothing), in HandSettled and as a TreasurePosted
    event at the end of the hand, the summary's postings written from the events again."""
    settled, _ = _settlement(bundle)
    stake = next(e for e in bundle["events"] if e["type"] == "TreasurePosted")
    body = orjson.loads(stake["canonical"])
    pot = sum(orjson.loads(e["canonical"])["data"]["amount"] for e in bundle["events"]
              if e["type"] == "TreasurePosted")
    body["data"].update({"from": body["data"]["to"], "to": body["data"]["from"], "amount": pot,
                         "reason": "pot_won"})
    settled_body = orjson.loads(settled["canonical"])
    assert settled_body["data"]["postings"] == [], settled_body
    settled_body["data"]["postings"] = [{k: body["data"][k] for k in ("from", "to", "amount", "reason")}]
    settled["canonical"] = _canonical(settled_body)
    last = bundle["events"][-1]
    bundle["events"].append({**last, "position": last["position"] + 1, "version": last["version"] + 1,
                             "type": "TreasurePosted", "canonical": _canonical(body)})
    bundle["postings"] = [orjson.loads(e["canonical"])["data"] for e in bundle["events"]
                          if e["type"] == "TreasurePosted"]
    return bundle


def _to_thief(data: dict[str, Any]) -> None:
    data["to"] = THIEF


def _last(postings: list[dict[str, Any]]) -> int:
    return len(postings) - 1


def _first_from_escrow(postings: list[dict[str, Any]]) -> int:
    return next(i for i, p in enumerate(postings) if p["from"].startswith("escrow:"))


def _seven_more(data: dict[str, Any]) -> None:
    data["amount"] += 7


def tampered_settlements(cassino: Bundle, pirate_pairs: Bundle,
                         house: Ed25519PrivateKey) -> dict[str, Bundle]:
    """Settlements paid otherwise than the engine decided, forged as the house could (the
    engine's events left as recorded): Pirate pairs' pot paid to a wallet of nobody's at the
    table, and a Cassino round no side won paying its pot out."""
    return {"fail-settlement-pirate-pairs-redirected": forged(
                _paid_otherwise(copy.deepcopy(pirate_pairs), _last, _to_thief), house),
            "fail-settlement-cassino-unwon-pot": forged(_paid_unwon(copy.deepcopy(cassino)), house)}


def tampered(good: Bundle, house: Ed25519PrivateKey) -> dict[str, Bundle]:
    """Every tampered vector by its file name (without `.json`)."""
    b = lambda: copy.deepcopy(good)  # noqa: E731
    out: dict[str, Bundle] = {}
    v = b()
    sig = bytearray(base64.b64decode(v["checkpoint"]["signature"]))
    sig[0] ^= 1
    v["checkpoint"]["signature"] = base64.b64encode(bytes(sig)).decode()
    out["fail-signature-altered"] = v
    out["fail-signature-other-key"] = forged(b(), Ed25519PrivateKey.generate())
    v = b()
    path = v["inclusion"]["last_event"]["path"]
    path[0] = ("0" if path[0][0] != "0" else "1") + path[0][1:]
    out["fail-inclusion-path"] = v
    v = b()
    v["inclusion"]["table_created"]["leaf_index"] += 1
    out["fail-inclusion-leaf-index"] = v
    out["fail-chain-edited-bet"] = _edit(b(), "game.BetPlaced", lambda body: body["data"]["data"].update(
        amount=body["data"]["data"]["amount"] + 1))
    v = b()
    v["chain"]["previous_hash"] = "00" * 32
    out["fail-chain-previous-link"] = v
    v = b()
    v["postings"][0]["amount"] += 1
    out["fail-contents-postings"] = v
    v = _edit(b(), "SeedRevealed", _new_seed)
    v["seeds"]["server_seed"] = "ab" * 32
    out["fail-commitment-other-seed"] = forged(v, house)
    out["fail-deck-order"] = forged(_edit(b(), "game.HandStarted", _swap_two), house)
    out["fail-deck-dealt-card"] = forged(_edit(b(), "game.CardDealt", _other_card, nth=1), house)

    def more_paid(body: dict[str, Any]) -> None:
        body["data"]["data"]["postings"][0][2] += 1

    out["fail-replay-payout"] = forged(_edit(b(), "game.HandEnded", more_paid), house)

    def better_total(body: dict[str, Any]) -> None:
        body["data"]["data"]["results"][0]["total"] += 1

    out["fail-replay-total"] = forged(_edit(b(), "game.HandEnded", better_total), house)
    # The settlement paid otherwise than HandEnded decided, HandEnded left as it was: a stake
    # redirected to a wallet of nobody's at the table; an escrow paying 7 more than it holds.
    out["fail-settlement-redirected"] = forged(_paid_otherwise(b(), _last, _to_thief), house)
    out["fail-settlement-overpaid"] = forged(_paid_otherwise(b(), _first_from_escrow, _seven_more), house)
    return out


def write(folder: Path, full: Bundle, mine: Bundle, key_doc: dict[str, Any],
          house: Ed25519PrivateKey, deals: dict[str, tuple[Bundle, Bundle]] | None = None,
          no_bet: tuple[Bundle, Bundle, Bundle] | None = None) -> None:
    """The vectors and the house key they are checked with, in `folder`; with `deals` (the
    auditor's and a player's bundles of a Cassino and of a Pirate pairs hand, by game), theirs
    too; with `no_bet` (the auditor's, a player's and the operator's bundles of a Casino pirate
    hand nobody bet in), theirs and the tampered views."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.json"):
        old.unlink()
    files = {"good-auditor": full, "good-player": mine, **tampered(full, house)}
    for game, (auditors, players) in (deals or {}).items():
        files.update({f"good-{game}-auditor": auditors, f"good-{game}-player": players})
    if deals:
        files.update(tampered_deals(deals["cassino"][0], deals["pirate-pairs"][0], house))
    if no_bet:
        files.update({"good-casino-pirate-no-bet-auditor": no_bet[0],
                      "good-casino-pirate-no-bet-player": no_bet[1],
                      "good-casino-pirate-no-bet-operator": no_bet[2],
                      **tampered_views(full, no_bet)})
    for name, bundle in files.items():
        (folder / f"{name}.json").write_text(json.dumps(bundle, indent=1, ensure_ascii=False) + "\n")
    (folder / "house-key.json").write_text(json.dumps(key_doc, indent=1) + "\n")


@contextmanager
def banco(admin_url: str, redis_url: str) -> Iterator[tuple[str, Path]]:
    """`banco run` on a database of its own: its URL and data folder (its house key there)."""
    with tempfile.TemporaryDirectory(prefix="banco-vectors-") as tmp, \
            fresh_database(admin_url, "banco_vectors") as url, \
            banco_running(Path(tmp), url, redis_url, BANCO_OPERATOR_KEY=OPERATOR_KEY) as (base, _):
        yield base, Path(tmp)


def main(out: Path) -> None:
    with banco(os.environ["DATABASE_URL"], os.environ["REDIS_URL"]) as (base, data):
        full, mine, key_doc = played(base)
        # Classic Cassino deals again from the stock whenever the hands are empty: every deal
        # of the round is in its bundle. A Pirate pairs hand with a draw, the walk's subject.
        deals = {"cassino": played_deals(base, "cassino", {"stake": 2}, 2, "CardsDealt"),
                 "pirate-pairs": played_deals(base, "pirate-pairs", {"stake": 2}, 3, "CardDrawn")}
        write(out, full, mine, key_doc, house_key.load(data / "house_key.pem"), deals,
              played_no_bet(base))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
