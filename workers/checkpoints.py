"""The checkpoint job: a digest of the event log, recorded in `audit_checkpoints`.

Meant to run periodically from the worker's scheduler; each run is independent (a second run
records a second digest of a longer log), so a retried job does no harm.
"""

from __future__ import annotations

from typing import Any

import psycopg

from events.postgres import configure_connection
from service.runtime import config
from service.verification import checkpoints, timestamps
from workers import context


def record_checkpoint(database_url: str | None = None) -> dict[str, Any]:
    """Record a digest of the whole log up to now (on `database_url`, else the worker's
    database); returns it (recorded_at as ISO text)."""
    # `banco checkpoint` names its database and reads the authority from its environment.
    tsa = config.tsa_url() if database_url else context.config().tsa_url
    url = database_url or context.config().database_url
    with psycopg.connect(url, autocommit=True) as conn:
        configure_connection(conn)
        found = checkpoints.record(conn)
        if tsa:
            # Outside Banco, so that a root can be shown to have existed then by someone who
            # kept nothing: a stamp that fails leaves the checkpoint recorded, unstamped.
            timestamps.stamp(conn, found, tsa)
    return {**found, "recorded_at": found["recorded_at"].isoformat()}
