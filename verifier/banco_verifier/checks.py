"""Every check of a bundle, each passed, failed or skipped with its reason."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from banco_verifier import dealt, merkle, settlement, sevenhalf, shuffle
from banco_verifier.members import Members, Missing, within

FORMATS = ("banco-evidence/1", "banco-evidence/2")
ATTESTED = "banco-evidence/2"
STATEMENT = "banco-checkpoint/1"
CHECKS = ("signature", "attestation", "inclusion", "chain", "contents", "commitment", "deck", "replay",
          "settlement")
SEVEN_HALF_GAMES = ("sette-e-mezzo", "siete-y-media")
# What each game's rules allow a table (RULES.md, and Banco's games/*/options.py): the players a
# hand seats and, for Casino pirate, the deck's counts (each a table option: default, lowest,
# highest). No number read from a bundle sizes what is built or walked until checked against them.
PLAYERS = {"sette-e-mezzo": (2, 12), "siete-y-media": (2, 8), "casino-pirate": (2, 8),
           "pirate-pairs": (2, 8), "cassino": (2, 4)}
DECK_OPTIONS = {"casino-pirate": {"gems": (4, 1, 8), "gold_coins": (8, 0, 16), "pebbles": (4, 0, 16),
                                  "skeletons": (2, 0, 8)}}
# How deep a bundle, or a stored text in it, may nest: Banco's go 8 levels deep. Deeper is no
# bundle, refused alike by both verifiers (and read by no recursion that could overflow).
MAX_DEPTH = 64
# The most events a log holds here: a count both languages read exactly (2**53 - 1).
MAX_EVENTS = 2**53 - 1


class Failed(Exception):
    pass


class Skipped(Exception):
    pass


@dataclass
class Result:
    """Each check's outcome: "passed", "failed" or "skipped", with what it found."""

    outcomes: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(status != "failed" for status, _ in self.outcomes.values())

    def failed(self) -> list[str]:
        return [name for name, (status, _) in self.outcomes.items() if status == "failed"]


def too_deep(value: Any) -> bool:
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


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


class NotJson(ValueError):
    """JSON both verifiers refuse alike, said in the same words by both."""


TOO_LARGE = "a number beyond what a double holds"
# The largest integer every reader reads exactly: JavaScript reads numbers as doubles, so that
# 2**53 + 1 reads as 2**53 there and exactly here, and a bundle could pass one and fail the other.
MAX_SAFE = 2**53 - 1
INEXACT = "an integer beyond +/-(2^53 - 1), which not every reader reads exactly"


def _int(text: str) -> int:
    """A JSON integer, refused beyond ±(2**53 - 1) (and past a double's range, as JavaScript
    would read Infinity)."""
    if len(text) > 400:  # far past the largest double's 309 digits: not even converted
        raise NotJson(TOO_LARGE)
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise NotJson(TOO_LARGE) from None
    if abs(value) > MAX_SAFE:
        raise NotJson(INEXACT)
    return value


def _float(text: str) -> float:
    """A JSON number with a fraction or exponent, refused when it is past a double's range, or
    a whole number beyond ±(2**53 - 1) (1e20: JavaScript reads it as the integer it is)."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise NotJson(TOO_LARGE)
    if value.is_integer() and abs(value) > MAX_SAFE:
        raise NotJson(INEXACT)
    return value


def inexact(value: Any) -> bool:
    """Whether `value` (parsed JSON, not read by `read_json`) holds a whole number beyond
    ±(2**53 - 1)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list):
            stack.extend(item.values() if isinstance(item, dict) else item)
        elif isinstance(item, int | float) and not isinstance(item, bool) and item == item \
                and abs(item) > MAX_SAFE and float(item).is_integer():
            return True
    return False


def read_json(text: str | bytes) -> Any:
    """JSON as both verifiers read it: without NaN or Infinity (JSON has neither), a number
    past a double's range or an integer beyond ±(2**53 - 1), nested at most MAX_DEPTH levels;
    ValueError otherwise (NotJson, in both verifiers' words, for what JSON itself allows)."""
    try:
        value = json.loads(text, parse_constant=_not_json, parse_int=_int, parse_float=_float)
    except RecursionError:
        raise NotJson(f"nested deeper than {MAX_DEPTH} levels") from None
    if too_deep(value):
        raise NotJson(f"nested deeper than {MAX_DEPTH} levels")
    return value


