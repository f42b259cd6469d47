"""Disputes about a hand, each a stream of its own (`dispute-<id>`): opened, evidence attached,
re-adjudicated, and closed once, resolved (with corrective postings) or rejected.

Who may do what: a player opens a dispute only about a hand he played, and reads (and has
re-adjudicated) only those about his hands, seeing the hand as his seat does; an auditor opens,
attaches evidence, re-adjudicates and reads any; only the operator resolves or rejects. The
HTTP resources and the command line decide the caller; the handlers check that a player's
dispute is about his hand (`may_read`).

A resolution that pays never edits the log: it appends, to the dispute's stream, a
`DisputeResolved` that lists its postings and the `TreasurePosted` events that make them, each
naming the dispute in its reason and the hand and table in its `hand` and `table`, so that they
are shown with the hand, in the feed, in webhooks and in balance history. A correction moves
treasure between the house's account and the wallets of the hand's players, never a seat (the
table may have moved on): each is one debit and one equal credit, so treasure is conserved.
One that would overdraw a wallet (the player has spent or withdrawn it since) is refused whole
(`correction_overdraws`) and nothing is written: the operator decides again, from what the
wallet now holds, or pays from the house.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from events import ledger
from events.model import NewEvent, StoredEvent
from games import registry
from games.contract import AUDITOR, SPECTATOR, Viewer, may_see
from service.application.errors import Conflict, Forbidden, Invalid, NotFound
from service.application.principal import Principal
from service.application.unit_of_work import UnitOfWork
from service.verification.hand_log import HandLog, TableLog, table_stream
from service.verification.readjudication import Readjudication, net, readjudicate

NOTE_MAX = 2000
HOUSE = "house"  # a correction's side that is the house's issuing account
PAGE = 1000  # events read a time from a table's stream
# The largest correction: a bigint holds every balance, and no hand moves more.
AMOUNT_MAX = 10**15


def stream(dispute_id: str) -> str:
    return f"dispute-{dispute_id}"


def new_dispute_id() -> str:
    return "dp_" + secrets.token_hex(8)


def reason_of(dispute_id: str) -> str:
    """The reason a corrective posting carries: it names its dispute (balance history shows it)."""
    return f"dispute_correction:{dispute_id}"


@dataclass(frozen=True)
class OpenDispute:
    """Open a dispute on `hand_id` with a reason, on behalf of `by`."""

    hand_id: str
    reason: str
    by: Principal
    dispute_id: str = field(default_factory=new_dispute_id)


@dataclass(frozen=True)
class AttachEvidence:
    dispute_id: str
    note: str
    by: Principal


@dataclass(frozen=True)
class Readjudicate:
    """Replay the dispute's hand under `rules_version` (the hand's own when None)."""

    dispute_id: str
    by: Principal
    rules_version: int | None = None


@dataclass(frozen=True)
class Correction:
    """`amount` from one side to the other: a player of the hand (his wallet) or the house."""

    source: str
    target: str
    amount: int


@dataclass(frozen=True)
class ResolveDispute:
    """Close the dispute, paying `corrections` (one at least)."""

    dispute_id: str
    note: str
    corrections: tuple[Correction, ...]


@dataclass(frozen=True)
class RejectDispute:
    """Close the dispute with nothing paid."""

    dispute_id: str
    note: str


# Reading ------------------------------------------------------------------------------------

def fold(events: list[StoredEvent]) -> dict[str, Any] | None:
    """A dispute as its stream's events make it, or None for no stream."""
    if not events or events[0].type != "DisputeOpened":
        return None
    opened = events[0]
    d: dict[str, Any] = {
        "id": opened.data["dispute_id"], "hand_id": opened.data["hand_id"],
        "table_id": opened.data["table_id"], "status": "open", "reason": opened.data["reason"],
        "opened_by": opened.data["opened_by"], "players": list(opened.data["players"]),
        "opened_at": opened.recorded_at, "closed_at": None, "version": events[-1].version,
        "evidence": [], "readjudications": [], "resolution": None, "corrections": []}
    for e in events[1:]:
        data = e.data
        if e.type == "DisputeEvidenceAttached":
            d["evidence"].append({"note": data["note"], "attached_by": data["attached_by"],
                                  "attached_at": e.recorded_at})
        elif e.type == "DisputeReadjudicated":
            d["readjudications"].append({
                k: data[k] for k in ("rules_version", "hand_rules_version", "matches",
                                     "events_differing", "postings_differing", "refused",
                                     "postings")} | {"readjudicated_at": e.recorded_at})
        elif e.type in ("DisputeResolved", "DisputeRejected"):
            d["status"] = "resolved" if e.type == "DisputeResolved" else "rejected"
            d["resolution"] = {"note": data["note"], "at": e.recorded_at}
            d["closed_at"] = e.recorded_at
        elif e.type == "TreasurePosted":
            d["corrections"].append({"from": data["from"], "to": data["to"],
                                     "amount": data["amount"], "reason": data["reason"],
                                     "position": e.position})
    return d


