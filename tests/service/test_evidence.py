"""Signed evidence bundles: a played hand proved, event by event, to a checkpoint the house
signed, checked here with nothing but the bundle and the house's public key."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from games import registry
from service.application.evidence import covering
from service.verification import inclusion
from tests.service.conftest import OPERATOR, bearer
from tests.service.play import Session, evidence


@pytest.fixture
def auditor(client) -> str:
    return str(client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"])


@pytest.fixture
def played(client, new_player, worker) -> tuple[Session, str]:
    """A settled hand of Sette e mezzo between three players."""
    session = Session(client, "sette-e-mezzo", [new_player(f"E{i}", deposit=200) for i in range(3)])
    session.open({}, 50)
    hand_id = session.deal()
    session.play_hand()
    session.wait_settled(hand_id)
    return session, hand_id


@pytest.fixture
def secret(client, new_player, worker) -> tuple[Session, str]:
    """A settled hand of Pirate pairs between three players, whose opening cards are chosen in
    secret (002_ae078369b503c97e.txt): it keeps some events from each seat for good."""
    session = Session(client, "pirate-pairs", [new_player(f"P{i}", deposit=40) for i in range(3)])
    session.open({"stake": 5, "turn_timeout_s": 30}, 20)
    hand_id = session.deal()
    session.play_hand()
    session.wait_settled(hand_id)
    return session, hand_id


def leaf(event: dict) -> bytes:
    head = f"{event['position']}\n{event['stream_id']}\n{event['version']}\n{event['hash']}\n"
    return hashlib.sha256(b"\x00" + head.encode() + event["canonical"].encode()).digest()


def proved(bundle: dict, public_key: str) -> dict:
    """Check the signature, both inclusion proofs and the chain; the signed checkpoint."""
    signed = bundle["checkpoint"]
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key))
    key.verify(base64.b64decode(signed["signature"]), signed["statement"].encode())
    checkpoint = json.loads(signed["statement"])
    root = bytes.fromhex(checkpoint["root"])
    for name, event in (("last_event", bundle["events"][-1]), ("table_created", bundle["table_created"])):
        proof = bundle["inclusion"][name]
        assert proof["tree_size"] == checkpoint["events"]
        assert inclusion.verify(leaf(event), proof["leaf_index"], proof["tree_size"],
                                [bytes.fromhex(p) for p in proof["path"]], root), name
    head = bytes.fromhex(bundle["chain"]["previous_hash"])
    for event in bundle["events"]:
        if event["canonical"] is not None:
            head = hashlib.sha256(head + event["canonical"].encode()).digest()
            assert head.hex() == event["hash"], event["version"]
        head = bytes.fromhex(event["hash"])
    return checkpoint


def test_an_auditors_bundle_proves_every_event_of_the_hand(app, client, played, auditor):
    session, hand_id = played
    key = client.get("/.well-known/banco-house-key").json
    bundle = evidence(client, hand_id, bearer(auditor)).json
    assert not bundle["redacted"] and bundle["viewer"]["kind"] == "auditor"
    proved(bundle, key["public_key"])
    # The events are the stored ones, byte for byte, and nothing of the hand is left out.
    stored = [e for e in app.extensions["banco.store"].read_stream(f"table-{session.table_id}")
              if e.version >= bundle["chain"]["first_version"]]
    shown = [e["canonical"] for e in bundle["events"]]
    assert shown == [e.canonical() for e in stored][:len(shown)]
    assert bundle["events"][-1]["version"] == max(
        e.version for e in stored if e.data.get("hand", e.data.get("hand_id")) == hand_id)
    seeds = bundle["seeds"]
    assert hashlib.sha256(bytes.fromhex(seeds["server_seed"])).hexdigest() == seeds["commitment"]
    assert bundle["postings"] and all(p["hand"] == hand_id for p in bundle["postings"])


def test_a_bundle_signed_by_another_key_or_altered_fails(client, played, auditor):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from service.runtime.house_key import public_b64

    _, hand_id = played
    bundle = evidence(client, hand_id, bearer(auditor)).json
    with pytest.raises(InvalidSignature):
        proved(bundle, public_b64(Ed25519PrivateKey.generate()))
    key = client.get("/.well-known/banco-house-key").json["public_key"]
    altered = json.loads(json.dumps(bundle))
    # One space more in the stored text of the last event: the same JSON, other bytes.
    altered["events"][-1]["canonical"] = altered["events"][-1]["canonical"].replace("{", "{ ", 1)
    with pytest.raises(AssertionError):
        proved(altered, key)


def test_a_players_bundle_withholds_the_deck_and_still_proves_the_hand(client, secret):
    session, hand_id = secret
    key = client.get("/.well-known/banco-house-key").json["public_key"]
    player = session.players[0]
    bundle = evidence(client, hand_id, player.auth).json
    assert bundle["redacted"] and bundle["viewer"]["kind"] == "seat"
    opening = next(e for e in bundle["events"] if e["type"].startswith("game."))
    # The opening event holds the whole pile: the player gets its place and hash, not its bytes.
    assert opening["canonical"] is None and "pile" not in opening["shown"]["data"]
    proved(bundle, key)


def test_a_settled_hand_with_no_secret_move_is_given_whole(client, played, auditor):
    """A settled hand of Sette e mezzo, whose seed every player and the operator receive: the
    seed tells the whole deck and every move was sent in the open, so every event follows from
    what they hold. Their bundles give every event as stored, the face-down cards dealt to the
    other seats included, so that a player's verifier walks every deal too."""
    session, hand_id = played
    key = client.get("/.well-known/banco-house-key").json["public_key"]
    full = evidence(client, hand_id, bearer(auditor)).json
    texts = [e["canonical"] for e in full["events"]]
    face_down = [t for t in texts if "CardDealt" in t and "\"visible_to\":[" in t]
    assert face_down  # cards dealt face down, each for one seat's eyes during play
    for who in [*(p.auth for p in session.players), OPERATOR]:
        bundle = evidence(client, hand_id, who).json
        assert not bundle["redacted"], bundle["viewer"]
        assert [e["canonical"] for e in bundle["events"]] == texts
        assert bundle["seeds"] == full["seeds"]
        proved(bundle, key)


