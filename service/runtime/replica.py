"""Reads from a streaming replica of the database, and each caller's own writes read back.

With `DATABASE_REPLICA_URL` set, the reads that may lag a little (exports, replays,
verification, balance history, a table's events pages) go to a streaming replica
(`service.http.db.reading`). Everything else stays on the primary: every write, the token
lookup (a revoked token is refused at once), the table notices (a standby refuses LISTEN) and
the streams and long polls they wake, which are told of versions the replica may not have yet.

Read-your-writes, per caller (operator, auditor or player, whatever token he uses): when a
request's transaction commits, the primary's WAL insert position, at or past the end of its
commit record, is kept in Redis as the caller's last write (only ever raised, for `RECENT_S`).
A replica read by that caller first asks the replica whether it has replayed that far, again
every `POLL_S`, for up to `BANCO_REPLICA_WAIT_MS`; then it reads from the primary instead. A
caller with no recent write reads the replica at once, as far as it has replayed. Kept in Redis,
not in the response, so that it holds across API processes and for clients that send nothing
back (the pages); with Redis away a replica read cannot know, and goes to the primary.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import psycopg
import redis
from psycopg_pool import ConnectionPool, PoolTimeout

log = logging.getLogger("banco.replica")
T = TypeVar("T")

POLL_S = 0.005  # PostgreSQL 15 has no wait for an LSN: the replay position is polled
RECENT_S = 15 * 60  # how long a caller's last write is remembered; a replica lags far less
AWAY_S = 5.0  # after the replica failed to give a connection, reads go to the primary this long
CONNECT_S = 1.0  # how long a read waits for a replica connection before it takes the primary's

# Raise the caller's last write, never lower it: two of his requests may commit in one order
# and record their positions in the other. (LSNs stay far below 2^53, exact in Lua's numbers.)
_RAISE = """
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > now then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
else
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
"""




class Replica:
    """The replica's pools, and what the callers last wrote on the primary."""

    def __init__(self, pools: dict[str, ConnectionPool], client: redis.Redis, wait_s: float,
                 namespace: str) -> None:
        self.pools = pools  # "requests", "exports": the primary's pools' twins on the replica
        # Per deployment (its queue's name, as its jobs are): Banco services sharing a Redis
        # must not take each other's write positions for their own.
        self._prefix = f"banco:wrote:{namespace}:"
        self.wait_s = wait_s
        self._raise = client.register_script(_RAISE)
        self._redis = client
        self._away_until = 0.0
        self._lock = threading.Lock()
        self.served = {"replica": 0, "primary": 0}  # reads given to each, for the tests and logs

    def wrote(self, conn: psycopg.Connection, who: str) -> None:
        """Remember, after `who`'s transaction committed on `conn` (the primary), how far the
        replica must have replayed before he reads there."""
        try:
            row = conn.execute(
                "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint").fetchone()
            assert row is not None
            self._raise(keys=[self._prefix + who], args=[row[0], RECENT_S])
        except (psycopg.OperationalError, redis.RedisError) as e:
            # Committed all the same: the answer stands. His reads go to the primary while Redis
            # is away; had the primary gone, so has what the replica could lag behind.
            log.warning("cannot record a write for read-your-writes (%s)", type(e).__name__)

    def take(self, kind: str, who: str | None) -> tuple[psycopg.Connection, Callable[[], None]] | None:
        """A connection of the replica's `kind` pool that has replayed `who`'s last write, and
        its give-back; None when the primary must serve the read."""
        if time.monotonic() < self._away_until:
            return self._count(None)
        try:
            wrote = None if who is None else self._redis.get(self._prefix + who)
        except redis.RedisError:
            return self._count(None)  # his last write is unknown: only the primary surely has it
        pool = self.pools[kind]
        try:
            conn = pool.getconn(timeout=CONNECT_S)
        except (PoolTimeout, psycopg.OperationalError) as e:
            self._away(e)
            return self._count(None)
        try:
            # Asked even of a caller with no recent write: a connection the replica dropped (it
            # restarted, or went) fails here, and the read goes to the primary, not to a 503.
            ready = self._replayed(conn, 0 if wrote is None else int(wrote))
        except psycopg.OperationalError as e:
            pool.putconn(conn)  # the pool discards a broken one
            self._away(e)
            return self._count(None)
        if not ready:
            pool.putconn(conn)
            return self._count(None)
        return self._count((conn, lambda: pool.putconn(conn)))

    def _away(self, e: Exception) -> None:
        log.warning("replica unavailable (%s); reading from the primary for %ss",
                    type(e).__name__, AWAY_S)
        self._away_until = time.monotonic() + AWAY_S

    def _replayed(self, conn: psycopg.Connection, lsn: int) -> bool:
        deadline = time.monotonic() + self.wait_s
        while True:
            # NULL, never true, on a server that is not a standby.
            row = conn.execute("SELECT pg_last_wal_replay_lsn() - '0/0'::pg_lsn >= %s",
                               (lsn,)).fetchone()
            if row is not None and row[0]:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_S)

    def _count(self, taken: T) -> T:
        with self._lock:
            self.served["primary" if taken is None else "replica"] += 1
        return taken

    def close(self) -> None:
        for pool in self.pools.values():
            pool.close()
