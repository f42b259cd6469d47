"""The corrections check: each dispute's corrective postings are what its resolution announced.

A resolution (`service.application.disputes`) appends to the dispute's stream a
`DisputeResolved` listing its postings, then one `TreasurePosted` per posting. The ledger's own
checks see them as any posting (conserved, no wallet negative); this one reads them as
corrections: each follows the resolution that lists it, in order and equal to it, names the
dispute in its reason and the disputed hand and table, moves treasure only between the house and
the wallets of the hand's players, and no posting of the stream is left unexplained. The
dispute's stream is a hash chain like any other, checked too.
"""

from __future__ import annotations

from typing import Any

import psycopg

from events.catalog import TYPES
from events.ledger import HOUSE, wallet
from events.model import StoredEvent
from events.types import EventTypes
from service.verification.chain_check import chain_check
from service.verification.findings import Check, failed, passed
from service.verification.hand_log import read_stream

LEGS = ("from", "to", "amount", "reason")


def dispute_streams(conn: psycopg.Connection) -> list[str]:
    """Every dispute's stream, oldest first."""
    rows = conn.execute("SELECT stream_id FROM events WHERE type = 'DisputeOpened'"
                        " ORDER BY position").fetchall()
    return [str(r[0]) for r in rows]


def _players(conn: psycopg.Connection, hand_id: str) -> list[str] | None:
    """The hand's players, as its `HandBegan` recorded them (None: no such hand)."""
    row = conn.execute("SELECT data FROM events WHERE type = 'HandBegan'"
                       " AND data->>'hand_id' = %s LIMIT 1", (hand_id,)).fetchone()
    return None if row is None else [str(s["player_id"]) for s in row[0]["seats"]]


def _corrections(events: list[StoredEvent], players: list[str]) -> Check:
    opened = events[0].data
    dispute_id, allowed = opened["dispute_id"], {HOUSE, *(wallet(p) for p in players)}
    announced: list[dict[str, object]] = []
    count = total = 0
    closed = False
    for e in events[1:]:
        if e.type == "TreasurePosted":
            if not announced:
                return failed("disputes.corrections", e, "a posting no resolution announced")
            want, have = announced.pop(0), {k: e.data.get(k) for k in LEGS}
            if have != want:
                return failed("disputes.corrections", e, "a correction differs from its"
                              " resolution", recorded=have, announced=want)
            if (e.data.get("hand"), e.data.get("table")) != (opened["hand_id"],
                                                             opened["table_id"]):
                return failed("disputes.corrections", e, "a correction names another hand")
            if e.data["reason"] != f"dispute_correction:{dispute_id}":
                return failed("disputes.corrections", e, "a correction's reason names another"
                              " dispute")
            if not {e.data["from"], e.data["to"]} <= allowed or e.data["from"] == e.data["to"]:
                return failed("disputes.corrections", e, "a correction moves treasure outside"
                              " the house and the hand's players' wallets")
            count, total = count + 1, total + int(e.data["amount"])
            continue
        if announced:
            return failed("disputes.corrections", e, "the resolution's postings stop short")
        if closed:
            return failed("disputes.corrections", e, "an event after the dispute was closed")
        if e.type == "DisputeResolved":
            announced = [dict(p) for p in e.data["postings"]]
            if not announced:
                return failed("disputes.corrections", e, "a resolution that pays nothing")
        closed = e.type in ("DisputeResolved", "DisputeRejected")
    if announced:
        return failed("disputes.corrections", events[-1], "the resolution's postings stop short")
    return passed("disputes.corrections", dispute_id=dispute_id, hand_id=opened["hand_id"],
                  postings=count, amount=total)


def check_dispute(conn: psycopg.Connection, stream_id: str,
                  types: EventTypes = TYPES) -> dict[str, Any]:
    """The report of one dispute: its corrections and its stream's chain."""
    events = read_stream(conn, stream_id, types)
    opened = events[0]
    players = _players(conn, opened.data["hand_id"])
    corrections = (failed("disputes.corrections", opened, "the disputed hand was never dealt")
                   if players is None else _corrections(events, players))
    checks = [corrections, chain_check(conn, events)]
    return {"dispute_id": opened.data["dispute_id"], "hand_id": opened.data["hand_id"],
            "passed": all(c.passed for c in checks), "checks": [c.as_json() for c in checks]}