def test_a_bundle_withholds_only_what_its_viewer_may_not_see(client, played, auditor):
    """Other seats' bets, hits and stands are public: a player's bundle and the operator's give
    them as stored, so that their chain links are checked, and withhold only events whose stored
    bytes hold something the viewer may not see."""
    session, hand_id = played
    stored = {e["version"]: json.loads(e["canonical"])
              for e in evidence(client, hand_id, bearer(auditor)).json["events"]}
    for who in (session.players[0].auth, OPERATOR):
        bundle = evidence(client, hand_id, who).json
        seat = bundle["viewer"]["seat"]
        others_moves = 0
        for event in bundle["events"]:
            full = stored[event["version"]]
            if event["canonical"] is None:
                assert event["shown"]["data"] != full["data"], (event["type"], seat)
                continue
            assert json.loads(event["canonical"]) == full
            command = full["metadata"].get("command") or {}
            others_moves += "payload" in command and command["seat"] != seat
        assert others_moves > 0, seat
        replay = client.get(f"/v1/hands/{hand_id}/replay", headers=who).json
        moves = [s["cause"]["command"] for s in replay["steps"]
                 if (s["cause"]["command"] or {}).get("name") == "Act"]
        assert moves and all("payload" in m for m in moves), moves


def link(previous: bytes, text: dict) -> str:
    """The chain's link after `previous` for an event whose stored text is `text`."""
    canonical = json.dumps(text, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(previous + canonical.encode()).hexdigest()


def test_a_withheld_events_hash_cannot_be_matched_by_guessing_its_text(client, secret, auditor):
    """A withheld event's hash covers its stored text, most of which its reader knows (the
    event as shown, the command's metadata) but for a card, one of a few dozen: hashing each
    guess would find it. Each event's text holds a random blind that goes out only inside the
    text itself, so that even the whole text but the blind gives another hash."""
    session, hand_id = secret
    full = evidence(client, hand_id, bearer(auditor)).json
    texts = {e["version"]: e["canonical"] for e in full["events"]}
    blinds = [json.loads(t)["metadata"]["blind"] for t in [*texts.values(),
                                                         full["table_created"]["canonical"]]]
    assert all(len(b) == 32 and int(b, 16) >= 0 for b in blinds)
    assert len(set(blinds)) == len(blinds)
    for player in session.players:
        bundle = evidence(client, hand_id, player.auth).json
        seen = json.dumps(bundle) + client.get(f"/v1/hands/{hand_id}/replay",
                                               headers=player.auth).get_data(as_text=True)
        previous = bytes.fromhex(bundle["chain"]["previous_hash"])
        withheld = 0
        for event in bundle["events"]:
            if event["canonical"] is None:
                withheld += 1
                stored = json.loads(texts[event["version"]])
                assert stored["metadata"]["blind"] not in seen
                # A right guess, blind and all, matches; without the blind, none does.
                assert link(previous, stored) == event["hash"]
                del stored["metadata"]["blind"]
                assert link(previous, stored) != event["hash"]
            previous = bytes.fromhex(event["hash"])
        assert withheld > 0


def test_a_hand_no_checkpoint_covers_gets_one_and_keeps_it(app, client, played, auditor):
    session, hand_id = played
    pool = app.extensions["banco.pool"]
    last = app.extensions["banco.store"].read_stream(f"table-{session.table_id}")[-1]
    with pool.connection() as c:
        assert covering(c, last) is None  # the worker records its checkpoints hourly
    first = evidence(client, hand_id, bearer(auditor)).json
    with pool.connection() as c:
        found = covering(c, last)
        count = c.execute("SELECT count(*) FROM audit_checkpoints").fetchone()[0]
    assert found is not None and json.loads(first["checkpoint"]["statement"])["id"] == found["id"]
    # Later asks prove to the same checkpoint, recording none: the bundle is the same file.
    assert evidence(client, hand_id, bearer(auditor)).json == first
    with pool.connection() as c:
        assert c.execute("SELECT count(*) FROM audit_checkpoints").fetchone()[0] == count


def test_a_stranger_gets_no_bundle_and_a_missing_hand_is_a_404(client, played, new_player, auditor):
    _, hand_id = played
    assert client.get(f"/v1/hands/{hand_id}/evidence", headers=new_player("S").auth).status_code == 403
    missing = client.get("/v1/hands/hd_0000000000000000/evidence", headers=bearer(auditor))
    assert missing.status_code == 404 and missing.json["code"] == "hand_not_found"


@pytest.fixture
def no_bet(client, new_player, worker, monkeypatch) -> tuple[Session, str]:
    """A settled hand of Casino pirate in which nobody bet: both seats sat out when their turns
    timed out. Its last event is the seed's reveal, which is for auditors only. Only rules
    version 1 sits a timed-out bettor out (from version 2 he bets the minimum): the table is
    created while version 1 is the current one, and plays it for its whole life, as a table
    created before version 2 does; its hand verifies with it in Banco and both verifiers."""
    monkeypatch.setattr(registry, "REGISTRY", registry.Registry(
        [e for e in registry.served() if e.info.name != "casino-pirate" or e.info.version == 1]))
    session = Session(client, "casino-pirate", [new_player(f"N{i}", deposit=40) for i in range(2)])
    session.open({"turn_timeout_s": 1}, 10)
    monkeypatch.undo()
    assert client.get(f"/v1/tables/{session.table_id}", headers=OPERATOR).json["rules_version"] == 1
    hand_id = session.deal()
    session.wait_settled(hand_id, timeout=120)
    report = client.get(f"/v1/hands/{hand_id}/verification", headers=OPERATOR).json
    assert report["passed"] and report["rules_version"] == 1, report
    return session, hand_id


def test_a_casino_pirate_hand_of_todays_rules_version_passes_every_reader(client, new_player, worker,
                                                                     auditor, tmp_path):
    """000_1414b0b0fea70c86.txt (RULES.md 1c): from rules version 2 a timed-out bettor bets the
    minimum and stands. A hand played so by timeouts alone passes in Banco and both verifiers,
    as a version 1 hand does (`no_bet`): none of the three re-plays Casino pirate's rules, and
    each walks its deck the same whatever the version."""
    session = Session(client, "casino-pirate", [new_player(f"W{i}", deposit=40) for i in range(2)])
    session.open({"turn_timeout_s": 1, "banker_timeout_s": 1}, 10)
    hand_id = session.deal()
    session.wait_settled(hand_id, timeout=120)
    key = tmp_path / "house-key.json"
    key.write_text(json.dumps(client.get("/.well-known/banco-house-key").json))
    from tests.verifier.test_vectors import outcomes

    for who, deck in ((bearer(auditor), "passed"), (session.players[0].auth, "skipped")):
        bundle = evidence(client, hand_id, who).json
        assert bundle["rules_version"] == 4
        for checks in outcomes(bundle, tmp_path, key):
            assert {k for k, c in checks.items() if c["status"] == "failed"} == set(), checks
            assert checks["deck"]["status"] == deck, checks  # a player's: the deck withheld


def test_a_hand_nobody_bet_in_proves_the_last_event_its_viewer_is_given(client, no_bet, auditor,
                                                                       tmp_path):
    """A Casino pirate hand nobody bet in ends with `SeedRevealed`, withheld from its players
    and the operator: their bundles proved that withheld last event, which nothing could check,
    and failed every verifier. The bundle proves the last event it gives whole, named by its
    version, every event after it withheld; a shown event after the one proved fails."""
    from tests.verifier.test_vectors import outcomes

    session, hand_id = no_bet
    key = tmp_path / "house-key.json"
    key.write_text(json.dumps(client.get("/.well-known/banco-house-key").json))
    full = evidence(client, hand_id, bearer(auditor)).json
    assert full["events"][-1]["type"] == "SeedRevealed"
    assert full["inclusion"]["last_event"]["version"] == full["events"][-1]["version"]
    for who in (session.players[0].auth, OPERATOR):
        bundle = evidence(client, hand_id, who).json
        assert bundle["events"][-1]["canonical"] is None, bundle["viewer"]
        proven = max(e["version"] for e in bundle["events"] if e["canonical"] is not None)
        assert bundle["inclusion"]["last_event"]["version"] == proven
        assert proven < bundle["events"][-1]["version"]
        for checks in outcomes(bundle, tmp_path, key):
            assert {k for k, c in checks.items() if c["status"] == "failed"} == set(), checks
            assert checks["inclusion"]["status"] == "passed", checks
            assert checks["attestation"]["status"] == "passed", checks
        # The seed's reveal given whole after the event proved: the proof is not of the last
        # event given, whatever else holds.
        bundle["events"][-1]["canonical"] = full["events"][-1]["canonical"]
        for checks in outcomes(bundle, tmp_path, key):
            assert checks["inclusion"]["status"] == "failed", checks["inclusion"]
        # And the event proved withheld: nothing to prove.
        bundle = evidence(client, hand_id, who).json
        at = next(e for e in bundle["events"] if e["version"] == proven)
        at["canonical"] = None
        for checks in outcomes(bundle, tmp_path, key):
            assert checks["inclusion"]["status"] == "failed", checks["inclusion"]


def test_a_bundle_is_attested_whole_and_asked_again_is_the_same_file(client, no_bet, auditor):
    """The house signs the bundle as the viewer receives it, with the key that signs the
    checkpoints: Ed25519 is deterministic, so a bundle asked for again is the same bytes."""
    from service.verification.attestation import attestation_text

    session, hand_id = no_bet
    key = client.get("/.well-known/banco-house-key").json
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(key["public_key"]))
    for who in (bearer(auditor), session.players[1].auth, OPERATOR):
        first = evidence(client, hand_id, who)
        bundle = first.json
        assert bundle["format"] == "banco-evidence/2"
        assert bundle["attestation"]["key_id"] == key["key_id"]
        public.verify(base64.b64decode(bundle["attestation"]["signature"]), attestation_text(bundle))
        assert evidence(client, hand_id, who).data == first.data