def read(uow: UnitOfWork, dispute_id: str) -> dict[str, Any]:
    """The dispute (NotFound when there is none)."""
    events = uow.read_stream(stream(dispute_id), 0, 10_000)
    found = fold(events)
    if found is None:
        raise NotFound("dispute_not_found", f"no dispute {dispute_id}")
    return found


def may_read(dispute: dict[str, Any], who: Principal) -> bool:
    """Whether `who` may read the dispute: a player only one about a hand he played."""
    return who.role != "player" or who.subject in dispute["players"]


def readable(uow: UnitOfWork, dispute_id: str, who: Principal) -> dict[str, Any]:
    """The dispute, for a caller who may read it (Forbidden `not_your_dispute` otherwise)."""
    dispute = read(uow, dispute_id)
    if not may_read(dispute, who):
        raise Forbidden("not_your_dispute", "a player reads only the disputes about his hands")
    return dispute


def hand_log(uow: UnitOfWork, hand_id: str) -> HandLog:
    """The hand's log, read from its table's stream through the unit of work."""
    hand = uow.hand(hand_id)
    if hand is None:
        raise NotFound("hand_not_found", f"no hand {hand_id}")
    events: list[StoredEvent] = []
    while page := uow.read_stream(table_stream(hand["table_id"]), len(events), PAGE):
        events += page
    created = events[0].data
    table = TableLog(hand["table_id"], str(created["game"]), dict(created["options"]), events,
                     int(created.get("rules_version") or 1))
    found = next((h for h in table.hands() if h.hand_id == hand_id), None)
    if found is None:  # the row is written with the hand's HandBegan: never
        raise NotFound("hand_not_found", f"no hand {hand_id}")
    return found


def viewer(who: Principal, dispute: dict[str, Any], hand: HandLog) -> Viewer:
    """How `who` sees the hand's cards: an auditor all, a player his seat's, the operator (who
    holds no seat) as a spectator."""
    if who.role == "auditor":
        return AUDITOR
    if who.role == "player":
        for seat in hand.seats:
            if seat["player_id"] == who.subject:
                return Viewer.at_seat(int(seat["seat"]))
    return SPECTATOR


def shown_event(record: dict[str, Any] | None, seen_by: Viewer) -> dict[str, Any] | None:
    """An engine event's record as `seen_by` may receive it (`games.contract.redact`'s rule)."""
    if record is None:
        return None
    d = record["data"]
    data = d["data"] if may_see(d["visible_to"], seen_by) else (d["public"] or {})
    return {"type": record["type"].removeprefix("game."), "data": dict(data)}


def shown(found: Readjudication, seen_by: Viewer) -> dict[str, Any]:
    """A re-adjudication as `seen_by` may receive it: every differing event redacted for him."""
    recorded = net([p["recorded"] for p in found.postings if p["recorded"]])
    return {**found.summary(), "events_compared": found.events_compared,
            "refused_command": None if found.refused is None else {
                k: found.refused[k] for k in ("index", "code", "detail")},
            "events": [{"index": d["index"], "recorded": shown_event(d["recorded"], seen_by),
                        "replayed": shown_event(d["replayed"], seen_by)} for d in found.events],
            "net": _net_difference(recorded, net([p["replayed"] for p in found.postings
                                                  if p["replayed"]]))}


