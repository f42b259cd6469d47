"""Banco's own reading of an evidence bundle: the checks the standalone verifiers make
(`verifier/`), made with Banco's code (its chain links, Merkle leaves, deck and engines), so
that the published test vectors hold the two readings to the same answers."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from datetime import datetime
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events import ledger
from events.model import StoredEvent
from games.contract import IllegalMove
from service.verification import inclusion
from service.verification.attestation import attestation_text
from service.verification.bundle_members import Members, Missing, within
from service.verification.chain_check import link
from service.verification.deck_check import commitment_check, dealt_check, order_check
from service.verification.findings import Check, failed, passed
from service.verification.hand_log import HandLog, is_game
from service.verification.merkle import leaf
from service.verification.money_check import in_hand_check, settlement_check
from service.verification.rules_check import rules_check

SEVEN_HALF = ("sette-e-mezzo", "siete-y-media")
FORMATS = ("banco-evidence/1", "banco-evidence/2")
Outcome = tuple[bool | None, str]  # passed (None: not checkable by this viewer) and why
# What reading a bundle that is not as Banco writes it raises: a failed check, not an error.
_UNREADABLE = (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError)
# How deep a bundle, or an event's stored text, may nest (Banco's go 8 levels deep), as the
# standalone verifiers read them: deeper is no bundle.
MAX_DEPTH = 64


class _Failed(Exception):
    pass


class _NotJson(ValueError):
    """A text JSON allows that the standalone verifiers refuse, in their words."""


# JavaScript reads numbers as doubles: an integer past 2**53 - 1 reads there as another, and
# exactly in Python. The standalone verifiers refuse it, in these words, and so does Banco.
MAX_SAFE = 2**53 - 1
INEXACT = "an integer beyond +/-(2^53 - 1), which not every reader reads exactly"


def _inexact(value: Any) -> bool:
    """Whether `value` holds a whole number beyond ±(2**53 - 1) (walked without recursion)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list):
            stack.extend(item.values() if isinstance(item, dict) else item)
        elif isinstance(item, int | float) and not isinstance(item, bool) and item == item \
                and abs(item) > MAX_SAFE and float(item).is_integer():
            return True
    return False


class _Skipped(Exception):
    """A check this viewer's bundle cannot make."""


