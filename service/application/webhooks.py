"""The log as webhooks send it: events after a cursor, in the global order, as the operator sees them.

Webhooks leave Banco for any URL the operator names, so each event goes through the engines'
redaction as a spectator sees it: no hidden card, and no seed a hand has not revealed to all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from events.model import Checkpoint, StoredEvent
from events.postgres import PostgresEventStore
from service.application.principal import OPERATOR
from service.application.redaction import Redactor


@dataclass(frozen=True)
class Outgoing:
    """One event of the log as a webhook sends it, and where it stands in the log."""

    at: Checkpoint
    type: str
    body: dict[str, Any]


def matches(patterns: Sequence[str], type_: str) -> bool:
    """Whether an event of `type_` is one the patterns ask for (`*` ends a prefix)."""
    return any(type_ == p or (p.endswith("*") and type_.startswith(p[:-1])) for p in patterns)


def read(conn: psycopg.Connection, store: PostgresEventStore, after: Checkpoint,
         limit: int) -> tuple[list[StoredEvent], Redactor]:
    """The next `limit` events after `after` below the store's watermark (an event can still
    appear above it, never below), with the redactor that shows them as the operator sees them."""
    return store.read_all(after, limit, conn=conn), Redactor(conn, OPERATOR)


def outgoing(stored: StoredEvent, redactor: Redactor) -> Outgoing:
    """A Standard Webhooks payload (`type`, `timestamp`, `data`) for one event, redacted."""
    # `data` is the event as the log's feed shows it (`Redactor.logged`): one shape for both.
    body = {"type": stored.type, "timestamp": stored.recorded_at.isoformat(),
            "data": redactor.logged(stored)}
    return Outgoing(Checkpoint(stored.txid, stored.position), stored.type, body)
