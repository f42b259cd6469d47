"""Balances per account and a history row per posting per account."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from events.catalog import TYPES
from events.model import NewEvent, StoredEvent
from events.postgres import older_events
from events.types import EventTypes

# Apply a batch of legs (one per posting side): bump each balance by its total, then write the
# history rows with running balances that start from the balance before the batch. This is the
# part after the legs, which APPLY and APPLY_APPENDED read from different places.
_TOTALS = """
), totals AS (
    SELECT account, sum(amount) AS total, max(position) AS last FROM legs GROUP BY account
), bumped AS (
    -- The rows exist: `banco_hold` (events/ledger.py) created and locked them before the append.
    UPDATE balances b SET balance = b.balance + t.total, last_position = t.last
    FROM totals t WHERE b.account = t.account
    RETURNING b.account, b.balance
)
INSERT INTO balance_history
    (position, account, recorded_at, amount, balance_after, reason, counterparty, table_id, hand_id)
SELECT l.position, l.account, l.recorded_at, l.amount,
       k.balance - t.total + sum(l.amount) OVER (PARTITION BY l.account ORDER BY l.position),
       l.reason, l.counterparty, l.table_id, l.hand_id
FROM legs l JOIN bumped k USING (account) JOIN totals t USING (account)
"""
APPLY = """
WITH legs AS (
    SELECT * FROM unnest(%s::bigint[], %s::text[], %s::timestamptz[], %s::bigint[], %s::text[],
                         %s::text[], %s::text[], %s::text[])
        AS l(position, account, recorded_at, amount, reason, counterparty, table_id, hand_id)""" + _TOTALS
# The same, for postings sent in the round trip that appends them, before their positions are
# known: each leg names its event by the stream's version, and takes the position and time the
# append gave it from the event's row, looked up by its key (OFFSET 0 keeps the lookup apart,
# one per leg): joined, the plan chosen while the log is small (and never analyzed) hashed every
# event of the table's stream at every settlement.
APPLY_APPENDED = """
WITH legs AS (
    SELECT e.position, l.account, e.recorded_at, l.amount, l.reason, l.counterparty, l.table_id,
           l.hand_id
    FROM unnest(%s::integer[], %s::text[], %s::bigint[], %s::text[], %s::text[], %s::text[],
                %s::text[]) AS l(version, account, amount, reason, counterparty, table_id, hand_id)
    CROSS JOIN LATERAL (
        SELECT position, recorded_at FROM events WHERE stream_id = %s AND version = l.version
        OFFSET 0) AS e""" + _TOTALS

# The log's postings: those of the current schema version read in SQL, the older ones upcast
# by the store's reader into `older_postings` (usually empty). Each posting's payload is read
# once per leg by a plain scan (two scans, appended) rather than a lateral join that runs per
# row, NOT MATERIALIZED: a CTE named twice is otherwise written to a tuplestore first and read
# back twice, which came out no faster than reading the payloads twice (bench/README.md). The
# legs are sorted for the running balance by the account's bytes (COLLATE "C"): the column's
# collation compares through the C library's strcoll, without abbreviated keys, at several times
# the cost, and the partitions (equal accounts) and the order within each (by position) are the
# same either way. Every (account, position) is unique, so a ROWS frame sums exactly what the
# default RANGE frame would, without looking for peers; the sum is `banco_running_sum`
# (migration 016), bigint all the way, where `sum` would build a numeric for every leg.
OLDER = "CREATE TEMPORARY TABLE older_postings (position bigint, recorded_at timestamptz, data jsonb)"
HISTORY_COLUMNS = ("(position, account, recorded_at, amount, balance_after, reason, counterparty,"
                   " table_id, hand_id)")
# Every leg with its running balance; {where} keeps some accounts only (a partition's, for
# projections/history_rebuild.py), and the planner pushes it down into both scans.
REPLAY = """
WITH postings AS NOT MATERIALIZED (
    SELECT position, recorded_at, data->>'from' AS payer, data->>'to' AS payee,
           (data->>'amount')::bigint AS amount, data->>'reason' AS reason,
           data->>'table' AS table_id, data->>'hand' AS hand_id
    FROM (
        SELECT position, recorded_at, data FROM events
        WHERE type = 'TreasurePosted' AND schema_version = {version}
        UNION ALL SELECT position, recorded_at, data FROM older_postings
    ) AS e
)
SELECT position, account, recorded_at, amount,
       banco_running_sum(amount) OVER (PARTITION BY account COLLATE "C" ORDER BY position
                                       ROWS UNBOUNDED PRECEDING),
       reason, counterparty, table_id, hand_id
FROM (
    SELECT position, recorded_at, payer AS account, -amount AS amount, reason,
           payee AS counterparty, table_id, hand_id FROM postings
    UNION ALL
    SELECT position, recorded_at, payee, amount, reason, payer, table_id, hand_id FROM postings
) AS legs{where}
"""
REBUILD = "INSERT INTO balance_history " + HISTORY_COLUMNS + REPLAY + """;
INSERT INTO balances (account, balance, last_position)
SELECT account, sum(amount), max(position) FROM balance_history GROUP BY account;
"""


def apply(conn: psycopg.Connection, events: Sequence[StoredEvent]) -> None:
    """Project the `TreasurePosted` events among `events`."""
    cols: list[list[object]] = [[] for _ in range(8)]
    for e in events:
        if e.type != "TreasurePosted":
            continue
        d = e.data
        legs = ((d["from"], -d["amount"], d["to"]), (d["to"], d["amount"], d["from"]))
        for account, amount, other in legs:
            row = (e.position, account, e.recorded_at, amount, d["reason"], other,
                   d.get("table"), d.get("hand"))
            for col, value in zip(cols, row, strict=True):
                col.append(value)
    if cols[0]:
        conn.execute(APPLY, cols)


def apply_appended(conn: psycopg.Connection, stream_id: str,
                   events: Sequence[tuple[int, NewEvent]], prepare: bool | None = None) -> None:
    """Project the `TreasurePosted` events among `events`, each given with the version it is
    appended at to `stream_id` earlier in the caller's transaction (or its pipeline: `prepare`
    as for `projections.tables.save_later`)."""
    cols: list[list[object]] = [[] for _ in range(7)]
    for version, e in events:
        if e.type != "TreasurePosted":
            continue
        d = e.data
        legs = ((d["from"], -d["amount"], d["to"]), (d["to"], d["amount"], d["from"]))
        for account, amount, other in legs:
            row = (version, account, amount, d["reason"], other, d.get("table"), d.get("hand"))
            for col, value in zip(cols, row, strict=True):
                col.append(value)
    if cols[0]:
        conn.execute(APPLY_APPENDED, [*cols, stream_id], prepare=prepare)


def rebuild(conn: psycopg.Connection, types: EventTypes = TYPES) -> None:
    """Empty the tables and replay every posting of the log, inside the caller's transaction.

    The caller's transaction must hold the tables' ACCESS EXCLUSIVE lock (as `rebuild_all`
    does): the history's primary key is dropped for the replay and built again after it, one
    sorted index build instead of a B-tree insertion per row, and nobody may see the table
    without it. `work_mem` is raised for this transaction only, so that the replay's sort of
    every leg by account and position stays in memory instead of spilling to disk.
    """
    conn.execute("SET LOCAL work_mem = '256MB'")
    conn.execute("SET LOCAL maintenance_work_mem = '256MB'")
    conn.execute("TRUNCATE balances, balance_history")
    conn.execute("ALTER TABLE balance_history DROP CONSTRAINT balance_history_pkey")
    load_older(conn, older_postings(conn, types))
    conn.execute(statement(conn, REBUILD, types))
    conn.execute("DROP TABLE older_postings")
    conn.execute("ALTER TABLE balance_history"
                 " ADD CONSTRAINT balance_history_pkey PRIMARY KEY (account, position)")


def older_postings(conn: psycopg.Connection, types: EventTypes = TYPES) -> list[tuple[object, ...]]:
    """The postings stored under an older schema version, upcast, as rows of `older_postings`."""
    return [(e.position, e.recorded_at, Jsonb(e.data))
            for e in older_events(conn, types, "TreasurePosted")]


def load_older(conn: psycopg.Connection, rows: Sequence[tuple[object, ...]]) -> None:
    """Create the transaction's `older_postings` (which REPLAY reads) and copy `rows` into it."""
    conn.execute(OLDER)
    if rows:
        with conn.cursor().copy("COPY older_postings FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


def statement(conn: psycopg.Connection, template: str, types: EventTypes = TYPES,
              where: sql.Composable | None = None) -> bytes:
    """`template` (REBUILD, or REPLAY inside another statement) for the current schema version."""
    return sql.SQL(template).format(version=sql.Literal(types.version("TreasurePosted")),
                                    where=where or sql.SQL("")).as_string(conn).encode()