def _too_deep(value: Any) -> bool:
    """Whether `value` nests more than MAX_DEPTH levels of arrays and objects (walked without
    recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth == MAX_DEPTH:
                return True
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return False


def _loads(text: str) -> Any:
    """A stored text of the bundle (an event's, the checkpoint's statement) parsed."""
    value = orjson.loads(text)  # an integer past 64 bits it reads as a double: refused below
    if _too_deep(value):
        raise _NotJson(f"nested deeper than {MAX_DEPTH} levels")
    if _inexact(value):
        raise _NotJson(INEXACT)
    return value


def _events(bundle: dict[str, Any]) -> list[dict[str, Any]]:
    """The bundle's events: a list of at least one, each an object (no hand's log else)."""
    events = bundle["events"]
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise _Failed("the bundle's events are not a list of events")
    if not events:
        raise _Failed("the bundle holds no events")
    return events


def _bet_seeds(bundle: dict[str, Any]) -> list[str]:
    """The seeds the bundle's shown bets carried, in order (Sette e mezzo): they follow the join
    seeds in `seeds.player_seeds`, as in the shuffle (docs/fair-decks.md)."""
    bets = (_event(e).data["data"] for e in _events(bundle)
            if e["type"] == "game.BetPlaced" and e["canonical"] is not None)
    return [str(d["seed"]) for d in bets if d.get("seed")]


def _event(entry: dict[str, Any]) -> StoredEvent:
    """A bundle's event as Banco stores it; its stored text must be exactly Banco's canonical
    form of what it says."""
    body = _loads(entry["canonical"])
    event = StoredEvent(entry["position"], body["stream_id"], entry["version"], body["type"],
                        body["schema_version"], body["data"], body["metadata"],
                        datetime.fromisoformat(entry["recorded_at"]), bytes.fromhex(entry["hash"]))
    if event.canonical() != entry["canonical"] or event.stream_id != entry["stream_id"] \
            or event.type != entry["type"]:
        raise _Failed(f"version {entry['version']}: its text is not the stored canonical form")
    return event


def _signature(bundle: dict[str, Any], key: bytes | None) -> str:
    signed = bundle["checkpoint"]
    embedded = base64.b64decode(signed["public_key"])
    if key is not None and key != embedded:
        raise _Failed("another key")
    try:
        Ed25519PublicKey.from_public_bytes(key or embedded).verify(
            base64.b64decode(signed["signature"]), signed["statement"].encode())
    except (InvalidSignature, ValueError) as e:
        raise _Failed("the signature does not verify") from e
    return "signed"


def _attestation(bundle: dict[str, Any], key: bytes | None, allow_unattested: bool) -> str:
    """The house's signature over the whole bundle (banco-evidence/2): the viewer, what withheld
    events show, the summary fields and every event's time and place are its word. A /1 bundle
    (made before attestation) is checked only when `allow_unattested`; one carrying what only
    /2 has (an attestation, an inclusion proof's version) is a /2 bundle relabelled."""
    if bundle["format"] != "banco-evidence/2":
        proofs = bundle["inclusion"].values() if isinstance(bundle.get("inclusion"), dict) else []
        if "attestation" in bundle or any(isinstance(p, dict) and "version" in p for p in proofs):
            raise _Failed(f"a {bundle['format']} bundle with what only banco-evidence/2 has:"
                          " an attested bundle relabelled")
        if not allow_unattested:
            raise _Failed(f"a {bundle['format']} bundle, not attested: its viewer, shown data and"
                          " summary fields are the bundle's word alone (allow_unattested checks"
                          " one made before attestation)")
        raise _Skipped(f"a {bundle['format']} bundle is not attested: its viewer, shown data and"
                       " summary fields are the bundle's word alone")
    # Read through `within`, as `[]` reads it, so that a member it lacks is named.
    attestation = within(bundle.get("attestation"), "attestation")
    if not isinstance(attestation, dict) or attestation["algorithm"] != "Ed25519":
        raise _Failed("no Ed25519 attestation")
    public = key or base64.b64decode(bundle["checkpoint"]["public_key"])
    if attestation["key_id"] != hashlib.sha256(public).hexdigest()[:16]:
        raise _Failed("attested by another key")
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(
            base64.b64decode(attestation["signature"]), attestation_text(bundle))
    except (InvalidSignature, ValueError) as e:
        raise _Failed("the house's signature over the bundle does not verify") from e
    return "attested"


def _proven(bundle: dict[str, Any]) -> dict[str, Any]:
    """The event `inclusion.last_event` proves: its `version`'s (none given whole after it), or
    the last event when it names none (banco-evidence/1)."""
    proof = bundle["inclusion"]["last_event"]
    if "version" not in proof:
        return _events(bundle)[-1]
    found = [n for n, e in enumerate(bundle["events"]) if e["version"] == proof["version"]]
    if len(found) != 1:
        raise _Failed(f"no one event of version {proof['version']} to prove")
    if any(e["canonical"] is not None for e in bundle["events"][found[0] + 1:]):
        raise _Failed("an event is given whole after the one proved")
    proved: dict[str, Any] = bundle["events"][found[0]]
    return proved


def _inclusion(bundle: dict[str, Any]) -> str:
    statement = _loads(bundle["checkpoint"]["statement"])
    for name, entry in (("last_event", _proven(bundle)), ("table_created", bundle["table_created"])):
        if entry["canonical"] is None:
            raise _Failed(f"{name}: its stored text is withheld, nothing to prove")
        proof = bundle["inclusion"][name]
        if proof["tree_size"] != statement["events"] or not inclusion.verify(
                leaf(_event(entry)), proof["leaf_index"], proof["tree_size"],
                [bytes.fromhex(p) for p in proof["path"]], bytes.fromhex(statement["root"])):
            raise _Failed(f"{name} is not proved to the signed root")
    return "proved"


def _chain(bundle: dict[str, Any]) -> str:
    created = _event(bundle["table_created"])
    if created.version != 1 or created.type != "TableCreated" or link(b"", created) != created.hash:
        raise _Failed("TableCreated is not the stream's first link")
    head = bytes.fromhex(bundle["chain"]["previous_hash"])
    for n, entry in enumerate(_events(bundle)):
        if entry["version"] != bundle["chain"]["first_version"] + n \
                or entry["stream_id"] != bundle["chain"]["stream_id"]:
            raise _Failed(f"event {n} is out of place")
        if entry["canonical"] is None and bundle["viewer"]["kind"] == "auditor":
            raise _Failed(f"version {entry['version']} is withheld from an auditor")
        if entry["canonical"] is not None and link(head, _event(entry)) != bytes.fromhex(entry["hash"]):
            raise _Failed(f"version {entry['version']} does not follow from the link before")
        head = bytes.fromhex(entry["hash"])
    return "linked"


def _hand(bundle: dict[str, Any]) -> HandLog | None:
    """The hand's log from the bundle, when nothing of it is withheld."""
    if any(e["canonical"] is None for e in bundle["events"]):
        return None
    events = [_event(e) for e in bundle["events"]]
    began = events[0]
    # What each seat held at the deal, as the opening event recorded it (the rules check's
    # `start` is given it), by player.
    opening = next((e for e in events if is_game(e)), None)
    held = {s["seat"]: s.get("balance", 0) for s in (opening.data["data"].get("seats") or [])} \
        if opening is not None else {}
    balances = {s["player_id"]: held.get(s["seat"], 0) for s in began.data["seats"]}
    return HandLog(bundle["hand_id"], bundle["table_id"], bundle["game"], bundle["options"], began,
                   None, balances, events, bundle["rules_version"])


def _contents(bundle: dict[str, Any]) -> str:
    created = _event(bundle["table_created"]).data
    began = _event(_events(bundle)[0])
    if began.type != "HandBegan" or began.data["hand_id"] != bundle["hand_id"]:
        raise _Failed("the first event is not the hand's HandBegan")
    if any(created.get(k, 1 if k == "rules_version" else None) != bundle[k]
           for k in ("game", "rules_version", "options", "table_id")):
        raise _Failed("the summary differs from TableCreated")
    posted = [e for e in bundle["events"] if e["type"] == "TreasurePosted"]
    if len(posted) != len(bundle["postings"]) or any(
            e["canonical"] is not None and _event(e).data != p
            for e, p in zip(posted, bundle["postings"], strict=True)):
        raise _Failed("the postings differ from the TreasurePosted events")
    seeds = bundle["seeds"]
    if seeds["commitment"] != began.data["commitment"] or seeds["player_seeds"] != [
            *(s.get("seed") or "" for s in began.data["seats"]), *_bet_seeds(bundle)]:
        raise _Failed("the seeds differ from HandBegan")
    for e in bundle["events"]:
        if e["canonical"] is not None and e["type"].startswith("game.") \
                and _event(e).data["hand"] != bundle["hand_id"]:
            raise _Failed("an event of another hand")
    if any(e["canonical"] is None for e in posted):
        # Postings are no one's secret, nor is a move that posts: a withheld one's amount would
        # be the bundle's word alone, nothing signed saying it.
        raise _Failed("a posting is withheld, which Banco never does")
    return "consistent"


def _with_hand(bundle: dict[str, Any], run: Callable[[HandLog], list[Any]]) -> Outcome:
    hand = _hand(bundle)
    if hand is None:
        return None, "withheld from this viewer"
    checks = run(hand)
    failed = [c for c in checks if not c.passed]
    return (not failed), "; ".join(c.evidence.get("reason", c.name) for c in failed) or "passed"


def _replayed(hand: HandLog) -> list[Any]:
    """The settlement recomputed; and, for a table's first hand (whose deal depends on no hand
    before, which a bundle does not hold), every command decided again."""
    first = hand.began.data.get("number") == 1
    return [settlement_check(hand), *([rules_check(hand)] if first else [])]


def _conserved(hand: HandLog) -> Check:
    """The hand's money walked in log order from what each account held at the deal, where the
    log says so (the hand's escrow nothing, Pirate pairs' pot nothing, Cassino's what its round
    opened with, each seat what the opening event gave it): no account pays more than it holds,
    and the escrow, and a pot the settlement paid out, end empty."""
    escrow = f"escrow:{hand.table_id}:{hand.hand_id}"
    pot = f"pot:{hand.table_id}:pot"
    held = {escrow: 0}
    games = hand.game_events()
    opening = games[0].data["data"] if games else {}
    if hand.game == "pirate-pairs":
        held[pot] = 0
    elif hand.game == "cassino" and games and games[0].type == "game.RoundStarted":
        held[pot] = int(opening["pot"])
    elif hand.game in (*SEVEN_HALF, "casino-pirate") and games and games[0].type == "game.HandStarted":
        players = {s["seat"]: s["player_id"] for s in hand.seats}
        held.update({ledger.seat(hand.table_id, players[s["seat"]]): int(s["balance"])
                     for s in opening["seats"]})
    settled = hand.find("HandSettled")
    paid_from = {p["from"] for p in (settled.data.get("postings") or [])} if settled else set()
    for e in hand.events:
        if e.type != "TreasurePosted":
            continue
        source, target, amount = e.data["from"], e.data["to"], e.data["amount"]
        if source in held:
            if amount > held[source]:
                return failed("money.conserved", e, f"{source} pays {amount}, holding {held[source]}")
            held[source] -= amount
        if target in held:
            held[target] += amount
    for account in (escrow, *sorted(a for a in paid_from if a == pot)):
        if held.get(account, 0) != 0:
            return failed("money.conserved", settled,
                          f"{account} keeps {held[account]} once the hand is settled")
    return passed("money.conserved")


def _settlement(bundle: dict[str, Any]) -> Outcome:
    """The settlement is what the engine settles the hand's events with (every game), and the
    hand's money adds up."""
    if not any(e["type"] == "HandSettled" for e in bundle["events"]):
        return None, "the hand is not settled yet"
    return _with_hand(bundle, lambda h: _first_failed(h, (settlement_check, in_hand_check, _conserved)))


def _first_failed(hand: HandLog, checks: tuple[Callable[[HandLog], Check], ...]) -> list[Check]:
    """Each check in turn, up to the first that fails: the one fault the verifiers name too."""
    out = []
    for run in checks:
        out.append(run(hand))
        if not out[-1].passed:
            break
    return out


def _ended(bundle: dict[str, Any]) -> bool:
    return any(e["type"] == "game.HandEnded" for e in bundle["events"])


def _commitment(bundle: dict[str, Any]) -> Outcome:
    if not any(e["type"] == "SeedRevealed" for e in bundle["events"]):
        return None, "the seed is not revealed yet: the hand is not settled"
    hand = _hand(bundle)
    if hand is None or hand.find("SeedRevealed") is None:
        return None, "the seed is not revealed to this viewer"
    if bundle["seeds"]["server_seed"] != hand.server_seed():
        return False, "the bundle's seed is not the revealed one"
    return _with_hand(bundle, lambda h: [commitment_check(h)])


def check(bundle: dict[str, Any], key: bytes | None = None, *,
          allow_unattested: bool = False) -> dict[str, Outcome]:
    """Each check of the standalone verifiers, by the same names, as Banco makes it (a
    banco-evidence/1 bundle's missing attestation failed, or with `allow_unattested` skipped, as
    their `--allow-unattested` does)."""
    out: dict[str, Outcome] = {}
    if _too_deep(bundle):
        return {"format": (False, f"nested deeper than {MAX_DEPTH} levels")}
    if _inexact(bundle):
        return {"format": (False, INEXACT)}
    if not isinstance(bundle, dict) or bundle.get("format") not in FORMATS:
        return {"format": (False, "not a banco-evidence/1 or /2 bundle")}
    bundle = Members(bundle)
    for name, run in (("signature", lambda: _signature(bundle, key)),
                      ("attestation", lambda: _attestation(bundle, key, allow_unattested)),
                      ("inclusion", lambda: _inclusion(bundle)),
                      ("chain", lambda: _chain(bundle)), ("contents", lambda: _contents(bundle))):
        try:
            out[name] = (True, run())
        except (_Failed, Missing) as e:
            out[name] = (False, str(e))
        except _Skipped as e:
            out[name] = (None, str(e))
        except _NotJson as e:
            out[name] = (False, f"a stored text cannot be read ({e})")
        except _UNREADABLE as e:
            out[name] = (False, f"unreadable ({type(e).__name__})")
    for name, run2 in (("commitment", lambda: _commitment(bundle)),
                       ("deck", lambda: _with_hand(bundle, lambda h: [order_check(h), dealt_check(h)])),
                       ("replay", lambda: (None, "not re-played here")
                        if bundle.get("game") not in SEVEN_HALF
                        else (None, "the hand is still in play") if not _ended(bundle)
                        else _with_hand(bundle, _replayed)),
                       ("settlement", lambda: _settlement(bundle))):
        try:
            out[name] = run2()
        except (_Failed, Missing) as e:  # an event whose text is not the stored canonical form,
            # or a member the bundle lacks
            out[name] = (False, str(e))
        except IllegalMove as e:
            # The game's engine refuses the bundle's options (a key it does not know, a value
            # of the wrong kind): no deal or move can be judged under them.
            out[name] = (False, f"the game does not take these options: {e.message}")
        except _NotJson as e:
            out[name] = (False, f"a stored text cannot be read ({e})")
        except _UNREADABLE as e:
            out[name] = (False, f"unreadable ({type(e).__name__})")
    return out
