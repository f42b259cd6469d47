"""Verify hands: deck, rules, money and integrity checks, hand by hand, table by table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg

from events.catalog import TYPES
from events.types import EventTypes
from games.registry import RulesNotServed
from service.verification.chain_check import chain_check
from service.verification.deck_check import deck_checks
from service.verification.findings import Check, failed
from service.verification.hand_log import HandLog, TableLog, load_table, table_of_hand
from service.verification.money_check import money_checks
from service.verification.rules_check import rules_check


def report(conn: psycopg.Connection, hand: HandLog, chain: Check,
           types: EventTypes = TYPES) -> dict[str, Any]:
    """Every check of one hand, given its table's chain check."""
    try:
        checks = [*deck_checks(hand), rules_check(hand), *money_checks(conn, hand, types), chain]
    except RulesNotServed as e:
        # A log written by a Banco that serves a later rules version than this one.
        checks = [failed("rules", hand.began, f"{e}: no engine here decides this hand"), chain]
    return {"hand_id": hand.hand_id, "table_id": hand.table_id, "game": hand.game,
            "rules_version": hand.rules_version,
            "settled": hand.find("SeedRevealed") is not None,
            "passed": all(c.passed for c in checks), "checks": [c.as_json() for c in checks]}


def verify_table(conn: psycopg.Connection, table: TableLog,
                 types: EventTypes = TYPES) -> Iterator[dict[str, Any]]:
    """A report for each hand of the table (read with `types`), in order."""
    chain = chain_check(conn, table.events)
    for hand in table.hands():
        yield report(conn, hand, chain, types)


def verify_hand(conn: psycopg.Connection, hand_id: str,
                types: EventTypes = TYPES) -> dict[str, Any] | None:
    """The report of one hand, or None when it was never dealt; the log is read with `types`."""
    table_id = table_of_hand(conn, hand_id)
    table = None if table_id is None else load_table(conn, table_id, types)
    if table is None:
        return None
    hand = next((h for h in table.hands() if h.hand_id == hand_id), None)
    return None if hand is None else report(conn, hand, chain_check(conn, table.events), types)


def table_ids(conn: psycopg.Connection) -> list[str]:
    """Every table ever created, oldest first."""
    rows = conn.execute("SELECT stream_id FROM events WHERE type = 'TableCreated' ORDER BY position")
    return [str(r[0])[len("table-"):] for r in rows]


def hand_count(conn: psycopg.Connection, table_id: str | None = None) -> int:
    """How many hands were dealt (at one table, or anywhere)."""
    sql = "SELECT count(*) FROM events WHERE type = 'HandBegan'"
    row = (conn.execute(sql + " AND stream_id = %s", (f"table-{table_id}",)) if table_id
           else conn.execute(sql)).fetchone()
    return int(row[0]) if row else 0
