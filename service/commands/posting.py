"""Postings: the ledger's transfers appended to a stream and projected in the same transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from events.ledger import Transfer
from events.model import NewEvent, StoredEvent
from events.postgres import PostgresEventStore
from service.commands.postgres_unit_of_work import PostgresUnitOfWork


def post(
    conn: psycopg.Connection,
    store: PostgresEventStore,
    stream_id: str,
    transfers: Sequence[Transfer],
    metadata: dict[str, Any],
    expected_version: int | None = None,
    extra: Sequence[NewEvent] = (),
) -> list[StoredEvent]:
    """Append `extra` events then the transfers to `stream_id` in the caller's transaction on
    `conn`, refusing any overdraft (InsufficientTreasure) and a lost race (ConcurrencyConflict),
    with the balances projected.

    At a known version it is one round trip (`PostgresUnitOfWork.flush`): the balance check, the
    append and the balances' projection, in this order. The check fails the transaction before
    the append is run, so a refused request writes nothing and draws no position. Without a
    version the projection needs the positions the append returns: a second round trip.
    """
    uow = PostgresUnitOfWork.joining(conn, store)
    uow.append(stream_id, [*extra, *(t.event(metadata) for t in transfers)], expected_version)
    return uow.flush()