def _whole(value: Any) -> int | None:
    """A whole number as JSON gives it (5 and 5.0 alike, as JavaScript reads them); None for
    anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, float) and value.is_integer() else None


def _events(bundle: dict) -> list[dict]:
    """The bundle's events: a list of at least one, each an object. Any other is no hand's log,
    failed alike by every check that reads it (and by both verifiers in the same words)."""
    events = bundle["events"]
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise Failed("the bundle's events are not a list of events")
    if not events:
        raise Failed("the bundle holds no events")
    return events


def _parsed(event: dict) -> Any:
    """The stored text parsed; None when withheld."""
    return None if event["canonical"] is None else read_json(event["canonical"])


def _game_events(bundle: dict) -> list[dict]:
    """The hand's engine events (`{"type", "data", "version"}`) as stored; a withheld one's
    data None."""
    out = []
    for e in _events(bundle):
        if e["type"].startswith("game."):
            body = _parsed(e)
            out.append({"type": e["type"][5:], "data": None if body is None else body["data"]["data"],
                        "version": e["version"]})
    return out


def _bet_seeds(games: list[dict]) -> list[str]:
    """The seeds the hand's bets carried, in the order placed (Sette e mezzo): after the join
    seeds, they shuffle the deck the cards come off (docs/fair-decks.md)."""
    return [str(g["data"]["seed"]) for g in games
            if g["type"] == "BetPlaced" and g["data"] is not None and g["data"].get("seed")]


def _stored(bundle: dict, type_: str) -> dict | None:
    """The data of the hand's first event of `type_`, when its stored text is in the bundle."""
    for e in _events(bundle):
        if e["type"] == type_ and e["canonical"] is not None:
            return _parsed(e)["data"]
    return None


def check_signature(bundle: dict, key: bytes | None) -> str:
    signed = bundle["checkpoint"]
    embedded = base64.b64decode(signed["public_key"])
    if key is not None and key != embedded:
        raise Failed("the bundle names another key than the house's")
    try:
        Ed25519PublicKey.from_public_bytes(key or embedded).verify(
            base64.b64decode(signed["signature"]), signed["statement"].encode("utf-8"))
    except (InvalidSignature, ValueError) as e:
        raise Failed("the checkpoint's signature does not verify") from e
    statement = read_json(signed["statement"])
    if statement.get("format") != STATEMENT:
        raise Failed(f"the signed text is not a {STATEMENT} statement")
    pinned = "" if key else " (key not pinned: compare it with the house's published key)"
    return f"checkpoint {statement['id']} signed by {hashlib.sha256(embedded).hexdigest()[:16]}{pinned}"


