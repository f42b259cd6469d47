"""The checkpoint job: a digest of the event log, recorded in `audit_checkpoints`.

Meant to run periodically from the worker's scheduler; each run is independent (a second run
records a second digest of a longer log), so a retried job does no harm.
"""

from __future__ import annotations

from typing import Any

import psycopg

from events.postgres import configure_connection
from service.verification import checkpoints
from workers import context


def record_checkpoint(database_url: str | None = None) -> dict[str, Any]:
    """Record a digest of the whole log up to now (on `database_url`, else the worker's
    database); returns it (recorded_at as ISO text)."""
    url = database_url or context.config().database_url
    with psycopg.connect(url, autocommit=True) as conn:
        configure_connection(conn)
        found = checkpoints.record(conn)
    return {**found, "recorded_at": found["recorded_at"].isoformat()}