def _net_difference(recorded: dict[str, int], replayed: dict[str, int]) -> list[dict[str, Any]]:
    """Per account, what the replay would have moved less what was moved (nonzero only)."""
    return [{"account": a, "recorded": recorded.get(a, 0), "replayed": replayed.get(a, 0),
             "difference": replayed.get(a, 0) - recorded.get(a, 0)}
            for a in sorted(set(recorded) | set(replayed))
            if replayed.get(a, 0) != recorded.get(a, 0)]


# Writing ------------------------------------------------------------------------------------

def _note(text: str, what: str) -> str:
    text = text.strip()
    if not 1 <= len(text) <= NOTE_MAX:
        raise Invalid("invalid_note", f"a dispute's {what} is 1 to {NOTE_MAX} characters")
    return text


def _open(uow: UnitOfWork, dispute_id: str, who: Principal | None = None,
          refusal: str = "") -> dict[str, Any]:
    """The dispute, open, for `who` if he may read it (None: the house, whose commands only the
    house may send): one who may not is refused (`refusal`) before he is told whether it is
    open, which is its outcome's to say."""
    uow.queue_behind(stream(dispute_id))  # notes and decisions sent at once, one by one
    dispute = read(uow, dispute_id)
    if who is not None and not may_read(dispute, who):
        raise Forbidden("not_your_dispute", refusal)
    if dispute["status"] != "open":
        raise Conflict("dispute_closed", f"{dispute_id} was {dispute['status']} already",
                       dispute_status=dispute["status"])
    return dispute


def open_dispute(uow: UnitOfWork, command: OpenDispute, metadata: dict[str, Any]
                 ) -> dict[str, Any]:
    """The dispute opened. NotFound for no such hand; Forbidden `not_your_hand` for a player who
    did not play it; Conflict `hand_in_play` before it is settled; Invalid `invalid_note` for a
    blank or overlong reason."""
    reason = _note(command.reason, "reason")
    hand = uow.hand(command.hand_id)
    if hand is None:
        raise NotFound("hand_not_found", f"no hand {command.hand_id}")
    players = [s["player_id"] for s in hand["seats"]]
    if command.by.role == "player" and command.by.subject not in players:
        raise Forbidden("not_your_hand", "a player opens a dispute only about a hand he played")
    if hand["status"] != "settled":
        # Until then there is no outcome to dispute, nor a whole hand to decide again, and its
        # replay and evidence are not shown to its players.
        raise Conflict("hand_in_play", "a dispute is opened about a settled hand: this one is"
                       f" still {hand['status']}")
    uow.append(stream(command.dispute_id), [NewEvent("DisputeOpened", {
        "dispute_id": command.dispute_id, "hand_id": command.hand_id,
        "table_id": hand["table_id"], "reason": reason, "opened_by": command.by.role,
        "actor": metadata["actor"], "players": players}, metadata)], 0)
    uow.flush()
    return read(uow, command.dispute_id)


def attach(uow: UnitOfWork, command: AttachEvidence, metadata: dict[str, Any]
           ) -> dict[str, Any]:
    """The dispute with the note attached; Conflict `dispute_closed` once it is closed."""
    dispute = _open(uow, command.dispute_id, command.by,
                    "a player adds only to the disputes about his hands")
    note = _note(command.note, "evidence")
    uow.append(stream(command.dispute_id), [NewEvent("DisputeEvidenceAttached", {
        "dispute_id": command.dispute_id, "hand_id": dispute["hand_id"], "note": note,
        "attached_by": command.by.role, "actor": metadata["actor"]}, metadata)],
        dispute["version"])
    uow.flush()
    return read(uow, command.dispute_id)