def es_number(x: float) -> str:
    """A number as ECMAScript prints it (RFC 8785 §3.2.2.3): repr's shortest digits, laid out
    as JavaScript's Number::toString does."""
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError(f"{x} has no JSON form")
    if x == 0:
        return "0"
    _, digits, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    d = "".join(map(str, digits))
    k, n = len(d), int(exponent) + len(d)
    if k <= n <= 21:
        out = d + "0" * (n - k)
    elif 0 < n <= 21:
        out = d[:n] + "." + d[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + d
    else:
        out = (d if k == 1 else d[0] + "." + d[1:]) + "e" + ("+" if n >= 1 else "-") + str(abs(n - 1))
    return ("-" if x < 0 else "") + out


def canonical_json(value: Any) -> str:
    """Banco's canonical JSON: keys sorted, no spaces, strings as JSON writes them unescaped
    beyond what it must, integers as they are, other numbers as ECMAScript prints them."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return es_number(value)
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canonical_json(value[k])
                              for k in sorted(value)) + "}"
    raise TypeError(f"{type(value).__name__} is not JSON")


def attestation_text(bundle: dict) -> bytes:
    """What the house signed of a bundle: its canonical JSON, UTF-8, without
    `attestation.signature`."""
    attestation = {k: v for k, v in bundle["attestation"].items() if k != "signature"}
    return canonical_json({**bundle, "attestation": attestation}).encode("utf-8")


def _attested_only(bundle: dict) -> list[str]:
    """What the bundle carries that only a banco-evidence/2 bundle has: its `attestation`, the
    `version` an inclusion proof names."""
    found = ["an attestation"] if "attestation" in bundle else []
    inclusion = bundle.get("inclusion")
    if isinstance(inclusion, dict) and any(isinstance(p, dict) and "version" in p
                                           for p in inclusion.values()):
        found.append("inclusion proofs naming a version")
    return found


def check_attestation(bundle: dict, key: bytes | None, allow_unattested: bool = False) -> str:
    """The house signed the whole bundle: the viewer, what withheld events show, the summary
    fields, each event's time and place, none of which a chain link covers. A bundle of the
    former format (made before attestation) is checked only when `allow_unattested`."""
    if bundle["format"] != ATTESTED:
        carried = _attested_only(bundle)
        if carried:
            raise Failed(f"a {bundle['format']} bundle with {' and '.join(carried)}, which only"
                         f" {ATTESTED} has: an attested bundle relabelled")
        if not allow_unattested:
            raise Failed(f"a {bundle['format']} bundle, not attested: its viewer, shown data and"
                         " summary fields are the bundle's word alone (--allow-unattested checks"
                         " one made before attestation)")
        raise Skipped(f"a {bundle['format']} bundle is not attested: its viewer, shown data and"
                      " summary fields are the bundle's word alone")
    # Read through `within`, as `[]` reads it, so that a member it lacks is named.
    attestation = within(bundle.get("attestation"), "attestation")
    if not isinstance(attestation, dict):
        raise Failed("the bundle carries no attestation")
    if attestation["algorithm"] != "Ed25519":
        raise Failed(f"attested with {attestation['algorithm']!r}, not Ed25519")
    public = key or base64.b64decode(bundle["checkpoint"]["public_key"])
    if attestation["key_id"] != hashlib.sha256(public).hexdigest()[:16]:
        raise Failed("attested by another key than the house's")
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(
            base64.b64decode(attestation["signature"]), attestation_text(bundle))
    except (InvalidSignature, ValueError) as e:
        raise Failed("the house's signature over the bundle does not verify: it was edited") from e
    pinned = "" if key else " (key not pinned: compare it with the house's published key)"
    return f"the whole bundle signed by {attestation['key_id']}{pinned}"


def _proven(bundle: dict) -> dict:
    """The event `inclusion.last_event` proves: the one of its `version`, which every event
    after must follow withheld; without a version (banco-evidence/1), the last event."""
    events = _events(bundle)
    proof = bundle["inclusion"]["last_event"]
    if "version" not in proof:
        return events[-1]
    found = [n for n, e in enumerate(events) if e["version"] == proof["version"]]
    if len(found) != 1:
        raise Failed(f"last_event: the bundle holds no one event of version {proof['version']}")
    after = [e["version"] for e in events[found[0] + 1:] if e["canonical"] is not None]
    if after:
        raise Failed(f"last_event: version {after[0]} is given whole after the proved version"
                     f" {proof['version']}: the last event given whole is the one to prove")
    return events[found[0]]


def check_inclusion(bundle: dict) -> str:
    statement = read_json(bundle["checkpoint"]["statement"])
    root = bytes.fromhex(statement["root"])
    for name, event in (("last_event", _proven(bundle)), ("table_created", bundle["table_created"])):
        proof = bundle["inclusion"][name]
        if event["canonical"] is None:
            raise Failed(f"{name}: its stored text is withheld, nothing to prove")
        if proof["tree_size"] != statement["events"]:
            raise Failed(f"{name}: proved to a tree of {proof['tree_size']}, the checkpoint has"
                         f" {statement['events']}")
        size, index = _whole(proof["tree_size"]), _whole(proof["leaf_index"])
        if size is None or not 1 <= size <= MAX_EVENTS:
            raise Failed(f"{name}: tree_size {canonical_json(proof['tree_size'])} is not a count of events")
        if index is None or not 0 <= index < size:
            raise Failed(f"{name}: leaf_index {canonical_json(proof['leaf_index'])} is not a place in a"
                         f" tree of {size} events")
        # RFC 9162 §2.1.3: a leaf's audit path has a hash a level, at most ceil(log2(size)).
        levels = (size - 1).bit_length()
        if not isinstance(proof["path"], list) or len(proof["path"]) > levels:
            raise Failed(f"{name}: its path is not a list of at most {levels} hashes, as a proof in a"
                         f" tree of {size} events is")
        path = [bytes.fromhex(p) for p in proof["path"]]
        if not merkle.included(merkle.leaf_hash(event), index, size, path, root):
            raise Failed(f"{name}: the inclusion proof does not lead to the signed root")
    proved = _proven(bundle)["version"]
    last = _events(bundle)[-1]["version"]
    tail = "" if proved == last else f" (versions after {proved} withheld, held by their hashes)"
    return (f"both proofs (version {proved} and TableCreated) lead to root"
            f" {statement['root'][:16]}... of {statement['events']} events{tail}")


def check_chain(bundle: dict) -> str:
    chain = bundle["chain"]
    events = _events(bundle)
    created = bundle["table_created"]
    body = _parsed(created)
    if (body is None or created["version"] != 1 or body["type"] != "TableCreated"
            or created["stream_id"] != chain["stream_id"]
            or hashlib.sha256(created["canonical"].encode("utf-8")).hexdigest() != created["hash"]):
        raise Failed("TableCreated is not the first link of the stream")
    head = bytes.fromhex(chain["previous_hash"])
    withheld = 0
    for n, e in enumerate(events):
        if e["version"] != chain["first_version"] + n or e["stream_id"] != chain["stream_id"]:
            raise Failed(f"event {n} is not version {chain['first_version'] + n} of the stream")
        if e["canonical"] is None:
            if bundle["viewer"]["kind"] == "auditor":
                raise Failed(f"version {e['version']} is withheld from an auditor, who may see all")
            withheld += 1
            head = bytes.fromhex(e["hash"])
            continue
        body = _parsed(e)
        if body["stream_id"] != e["stream_id"] or body["type"] != e["type"]:
            raise Failed(f"version {e['version']}: its stored text names another stream or type")
        head = hashlib.sha256(head + e["canonical"].encode("utf-8")).digest()
        if head.hex() != e["hash"]:
            raise Failed(f"version {e['version']}: the hash does not follow from the link before")
    shown = len(events) - withheld
    return f"{shown} links recomputed" + (f", {withheld} withheld from this viewer" if withheld else "")


def check_contents(bundle: dict) -> str:
    """The bundle's summary fields say what its signed events say."""
    created = _parsed(bundle["table_created"])["data"]
    began = _stored(bundle, "HandBegan")
    if began is None or began["hand_id"] != bundle["hand_id"]:
        raise Failed("the first event is not the HandBegan of the hand")
    for key in ("game", "rules_version", "options", "table_id"):
        if created.get(key, 1 if key == "rules_version" else None) != bundle[key]:
            raise Failed(f"{key} differs from TableCreated")
    for e in _events(bundle):
        body = _parsed(e)
        if body is not None and e["type"].startswith("game.") and body["data"]["hand"] != bundle["hand_id"]:
            raise Failed(f"version {e['version']} belongs to another hand")
    posted = [e for e in _events(bundle) if e["type"] == "TreasurePosted"]
    if len(posted) != len(bundle["postings"]) or any(
            e["canonical"] is not None and _parsed(e)["data"] != p
            for e, p in zip(posted, bundle["postings"], strict=True)):
        raise Failed("the postings differ from the TreasurePosted events")
    seeds = bundle["seeds"]
    if seeds["commitment"] != began["commitment"] or seeds["player_seeds"] != [
            *(s.get("seed") or "" for s in began["seats"]), *_bet_seeds(_game_events(bundle))]:
        raise Failed("the seeds differ from HandBegan")
    for e in posted:
        if e["canonical"] is None:
            # Postings are no one's secret, nor is a move that posts: a withheld one's amount
            # would be the bundle's word alone, nothing signed saying it.
            raise Failed(f"version {e['version']}: a posting is withheld, which Banco never does")
    return f"{len(posted)} postings, seeds and options as the events record them"


def _server_seed(bundle: dict) -> str | None:
    revealed = _stored(bundle, "SeedRevealed")
    return None if revealed is None else revealed.get("server_seed")


def _unrevealed(bundle: dict) -> Skipped:
    """Why no server seed is read: the hand is not settled yet, or its seed is kept from this
    viewer (a conceded Casino pirate hand's is an auditor's alone)."""
    if not any(e["type"] == "SeedRevealed" for e in _events(bundle)):
        return Skipped("the server seed is not revealed yet: the hand is not settled")
    return Skipped("the server seed is not revealed to this viewer")


def check_commitment(bundle: dict) -> str:
    began = _stored(bundle, "HandBegan")
    seed = _server_seed(bundle)
    if seed is None:
        raise _unrevealed(bundle)
    if bundle["seeds"]["server_seed"] != seed:
        raise Failed("the bundle's server seed is not the revealed one")
    try:
        computed = shuffle.commitment(seed)
    except ValueError as e:
        raise Failed("the server seed is not hex") from e
    if began is None or computed != began["commitment"]:
        raise Failed("SHA-256 of the revealed seed is not the commitment")
    return f"SHA-256(seed) = {computed[:16]}..."


def _deck_options(game: str, options: Any) -> dict[str, int]:
    """The options that size the deck of `game`, each a whole number in the range its rules
    allow (the game's default when absent): a count from the bundle builds nothing unchecked."""
    counts = DECK_OPTIONS.get(game, {})
    if counts and not isinstance(options, dict):
        raise Failed("options: not an object")
    out = {}
    for name, (default, low, high) in counts.items():
        value = options.get(name, default)
        whole = _whole(value)
        if whole is None or not low <= whole <= high:
            raise Failed(f"options.{name} {canonical_json(value)} is outside the game's range {low}-{high}")
        out[name] = whole
    return out


def _seated(game: str, where: str, seats: Any) -> None:
    """`seats` (HandBegan's, or the opening event's when shown) as many as the game seats."""
    if seats is None and where != "HandBegan":
        return
    low, high = PLAYERS[game]
    if not isinstance(seats, list) or not low <= len(seats) <= high:
        count = len(seats) if isinstance(seats, list) else canonical_json(seats)
        raise Failed(f"{where} seats {count} players, the game seats {low}-{high}")


def check_deck(bundle: dict) -> str:
    seed = _server_seed(bundle)
    games = _game_events(bundle)
    if seed is None:
        raise _unrevealed(bundle)
    began = _stored(bundle, "HandBegan")
    if began is None:
        raise Failed("the bundle holds no HandBegan")
    opening = next(iter(games), None)
    options = ((opening or {}).get("data") or {}).get("options") or bundle["options"]
    unshuffled = shuffle.composition(bundle["game"], _deck_options(bundle["game"], options))
    if unshuffled is None:
        raise Skipped(f"no deck of {bundle['game']} is known here")
    # The seats the deal goes round: the opening event's, else (withheld) HandBegan's.
    shown_seats = ((opening or {}).get("data") or {}).get("seats")
    for where, listed in (("HandBegan", began["seats"]), ("the opening event", shown_seats)):
        _seated(bundle["game"], where, listed)
    joined = [s.get("seed") or "" for s in began["seats"]]
    deck = shuffle.shuffle(unshuffled, seed, joined)
    said = []
    if opening is not None and opening["data"] is not None:
        recorded = opening["data"].get("deck", opening["data"].get("pile"))
        if recorded != deck:
            raise Failed("the recorded deck order is not the one the seeds give")
        said.append(f"{len(deck)} cards in the order the seeds give")
    # Bets that carried seeds (Sette e mezzo) had the deck shuffled again before the deal, from
    # the join seeds then theirs: the cards come off that deck.
    seeds_of_players = joined + _bet_seeds(games)
    if len(seeds_of_players) > len(joined):
        again = next((g for g in games if g["type"] == "DeckShuffled"), None)
        if again is None:
            raise Failed("bets carried seeds but the deck was not shuffled again with them")
        if again["data"] is not None and again["data"].get("deck") != shuffle.shuffle(
                unshuffled, seed, seeds_of_players):
            raise Failed("the deck shuffled again with the bets' seeds is not the one the seeds give")
    seats = [s["seat"] for s in shown_seats or began["seats"]]
    try:
        walked = dealt.walk(bundle["game"], games, unshuffled, seats,
                            lambda cards, label: shuffle.shuffle(cards, seed, seeds_of_players, label))
    except dealt.Mismatch as e:
        raise Failed(str(e)) from e
    if walked is not None and walked.checked:
        said.append(f"{walked.checked} cards dealt, each the one the seeds give"
                    + (f" ({walked.withheld} events withheld from this viewer)" if walked.withheld else "")
                    + (f", not walked past version {walked.lost_at} (withheld)" if walked.lost_at else ""))
    if not said:  # neither the deck's order nor any card dealt is shown to this viewer
        raise Skipped("the deck and the cards dealt are withheld from this viewer")
    return ", ".join(said)


def check_replay(bundle: dict) -> str:
    if bundle["game"] not in SEVEN_HALF_GAMES:
        raise Skipped(f"no rules of {bundle['game']} are re-played here")
    if bundle["rules_version"] != 1:
        raise Skipped(f"rules version {bundle['rules_version']} of {bundle['game']} is not known here")
    games = _game_events(bundle)
    if not any(e["type"] == "HandEnded" for e in games):
        raise Skipped("the hand is still in play: nothing is settled to re-play")
    if any(e["data"] is None for e in games):
        raise Skipped("some of the hand's events are withheld from this viewer")
    wrong = sevenhalf.replay(bundle["game"], games)
    if wrong:
        raise Failed("; ".join(wrong))
    return "totals, outcomes and payouts as the rules give them"


def _posting(event: dict) -> dict:
    """A TreasurePosted event's posting: one whole positive amount from one account to another."""
    if event["canonical"] is None:
        raise Failed(f"version {event['version']}: a posting is withheld, which Banco never does")
    data = _parsed(event)["data"]
    amount = _whole(data.get("amount"))
    if amount is None or amount <= 0 or not isinstance(data.get("from"), str) \
            or not isinstance(data.get("to"), str) or data["from"] == data["to"]:
        raise Failed(f"version {event['version']}: the posting {settlement.describe(data)} is not one"
                     " whole positive amount from one account to another")
    return dict(data)


def _in_hand(events: list[dict], game: str, table: str, hand: str, players: dict[int, Any]) -> int:
    """The postings made during the hand (before HandSettled) are, one for one and in order,
    what the engine's events before them post (a 7½ bet or split: the seat to the escrow; a
    bust: the escrow to the banker; Cassino's and Pirate pairs' stakes: each seat to the pot),
    in the ledger's accounts: each event's postings follow it, as its command appends them after
    its own events. A withheld event posts what it shows. The number of postings held so."""
    pending: list[tuple[dict, dict]] = []  # (the event, a posting it made) not posted yet
    count = 0
    for e in events:
        if e["type"].startswith("game."):
            body = _parsed(e)
            data = body["data"]["data"] if body is not None else (e.get("shown") or {}).get("data")
            try:
                plan = settlement.posts(game, e["type"][5:], data, sorted(players))
                for source, target, amount, reason in plan or []:
                    n = _whole(amount)
                    if n is None or n <= 0:
                        raise Failed(f"version {e['version']} ({e['type'][5:]}) posts"
                                     f" {settlement.describe(amount)}, not a whole positive amount")
                    pending.append((e, {"from": settlement.ledger_account(source, table, hand, players),
                                        "to": settlement.ledger_account(target, table, hand, players),
                                        "amount": n, "reason": reason}))
            except settlement.Wrong as wrong:
                raise Failed(f"version {e['version']} ({e['type'][5:]}): {wrong}") from wrong
        elif e["type"] == "TreasurePosted":
            have = _posting(e)
            if not pending:
                raise Failed(f"version {e['version']}: TreasurePosted pays {settlement.describe(have)},"
                             " which no event of the hand posts")
            by, want = pending.pop(0)
            if have != {**want, "table": table, "hand": hand}:
                raise Failed(f"version {e['version']}: TreasurePosted pays {settlement.describe(have)}"
                             f" where version {by['version']} ({by['type'][5:]}) posts"
                             f" {settlement.describe(want)}")
            count += 1
    if pending:
        by, want = pending[0]
        raise Failed(f"no TreasurePosted pays {settlement.describe(want)}, which version"
                     f" {by['version']} ({by['type'][5:]}) posts")
    return count


def check_settlement(bundle: dict) -> str:
    """The settlement paid what the engine decided, and the hand's money adds up: HandSettled's
    postings and the TreasurePosted events after it are the engine's settlement (its HandEnded,
    GameWon, RoundScored) in the ledger's accounts; walked in order from what each held at the
    deal, no account pays more than it holds, and the hand's escrow (and a pot the settlement
    paid out) is left empty: what it took in, it paid out."""
    events = _events(bundle)
    settled_at = next((n for n, e in enumerate(events) if e["type"] == "HandSettled"), None)
    if settled_at is None:
        raise Skipped("the hand is not settled yet")
    games = _game_events(bundle)
    game, table, hand = bundle["game"], bundle["table_id"], bundle["hand_id"]
    try:
        plan = settlement.decided(game, games)
    except settlement.Withheld as withheld:
        raise Skipped(f"{withheld} is withheld from this viewer: what the engine decided cannot be"
                      " read") from withheld
    except settlement.Wrong as wrong:
        raise Failed(str(wrong)) from wrong
    if plan is None:
        raise Skipped(f"no settlement of {game} is known here")
    by = settlement.DECIDED_BY[game]
    began = _stored(bundle, "HandBegan")
    if began is None:
        raise Failed("the bundle holds no HandBegan")
    players = {seat: s["player_id"] for s in began["seats"] if (seat := _whole(s["seat"])) is not None}
    want = []
    try:
        for source, target, amount, reason in plan:
            n = _whole(amount)
            if n is None or n <= 0:
                raise Failed(f"{by} decides a posting of {settlement.describe(amount)}, not a whole"
                             " positive amount")
            want.append({"from": settlement.ledger_account(source, table, hand, players),
                         "to": settlement.ledger_account(target, table, hand, players),
                         "amount": n, "reason": reason})
        held = settlement.opening(game, games, table, hand, players)
    except settlement.Wrong as wrong:
        raise Failed(str(wrong)) from wrong
    settled = events[settled_at]
    if settled["canonical"] is None:
        raise Failed(f"version {settled['version']}: HandSettled is withheld, which Banco never does")
    recorded = _parsed(settled)["data"]["postings"]
    if not isinstance(recorded, list):
        raise Failed("HandSettled's postings are not a list")
    for have, w in zip(recorded, want, strict=False):
        if have != w:
            raise Failed(f"HandSettled pays {settlement.describe(have)} where {by} decided"
                         f" {settlement.describe(w)}")
    if len(recorded) > len(want):
        raise Failed(f"HandSettled pays {settlement.describe(recorded[len(want)])}, which {by} did"
                     " not decide")
    if len(recorded) < len(want):
        raise Failed(f"HandSettled does not pay {settlement.describe(want[len(recorded)])}, which {by}"
                     " decided")
    paid = [(e, _posting(e)) for e in events[settled_at + 1:] if e["type"] == "TreasurePosted"]
    for (e, have), w in zip(paid, want, strict=False):
        if have != {**w, "table": table, "hand": hand}:
            raise Failed(f"version {e['version']}: TreasurePosted pays {settlement.describe(have)}"
                         f" where {by} decided {settlement.describe(w)}")
    if len(paid) > len(want):
        e, have = paid[len(want)]
        raise Failed(f"version {e['version']}: TreasurePosted pays {settlement.describe(have)}, which"
                     f" {by} did not decide")
    if len(paid) < len(want):
        raise Failed(f"no TreasurePosted pays {settlement.describe(want[len(paid)])}, which {by}"
                     " decided")
    during = _in_hand(events[:settled_at], game, table, hand, players)
    # The money walked: every posting of the hand, from what each account held at the deal.
    for e in events:
        if e["type"] != "TreasurePosted":
            continue
        p = _posting(e)
        if p["from"] in held:
            if p["amount"] > held[p["from"]]:
                raise Failed(f"version {e['version']}: {p['from']} pays {p['amount']}, holding"
                             f" {held[p['from']]}: more than it holds")
            held[p["from"]] -= p["amount"]
        if p["to"] in held:
            held[p["to"]] += p["amount"]
    emptied = [f"escrow:{table}:{hand}",
               *sorted({w["from"] for w in want if w["from"].startswith("pot:")})]
    for account in emptied:
        if held.get(account, 0) != 0:
            raise Failed(f"{account} keeps {held[account]} once the hand is settled: what it"
                         " took in, it did not pay out")
    return (f"{len(want)} settlement postings as {by} decided, {during} during the hand as its events"
            f" posted them; {len(held)} accounts walked from the deal, none paying more than it held"
            " or keeping what it had to pay out")


def named(bundle: Any) -> dict[str, Any]:
    """What the bundle says it is evidence of: its hand, table, game and viewer (each None when
    the bundle names none), so that an auditor can see it is the disputed hand's. The bundle's
    word, which its attestation covers."""
    get = bundle.get if isinstance(bundle, dict) else (lambda _: None)
    text = {k: v if isinstance(v, str) else None for k in ("hand_id", "table_id", "game")
            for v in [get(k)]}
    viewer = get("viewer")
    if isinstance(viewer, dict):
        kind = viewer.get("kind")
        viewer = {"kind": kind if isinstance(kind, str) else None, "seat": _whole(viewer.get("seat"))}
    else:
        viewer = None
    return {**text, "viewer": viewer}


def named_line(names: dict[str, Any]) -> str:
    """`named` in one line: `hand H, table T, game G, viewer auditor` (`?` for what is not named)."""
    viewer = names["viewer"]
    who = "?" if viewer is None else (viewer["kind"] or "?") + (
        "" if viewer["seat"] is None else f" {viewer['seat']}")
    return (f"hand {names['hand_id'] or '?'}, table {names['table_id'] or '?'}, game"
            f" {names['game'] or '?'}, viewer {who}")


def verify(bundle: dict, key: bytes | None = None, *, allow_unattested: bool = False) -> Result:
    """Run every check; `key` is the house's public key (32 bytes) when pinned. A bundle of the
    former format banco-evidence/1, which has no attestation, fails it unless `allow_unattested`
    (then its attestation is skipped, the rest checked)."""
    result = Result()
    if too_deep(bundle):
        result.outcomes["format"] = ("failed", f"nested deeper than {MAX_DEPTH} levels")
        return result
    if inexact(bundle):
        result.outcomes["format"] = ("failed", INEXACT)
        return result
    if not isinstance(bundle, dict) or bundle.get("format") not in FORMATS:
        result.outcomes["format"] = ("failed", f"not a {' or '.join(FORMATS)} bundle")
        return result
    bundle = Members(bundle)
    runs = {"signature": lambda: check_signature(bundle, key),
            "attestation": lambda: check_attestation(bundle, key, allow_unattested),
            "inclusion": lambda: check_inclusion(bundle),
            "chain": lambda: check_chain(bundle), "contents": lambda: check_contents(bundle),
            "commitment": lambda: check_commitment(bundle), "deck": lambda: check_deck(bundle),
            "replay": lambda: check_replay(bundle), "settlement": lambda: check_settlement(bundle)}
    for name in CHECKS:
        try:
            result.outcomes[name] = ("passed", runs[name]())
        except Skipped as e:
            result.outcomes[name] = ("skipped", str(e))
        except (Failed, Missing) as e:
            result.outcomes[name] = ("failed", str(e))
        except NotJson as e:  # a stored text (an event's, the statement) JSON itself allows
            result.outcomes[name] = ("failed", f"a stored text cannot be read ({e})")
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as e:
            result.outcomes[name] = ("failed", f"the bundle cannot be read ({type(e).__name__}: {e})")
    return result
