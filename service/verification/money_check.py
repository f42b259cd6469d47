"""The money checks: the settlement equals `settle` recomputed, every posting is one debit and
one credit of the same positive amount, and no account but the house's ever went negative."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import psycopg

from events.catalog import GAME_EVENT_PREFIX, TYPES
from events.game_records import engine_event
from events.ledger import HOUSE
from events.model import StoredEvent
from events.postgres import COLUMNS, stored_event
from events.types import EventTypes
from games.cassino.opening import stakes_paid
from games.contract import Posting
from games.sevenhalf import events as sevenhalf
from service.verification.findings import Check, failed, passed, ref
from service.verification.hand_log import HandLog
from service.verification.rules_check import UNREADABLE, postings

LEGS = ("from", "to", "amount", "reason")


def settlement_check(hand: HandLog) -> Check:
    """HandSettled's postings, and the TreasurePosted events after it, equal `settle` again; and
    when the table ended after the hand, what its end gave back equals `refund` again."""
    settled = hand.find("HandSettled")
    if settled is None:
        return passed("money.settlement", pending="the hand is not settled yet")
    engine = hand.engine
    state = engine.initial_state(hand.options)
    try:
        for e in hand.game_events():
            state = engine.evolve(state, engine_event(e))
        expected = postings(hand, engine.settle(state))
    except UNREADABLE as e:
        return failed("money.settlement", settled, f"the hand cannot be replayed ({type(e).__name__})")
    announced = [{k: p[k] for k in LEGS} for p in expected]
    if settled.data.get("postings") != announced:
        return failed("money.settlement", settled, "HandSettled differs from settle recomputed",
                      recorded=settled.data.get("postings"), recomputed=announced)
    after = hand.events[hand.events.index(settled):]
    paid = [e for e in after if e.type == "TreasurePosted"]
    for want, have in zip(expected, paid, strict=False):
        if have.data != want:
            return failed("money.settlement", have, "a settlement posting differs from settle",
                          recorded=have.data, recomputed=want)
    if len(paid) != len(expected):
        at = paid[len(expected)] if len(paid) > len(expected) else settled
        return failed("money.settlement", at,
                      f"{len(paid)} settlement postings recorded, settle gives {len(expected)}")
    if hand.ending is None:
        return passed("money.settlement", postings=announced)
    return _returned(hand, hand.ending, state, announced)


SEVEN_HALF_FAMILY = ("sette-e-mezzo", "siete-y-media", "casino-pirate")


def _posted_by(game: str, event: StoredEvent, seats: list[int]) -> list[Posting]:
    """What an engine event of the hand posts, as the game's own events make it (a 7½ bet or
    split: the seat to the escrow; a bust: the escrow to the banker; Cassino's and Pirate
    pairs' stakes: each seat to the pot). ValueError for an amount no posting can have."""
    d = event.data["data"]
    kind = event.type.removeprefix(GAME_EVENT_PREFIX)
    if game in SEVEN_HALF_FAMILY and kind == "BetPlaced":
        return list(sevenhalf.bet_placed(d["seat"], d["index"], d["amount"]).postings)
    if game in SEVEN_HALF_FAMILY and kind == "HandSplit":
        return list(sevenhalf.hand_split(d["seat"], d["index"], d["new_index"], d["card"],
                                         d["amount"]).postings)
    if game in SEVEN_HALF_FAMILY and kind == "StakeLost":
        return list(sevenhalf.stake_lost(d["seat"], d["index"], d["amount"], d["banker"]).postings)
    if game == "cassino" and kind == "StakesPaid":
        return list(stakes_paid(len(seats), d["stake"]).postings)
    if game == "pirate-pairs" and kind == "HandOpened":
        return [Posting(f"seat:{s}", "pot", d["stake"], "stake")
                for s in sorted(r["seat"] for r in d["seats"]) if d["stake"] != 0]
    return []


def _said(p: dict[str, Any]) -> str:
    """A posting in words, as the standalone verifiers say it."""
    return f"{p['amount']} from {p['from']} to {p['to']} ({p['reason']})"


