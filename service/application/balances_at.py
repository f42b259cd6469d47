"""Every account's balance at a point of the log: a position, or a time.

A point covers the postings at or before it in the ledger's own order, their positions: each
account's balance rows are locked before its postings draw their positions
(`events.ledger.hold`), so an account's positions follow the order its postings were
applied and no prefix of them takes a wallet below zero. (The feed's order, by transaction, can
put a transaction that began first but posted last before a posting it depended on.) For a time,
the postings recorded at or before it, which are a prefix of each account's postings too: they
were recorded one after the other under that account's lock.

Each account's balance then is the running balance of its last posting at or before the point,
read from `balance_history` (one index probe per account), so the answer always sums to zero.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg

from projections import csv_cells
from projections.history import copy_csv
from service.application.errors import Conflict, Invalid

COLUMNS = ("account", "balance", "last_position")
SETTLE_S = 5.0  # how long an answer waits for the transactions that may still hold a posting


@dataclass(frozen=True)
class Point:
    """Where to stop: after the posting at `position`, or the postings recorded by `time`."""

    position: int | None = None
    time: datetime | None = None

    def where(self) -> tuple[str, Any]:
        if self.position is not None:
            return "h.position <= %s", self.position
        return "h.recorded_at <= %s", self.time

    def shown(self) -> dict[str, Any]:
        if self.position is not None:
            return {"position": self.position}
        assert self.time is not None
        return {"time": self.time.isoformat()}


def _query(point: Point, paged: bool, account: str = "b.account") -> tuple[str, list[Any]]:
    bound, value = point.where()
    page = " AND b.account > %s ORDER BY b.account LIMIT %s" if paged else " ORDER BY b.account"
    return (f"SELECT {account}, h.balance_after AS balance, h.position AS last_position"
            " FROM balances b CROSS JOIN LATERAL ("
            " SELECT balance_after, position FROM balance_history h"
            f" WHERE h.account = b.account AND {bound} ORDER BY h.position DESC LIMIT 1) h"
            f" WHERE true{page}"), [value]


def settle(conn: psycopg.Connection, point: Point, timeout: float = SETTLE_S) -> None:
    """Refuse a point not reached yet, and wait until no transaction still open can hold a
    posting at or before it, so that asking again later gives the same answer.

    Every event's transaction has its id before it draws a position (an append writes its
    stream's row first), so a position or a time that has passed belongs to a transaction whose
    id is older than one drawn now. A statement of its own draws that id (and commits at once,
    the request's connection being in autocommit): the snapshot's xmax would not do, since it
    is one past the last transaction to finish, and a transaction still open may be at or past
    it. Once the oldest transaction still open (xmin) is past the id drawn, every posting at or
    before the point has committed or rolled back. The point is read first, in a statement of
    its own. Transaction ids are the server's: a long transaction in
    any database holds the answer back, and past `timeout` it is refused (409, retry)."""
    if point.position is not None:
        row = conn.execute("SELECT last_value FROM events_position_seq").fetchone()
        if row is None or point.position > row[0]:
            raise Invalid("as_of_not_reached", f"no event has reached position {point.position}",
                          errors={"query": {"as_of": ["Beyond the log's last position."]}})
    elif point.time is not None and point.time > datetime.now(UTC):
        raise Invalid("as_of_not_reached", "that time has not come yet",
                      errors={"query": {"as_of": ["In the future."]}})
    # Inside a transaction the id drawn would be that transaction's, which xmin never passes.
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE and conn.autocommit
    drawn = _one(conn, "SELECT pg_current_xact_id()::text::bigint")
    deadline = time.monotonic() + timeout
    while _one(conn, "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint") <= drawn:
        if time.monotonic() > deadline:
            raise Conflict("not_settled", "a transaction that may hold a posting before that"
                           " point is still open; retry in a moment")
        time.sleep(0.01)


def _one(conn: psycopg.Connection, sql: str) -> int:
    row = conn.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


def page(conn: psycopg.Connection, point: Point, cursor: str | None, limit: int
         ) -> tuple[list[dict[str, Any]], str | None]:
    """Up to `limit` accounts after `cursor` (by name) with their balance at `point`, and the
    cursor of the next page (None on the last)."""
    sql, params = _query(point, paged=True)
    rows = conn.execute(sql, [*params, cursor or "", limit + 1]).fetchall()
    items = [dict(zip(COLUMNS, r, strict=True)) for r in rows[:limit]]
    return items, (items[-1]["account"] if len(rows) > limit else None)


def csv(conn: psycopg.Connection, point: Point, chunk_bytes: int = 1 << 16) -> Iterator[bytes]:
    """Every account's balance at `point` as CSV with a header line, formatted by PostgreSQL
    (COPY) and streamed in chunks: memory stays constant however many accounts there are. The
    accounts' names are escaped so that a spreadsheet runs none (projections.csv_cells)."""
    sql, params = _query(point, paged=False, account=csv_cells.sql("b.account", "account"))
    yield from copy_csv(conn, sql, params, chunk_bytes)
