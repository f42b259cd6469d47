"""Read models rebuilt from the event log: balances, balance history, players."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from events.model import StoredEvent
from projections import balances, players


def apply_inline(conn: psycopg.Connection, events: Sequence[StoredEvent],
                 balances_applied: bool = False) -> None:
    """Update every inline projection in the appending transaction (read-your-writes); the
    balances' only if not `balances_applied` (`balances.apply_appended` in the append's round
    trip)."""
    if not balances_applied:
        balances.apply(conn, events)
    players.apply(conn, events)
