"""The purges of records past their retention, run from every worker's sweeper.

- Expired `Idempotency-Key` records (`BANCO_IDEMPOTENCY_RETENTION_S`): the API already ignores
  one (the key counts as new); the purge only keeps the table from growing.
- The hashes of operator keys' and tokens' retired secrets (`BANCO_RETIRED_SECRETS_RETENTION_DAYS`),
  kept to name the key a refused request tried (`service.http.auth`): past that, such a request
  is logged as any unknown secret is.

Each batch is its own short transaction and skips rows another worker is deleting (SKIP LOCKED),
so several workers purge side by side, and purging twice deletes nothing more.
"""

from __future__ import annotations

import logging

import psycopg
from psycopg import sql

from workers import context

log = logging.getLogger("banco.purge")

BATCH = 1000
MAX_BATCHES = 20  # a pass's share; the rest waits for the next sweep, which comes within seconds

# Each purged table, by the column that dates its rows (indexed).
DATED = {"idempotency_keys": "created_at", "operator_key_retired_hashes": "retired_at",
         "retired_token_hashes": "retired_at"}


def purge(conn: psycopg.Connection, table: str, retention_s: int, batch: int = BATCH,
          max_batches: int = MAX_BATCHES) -> int:
    """Delete `table`'s rows older than `retention_s`, `batch` rows per transaction; the number
    deleted."""
    statement = sql.SQL(
        "DELETE FROM {table} WHERE ctid IN ("
        " SELECT ctid FROM {table} WHERE {dated} <= now() - make_interval(secs => %s)"
        " ORDER BY {dated} LIMIT %s FOR UPDATE SKIP LOCKED)").format(
        table=sql.Identifier(table), dated=sql.Identifier(DATED[table]))
    deleted = 0
    for _ in range(max_batches):
        with conn.transaction():
            n = conn.execute(statement, (retention_s, batch)).rowcount
        deleted += n
        if n < batch:
            break
    return deleted


def purge_logged() -> None:
    """One pass of every purge, whose failure is logged, not raised: the next sweep retries."""
    settings = context.config()
    retention = {"idempotency_keys": settings.idempotency_retention_s,
                 "operator_key_retired_hashes": settings.retired_secrets_retention_s,
                 "retired_token_hashes": settings.retired_secrets_retention_s}
    try:
        with context.pool().connection() as conn:
            for table, retention_s in retention.items():
                if purged := purge(conn, table, retention_s):
                    log.info("purged %d rows of %s past their retention", purged, table)
    except Exception:  # a worker must not die of it (PostgreSQL restarting, say)
        log.exception("purge failed")
