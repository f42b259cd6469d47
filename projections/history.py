"""Queries over the balance history: filtered pages and a constant-memory stream."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import psycopg

from projections import csv_cells

COLUMNS = ("position", "recorded_at", "account", "amount", "balance_after", "reason",
           "counterparty", "table", "hand")
SELECT = ("SELECT position, recorded_at, account, amount, balance_after, reason, counterparty,"
          " table_id, hand_id FROM balance_history")


@dataclass(frozen=True)
class Filters:
    """What to keep of an account's history."""

    account: str
    since: datetime | None = None
    until: datetime | None = None
    reason: str | None = None
    table: str | None = None
    hand: str | None = None

    def where(self, after: int | None = None) -> tuple[str, list[Any]]:
        clauses: list[str] = ["account = %s"]
        params: list[Any] = [self.account]
        for sql, value in (("recorded_at >= %s", self.since), ("recorded_at < %s", self.until),
                           ("reason = %s", self.reason), ("table_id = %s", self.table),
                           ("hand_id = %s", self.hand), ("position > %s", after)):
            if value is not None:
                clauses.append(sql)
                params.append(value)
        return " WHERE " + " AND ".join(clauses), params


def page(conn: psycopg.Connection, filters: Filters, after: int | None, limit: int
         ) -> tuple[list[dict[str, Any]], int | None]:
    """Up to `limit` rows after position `after`, and the cursor of the next page (or None)."""
    where, params = filters.where(after)
    rows = conn.execute(f"{SELECT}{where} ORDER BY position LIMIT %s", [*params, limit + 1]).fetchall()
    items = [dict(zip(COLUMNS, r, strict=True)) for r in rows[:limit]]
    return items, (items[-1]["position"] if len(rows) > limit else None)


def stream(conn: psycopg.Connection, filters: Filters, batch: int = 5000) -> Iterator[tuple[Any, ...]]:
    """Every matching row in order, through a server-side cursor: memory stays constant."""
    where, params = filters.where()
    with conn.transaction(), conn.cursor(name="balance_history_export") as cur:
        cur.itersize = batch
        cur.execute(f"{SELECT}{where} ORDER BY position", params)
        yield from cur


def count(conn: psycopg.Connection, filters: Filters) -> int:
    """How many rows match (for downsampling and progress bars)."""
    where, params = filters.where()
    row = conn.execute(f"SELECT count(*) FROM balance_history{where}", params).fetchone()
    return int(row[0]) if row else 0


# PostgreSQL formats the CSV itself (COPY), the times as ISO 8601 in UTC like `isoformat()`,
# the text escaped so that a spreadsheet runs none of it (projections.csv_cells).
CSV_SELECT = ("SELECT position,"
              " to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')"
              " AS recorded_at, " + csv_cells.sql("account", "account") + ", amount, balance_after, "
              + csv_cells.sql("reason", "reason") + ", " + csv_cells.sql("counterparty", "counterparty")
              + ", " + csv_cells.sql("table_id", '"table"') + ", " + csv_cells.sql("hand_id", "hand")
              + " FROM balance_history")


def csv_copy(conn: psycopg.Connection, filters: Filters, chunk_bytes: int = 1 << 16) -> Iterator[bytes]:
    """Every matching row as CSV with a header line, in chunks of about `chunk_bytes`.

    `COPY ... TO STDOUT` streams rows as the server produces them: memory stays constant, and
    the server's CSV formatting costs a fraction of formatting each row in Python.
    """
    where, params = filters.where()
    yield from copy_csv(conn, f"{CSV_SELECT}{where} ORDER BY position", params, chunk_bytes)


def copy_csv(conn: psycopg.Connection, select: str, params: Any,
             chunk_bytes: int = 1 << 16) -> Iterator[bytes]:
    """`select`'s rows as CSV with a header line, formatted by PostgreSQL (COPY) and handed on
    in chunks of about `chunk_bytes` as the server produces them."""
    parts: list[bytes] = []
    size = 0
    statement = f"COPY ({select}) TO STDOUT WITH (FORMAT csv, HEADER)"
    # COPY takes no server-side parameters: psycopg writes them into the statement as literals,
    # and PostgreSQL reads no UTC offset beyond 15:59 in a literal, which Python's datetimes may
    # carry (+16:00 is a 500 otherwise). The same instant in UTC reads everywhere.
    params = [p.astimezone(UTC) if isinstance(p, datetime) and p.tzinfo is not None else p
              for p in params]
    with conn.cursor() as cur, cur.copy(statement, params) as copy:
        for data in copy:
            parts.append(bytes(data))
            size += len(data)
            if size >= chunk_bytes:
                yield b"".join(parts)
                parts, size = [], 0
    yield b"".join(parts)
