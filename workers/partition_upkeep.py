"""The event log's next partition, attached ahead of need from every worker's sweeper.

A partition is attached while a whole partition's worth of positions is still free in the last
one (events/partitions.py), so at a sweep every few seconds the appends never reach the DEFAULT
partition unless every worker is down for a million events. Several workers may run it at once:
ATTACH takes a lock they queue on, and the second finds the room already made.
"""

from __future__ import annotations

import logging

from events import partitions
from workers import context

log = logging.getLogger("banco.partitions")


def upkeep_logged() -> None:
    """One pass whose failure is logged, not raised: the next sweep retries."""
    try:
        with context.pool().connection() as conn:
            attached = partitions.ensure(conn)
        if attached:
            log.info("event log partitions attached: %s", ", ".join(attached))
    except Exception:  # a worker must not die of it (PostgreSQL restarting, say)
        log.exception("event log partition upkeep failed")