def in_hand_check(hand: HandLog) -> Check:
    """The postings made during the hand (before HandSettled) are, one for one and in order,
    what the engine's events before them post, in the ledger's accounts: each event's postings
    follow it, as its command appends them after its own events. Said in the standalone
    verifiers' words."""
    def wrong(at: StoredEvent | None, reason: str) -> Check:
        return Check("money.in_hand", False, {"reason": reason}, ref(at))

    settled = hand.find("HandSettled")
    seats = sorted(int(s["seat"]) for s in hand.seats)
    pending: list[tuple[StoredEvent, dict[str, Any]]] = []
    count = 0
    for e in hand.events[:hand.events.index(settled)] if settled else hand.events:
        kind = e.type.removeprefix(GAME_EVENT_PREFIX)
        if e.type.startswith(GAME_EVENT_PREFIX):
            try:
                moves = _posted_by(hand.game, e, seats)
            except ValueError:
                amount = e.data["data"].get("amount", e.data["data"].get("stake"))
                return wrong(e, f"version {e.version} ({kind}) posts {amount}, not a whole"
                                " positive amount")
            pending += [(e, p) for p in postings(hand, moves)]
        elif e.type == "TreasurePosted":
            if not pending:
                return wrong(e, f"version {e.version}: TreasurePosted pays {_said(e.data)}, which"
                                " no event of the hand posts")
            by, want = pending.pop(0)
            if e.data != want:
                return wrong(e, f"version {e.version}: TreasurePosted pays {_said(e.data)} where"
                                f" version {by.version} ({by.type.removeprefix(GAME_EVENT_PREFIX)})"
                                f" posts {_said(want)}")
            count += 1
    if pending:
        by, want = pending[0]
        return wrong(settled, f"no TreasurePosted pays {_said(want)}, which version {by.version}"
                              f" ({by.type.removeprefix(GAME_EVENT_PREFIX)}) posts")
    return passed("money.in_hand", postings=count)


# What a table's end moves besides the game's own postings: seats paid in and cashed out.
SEATS_MOVES = ("buy_in", "cash_out")


def _returned(hand: HandLog, ending: list[StoredEvent], state: Any,
              announced: list[dict[str, Any]]) -> Check:
    """The table ended after the hand: what the game still held went back as `refund` says (a
    Cassino game closed before it was won gives each stake back), and nothing else moved."""
    expected = [{**p, "hand": None} for p in postings(hand, hand.engine.refund(state))]
    moved = [e for e in ending if e.type == "TreasurePosted"
             and e.data.get("reason") not in SEATS_MOVES]
    if [e.data for e in moved] != expected:
        # The first posting that differs, or one too many; one missing is missed at the end.
        at = next((e for e, want in zip(moved, expected, strict=False) if e.data != want),
                  moved[len(expected)] if len(moved) > len(expected)
                  else next(e for e in ending if e.type == "TableEnded"))
        return failed("money.settlement", at, "what the table's end gave back differs from"
                      " refund recomputed", recorded=[e.data for e in moved], recomputed=expected)
    return passed("money.settlement", postings=announced,
                  returned=[{k: p[k] for k in LEGS} for p in expected])


def double_entry_check(hand: HandLog) -> Check:
    """Each posting moves a positive whole amount between two different accounts."""
    flows: dict[str, int] = defaultdict(int)
    count = 0
    for e in hand.events:
        if e.type != "TreasurePosted":
            continue
        amount, source, target = e.data.get("amount"), e.data.get("from"), e.data.get("to")
        if not isinstance(amount, int) or amount <= 0 or not source or not target or source == target:
            return failed("money.double_entry", e, "a posting is not one debit and one equal credit",
                          posting=e.data)
        flows[source] -= amount
        flows[target] += amount
        count += 1
    return passed("money.double_entry", postings=count, net=sum(flows.values()), flows=dict(flows))


def _accounts(hand: HandLog) -> list[str]:
    return sorted({e.data[k] for e in hand.events if e.type == "TreasurePosted"
                   for k in ("from", "to") if isinstance(e.data.get(k), str)} - {HOUSE})


def no_negative_check(conn: psycopg.Connection, hand: HandLog,
                      types: EventTypes = TYPES) -> Check:
    """Replayed in log order, no account the hand touched ever held less than nothing."""
    accounts = _accounts(hand)
    # The accounts are matched in SQL in the current payload's shape only; older postings are
    # all read, upcast, and matched here.
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM events WHERE type = 'TreasurePosted' AND (schema_version <> %s"
        " OR data->>'from' = ANY(%s) OR data->>'to' = ANY(%s)) ORDER BY position",
        (types.version("TreasurePosted"), accounts, accounts)).fetchall()
    held: dict[str, int] = defaultdict(int)
    followed = set(accounts)
    for row in rows:
        event = stored_event(row, types)
        stream, version, data = event.stream_id, event.version, event.data
        if data.get("from") not in followed and data.get("to") not in followed:
            continue
        amount = int(data["amount"]) if isinstance(data.get("amount"), int) else 0
        held[data["from"]] -= amount
        held[data["to"]] += amount
        # Only the hand's own accounts are followed from their first posting; a wallet paying
        # a buy-in was credited in another stream this query does not read.
        if data["from"] in followed and held[data["from"]] < 0:
            at: dict[str, Any] = {"stream": stream, "version": version}
            return Check("money.no_negative", False, {
                "reason": f"{data['from']} went to {held[data['from']]} at {stream} v{version}",
                "account": data["from"], "balance": held[data["from"]]}, at)
    return passed("money.no_negative", accounts=accounts)


def money_checks(conn: psycopg.Connection, hand: HandLog, types: EventTypes = TYPES) -> list[Check]:
    """The three money checks of a hand (the log read with `types`)."""
    return [settlement_check(hand), double_entry_check(hand), no_negative_check(conn, hand, types)]
