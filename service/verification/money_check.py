"""The money checks: the settlement equals `settle` recomputed, every posting is one debit and
one credit of the same positive amount, and no account but the house's ever went negative."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import psycopg

from events.catalog import TYPES
from events.game_records import engine_event
from events.ledger import HOUSE
from events.model import StoredEvent
from events.postgres import COLUMNS, stored_event
from events.types import EventTypes
from service.verification.findings import Check, failed, passed
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