def readjudicate_dispute(uow: UnitOfWork, command: Readjudicate, metadata: dict[str, Any]
                         ) -> dict[str, Any]:
    """The re-adjudication as the caller may see it (`shown`), recorded in the dispute's stream.
    Invalid `rules_version_not_served` for a version this Banco does not serve, and
    `rules_version_older` for one older than the hand's; Conflict `dispute_closed`."""
    dispute = _open(uow, command.dispute_id, command.by,
                    "a player asks only about the disputes of his hands")
    hand = hand_log(uow, dispute["hand_id"])
    version = hand.rules_version if command.rules_version is None else command.rules_version
    if version < hand.rules_version:
        raise Invalid("rules_version_older", f"the hand was played under rules version"
                      f" {hand.rules_version}: it is re-adjudicated under it or a newer one",
                      hand_rules_version=hand.rules_version)
    try:
        registry.engine(hand.game, version)
    except registry.RulesNotServed as e:
        served = sorted(registry.engines().get(hand.game, {}))
        raise Invalid("rules_version_not_served", str(e), served=served) from e
    found = readjudicate(hand, version)
    uow.append(stream(command.dispute_id), [NewEvent("DisputeReadjudicated", {
        "dispute_id": command.dispute_id, **found.summary(), "actor": metadata["actor"]},
        metadata)], dispute["version"])
    uow.flush()
    return shown(found, viewer(command.by, dispute, hand))


def _account(side: str, players: list[str]) -> str:
    if side == HOUSE:
        return ledger.HOUSE
    if side not in players:
        raise Invalid("not_of_the_hand", f"{side} did not play the disputed hand: a correction"
                      " moves treasure between the house and the hand's players", side=side)
    return ledger.wallet(side)


def resolve(uow: UnitOfWork, command: ResolveDispute, metadata: dict[str, Any]
            ) -> dict[str, Any]:
    """The dispute resolved, with its corrective postings. Invalid `invalid_correction` for no
    correction, an amount not a positive whole number or one side paying itself;
    `not_of_the_hand` for a player who did not play the hand; `correction_overdraws` (nothing
    written) for a correction a wallet cannot pay; Conflict `dispute_closed`."""
    note = _note(command.note, "resolution")
    if not command.corrections:
        raise Invalid("invalid_correction", "a resolution pays one correction at least: one"
                      " that pays nothing is a rejection")
    dispute = _open(uow, command.dispute_id)
    transfers = []
    for c in command.corrections:
        if isinstance(c.amount, bool) or not isinstance(c.amount, int) \
                or not 1 <= c.amount <= AMOUNT_MAX:
            raise Invalid("invalid_correction", f"a correction's amount is a whole number from 1"
                          f" to {AMOUNT_MAX}")
        if c.source == c.target:
            raise Invalid("invalid_correction", "a correction moves treasure between two sides")
        transfers.append(ledger.Transfer(
            _account(c.source, dispute["players"]), _account(c.target, dispute["players"]),
            c.amount, reason_of(command.dispute_id), table=dispute["table_id"],
            hand=dispute["hand_id"]))
    # What each paying wallet holds before the corrections: the refusal names that, not what
    # it would hold part-way through them (the database's check goes correction by correction).
    held = {t.from_account: uow.balance(t.from_account) for t in transfers}
    postings = [{"from": t.from_account, "to": t.to_account, "amount": t.amount,
                 "reason": t.reason} for t in transfers]
    resolved = NewEvent("DisputeResolved", {
        "dispute_id": command.dispute_id, "hand_id": dispute["hand_id"],
        "table_id": dispute["table_id"], "note": note, "postings": postings,
        "actor": metadata["actor"]}, metadata)
    uow.append(stream(command.dispute_id),
               [resolved, *(t.event(metadata) for t in transfers)], dispute["version"])
    try:
        uow.flush()
    except ledger.InsufficientTreasure as e:
        paid = sum(t.amount for t in transfers if t.from_account == e.account)
        raise Invalid("correction_overdraws", f"{e.account} holds {held[e.account]}, and the"
                      f" corrections take {paid} from it: a correction never overdraws a wallet;"
                      " resolve for what it holds, or pay from the house", account=e.account,
                      balance=held[e.account], amount=paid) from e
    return read(uow, command.dispute_id)


def reject(uow: UnitOfWork, command: RejectDispute, metadata: dict[str, Any]
           ) -> dict[str, Any]:
    """The dispute rejected; Conflict `dispute_closed` once it is closed."""
    note = _note(command.note, "rejection")
    dispute = _open(uow, command.dispute_id)
    uow.append(stream(command.dispute_id), [NewEvent("DisputeRejected", {
        "dispute_id": command.dispute_id, "hand_id": dispute["hand_id"], "note": note,
        "actor": metadata["actor"]}, metadata)], dispute["version"])
    uow.flush()
    return read(uow, command.dispute_id)