@pytest.fixture
def busted(client, new_player, worker, auditor) -> dict:
    """The auditor's bundle of a settled hand of Sette e mezzo in which a player busted: his
    stake went to the banker during the hand (StakeLost, and its posting)."""
    for attempt in range(20):
        session = Session(client, "sette-e-mezzo",
                          [new_player(f"B{attempt}-{i}", deposit=200) for i in range(3)])
        session.open({}, 50)
        hand_id = session.deal()
        session.play_hand()
        session.wait_settled(hand_id)
        bundle = evidence(client, hand_id, bearer(auditor)).json
        if any(e["type"] == "game.StakeLost" for e in bundle["events"]):
            return dict(bundle)
    raise AssertionError("no player busted")


def _bust_to(account: str):
    return lambda data: data.update(to=account)


def _lost(bundle: dict) -> dict:
    """The bust's StakeLost, as recorded."""
    return next(json.loads(e["canonical"])["data"]["data"] for e in bundle["events"]
                if e["type"] == "game.StakeLost")


@pytest.mark.parametrize("forgery", ["to the house", "to a thief", "back to the loser", "raised",
                                     "posting left out", "StakeLost left out"])
def test_a_bust_paid_anywhere_but_to_the_banker_fails_every_reader(forgery, client, busted,
                                                                  house_key_file, tmp_path):
    """A 7½ bust's posting (StakeLost's, the escrow to the banker's seat) sent to house:issued,
    to a wallet, back to the loser's seat, or raised, and the hand forged with the house key,
    gave VERIFIED in every reader; so did a hand with the StakeLost left out. In-hand postings
    were held only as "bets, stakes" by the money's walk. Each is held to its event now."""
    from service.runtime import house_key
    from tests.verifier.test_vectors import outcomes
    from tests.verifier.vectors import THIEF, dropped, forged, posting_of, reposted

    key = house_key.load(house_key_file)
    key_file = tmp_path / "house-key.json"
    key_file.write_text(json.dumps(client.get("/.well-known/banco-house-key").json))
    lost = _lost(busted)
    seats = {s["seat"]: s["player_id"] for e in busted["events"] if e["type"] == "HandBegan"
             for s in json.loads(e["canonical"])["data"]["seats"]}
    table, hand = busted["table_id"], busted["hand_id"]
    loser = f"seat:{table}:{seats[lost['seat']]}"
    for checks in outcomes(forged(json.loads(json.dumps(busted)), key), tmp_path, key_file):
        assert "failed" not in {c["status"] for c in checks.values()}, checks
    changes = {"to the house": _bust_to("house:issued"), "to a thief": _bust_to(THIEF),
               "back to the loser": _bust_to(loser),
               "raised": lambda d: d.update(amount=d["amount"] + 1)}
    if forgery in changes:
        bundle = reposted(busted, "bust", changes[forgery])
        said = f"(StakeLost) posts {lost['amount']} from escrow:{table}:{hand} to seat:{table}:"
    elif forgery == "posting left out":
        bundle = dropped(busted, posting_of("bust"))
        said = "(StakeLost) posts"
    else:
        bundle = dropped(busted, lambda e: e["type"] == "game.StakeLost")
        said = "(bust), which no event of the hand posts"
    py, js, banco = outcomes(forged(bundle, key), tmp_path, key_file)
    assert py == js, (py, js)
    for checks in (py, js, banco):
        assert checks["settlement"]["status"] == "failed", checks["settlement"]
        assert said in checks["settlement"]["detail"], checks["settlement"]
    assert banco["settlement"]["detail"] == py["settlement"]["detail"], (banco, py)
