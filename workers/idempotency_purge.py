"""The purge of expired `Idempotency-Key` records, run from every worker's sweeper.

A record past `BANCO_IDEMPOTENCY_RETENTION_S` is already ignored by the API (the key counts as
new); this only keeps the table from growing. Each batch is its own short transaction and skips
rows another worker is deleting (SKIP LOCKED), so several workers purge side by side, and
purging twice deletes nothing more.
"""

from __future__ import annotations

import logging

import psycopg

from workers import context

log = logging.getLogger("banco.purge")

BATCH = 1000
MAX_BATCHES = 20  # a pass's share; the rest waits for the next sweep, which comes within seconds


def purge_expired(conn: psycopg.Connection, retention_s: int, batch: int = BATCH,
                  max_batches: int = MAX_BATCHES) -> int:
    """Delete records older than `retention_s`, `batch` rows per transaction; the number deleted."""
    deleted = 0
    for _ in range(max_batches):
        with conn.transaction():
            n = conn.execute(
                "DELETE FROM idempotency_keys k USING ("
                "  SELECT principal, key FROM idempotency_keys"
                "  WHERE created_at <= now() - make_interval(secs => %s)"
                "  ORDER BY created_at LIMIT %s FOR UPDATE SKIP LOCKED) old"
                " WHERE k.principal = old.principal AND k.key = old.key",
                (retention_s, batch)).rowcount
        deleted += n
        if n < batch:
            break
    return deleted


def purge_logged() -> None:
    """One purge whose failure is logged, not raised: the next sweep retries."""
    try:
        with context.pool().connection() as conn:
            purged = purge_expired(conn, context.config().idempotency_retention_s)
        if purged:
            log.info("purged %d expired idempotency records", purged)
    except Exception:  # a worker must not die of it (PostgreSQL restarting, say)
        log.exception("idempotency purge failed")
