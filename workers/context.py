"""The worker process's resources: its settings, its pool and its event store.

RQ's jobs are module-level functions taking ids (they may sit queued in Redis across a restart),
so they cannot be handed what they use: they find it here. The worker's composition root
(`workers.worker.run`) builds the resources from its `WorkerConfig` and installs them before any
job or sweep runs; a test that calls a job's function in its own process installs them too.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from psycopg_pool import ConnectionPool

from events.catalog import default_types
from events.postgres import PostgresEventStore, make_pool
from service.runtime.config import WorkerConfig

POOL = 4  # the job loop, the sweeper's thread, and room for the checkpoint's and a retry's


# Each job's and sweep's session. A table whose row another transaction holds (a node hung in
# the middle of a move) waited on for ever stalled every deadline and settlement behind it: the
# worker runs one job at a time, and every sweep began with the oldest deadline, that table's.
# Its deadline is now given up after this long and tried again at the next sweep, the others
# going first; and a transaction left idle this long is ended by PostgreSQL, its locks released.
JOB_SESSION = {"lock_timeout": "2s", "idle_in_transaction_session_timeout": "60s"}


@dataclass(frozen=True)
class Resources:
    """What the worker's jobs and sweeps use, made once per process."""

    config: WorkerConfig
    pool: ConnectionPool
    # Made once: building the type registry's schemas costs more than a short job's own work.
    store: PostgresEventStore

    @classmethod
    def open(cls, config: WorkerConfig) -> Resources:
        """The pool (opening in the background) and store for `config`."""
        pool = make_pool(config.database_url, min_size=1, max_size=POOL, settings=JOB_SESSION)
        return cls(config, pool, PostgresEventStore(pool, default_types()))

    def close(self) -> None:
        """Close the pool."""
        self.pool.close()


_installed: Resources | None = None
# Installing is rare (a worker's start, a test's fixture); the lock keeps a reader in another
# thread (the sweeper) from seeing the old resources after they were replaced and closed.
_lock = threading.Lock()


def install(resources: Resources | None) -> Resources | None:
    """Make `resources` those of this process; the ones they replace (not closed)."""
    global _installed
    with _lock:
        previous, _installed = _installed, resources
    return previous


def current() -> Resources:
    """The resources installed by this process's composition root."""
    with _lock:
        found = _installed
    if found is None:
        raise RuntimeError("no worker resources installed: `workers.worker.run` installs them")
    return found


def config() -> WorkerConfig:
    """The worker's settings."""
    return current().config


def pool() -> ConnectionPool:
    """The worker's connection pool."""
    return current().pool


def store() -> PostgresEventStore:
    """The worker's event store."""
    return current().store


@contextmanager
def installed(config: WorkerConfig) -> Iterator[Resources]:
    """Resources for `config` installed for the duration, then closed and the previous ones
    installed again."""
    resources = Resources.open(config)
    previous = install(resources)
    try:
        yield resources
    finally:
        install(previous)
        resources.close()
