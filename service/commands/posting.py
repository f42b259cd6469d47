"""Postings: the ledger's transfers appended to a stream and projected in the same transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import psycopg

from events.ledger import SHORTFALL, Transfer, hold, shortfall
from events.model import NewEvent, StoredEvent
from events.postgres import PostgresEventStore
from projections import apply_inline, balances


def post(
    conn: psycopg.Connection,
    store: PostgresEventStore,
    stream_id: str,
    transfers: Sequence[Transfer],
    metadata: dict[str, Any],
    expected_version: int | None = None,
    extra: Sequence[NewEvent] = (),
    then: Callable[[psycopg.Connection], None] | None = None,
) -> list[StoredEvent]:
    """Append `extra` events then the transfers to `stream_id`, refusing any overdraft
    (InsufficientTreasure) and a lost race (ConcurrencyConflict); `then`'s statements go with
    the projection's and see its balances.

    Must run inside the caller's transaction. At a known version it is one round trip (psycopg's
    pipeline mode): the balance check, the append, the balances' projection and `then`, in this
    order. The check fails the transaction before the append is run, so a refused request writes
    nothing and draws no position. Without a version the projection needs the positions the
    append returns: a second round trip.
    """
    events = [*extra, *(t.event(metadata) for t in transfers)]
    if not transfers:
        # Most game moves post nothing: no balance to check or lock.
        stored = store.append(stream_id, events, expected_version, conn=conn)
        _project(conn, stored, then)
        return stored
    first = None if expected_version is None else expected_version + 1

    def project(c: psycopg.Connection) -> None:
        if first is None:
            return
        # Unprepared: it follows the check, which may fail (`projections.tables.save_later`).
        balances.apply_appended(c, stream_id, list(enumerate(events, first)), prepare=False)
        if then is not None:
            then(c)

    try:
        stored = store.append_then(stream_id, events, expected_version, conn, project,
                                   before=lambda c: hold(c, stream_id, expected_version, transfers))
    except psycopg.Error as e:
        if e.sqlstate == SHORTFALL:
            raise shortfall(e) from e
        raise
    if first is None:
        _project(conn, stored, then)
    else:
        apply_inline(conn, stored, balances_applied=True)
    return stored


def _project(conn: psycopg.Connection, stored: Sequence[StoredEvent],
             then: Callable[[psycopg.Connection], None] | None) -> None:
    if then is None:
        apply_inline(conn, stored)
        return
    with conn.pipeline():
        apply_inline(conn, stored)
        then(conn)
