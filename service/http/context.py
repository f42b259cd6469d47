"""What every event written during a request records about it."""

from __future__ import annotations

from typing import Any

from flask import current_app, g, request

from events.postgres import PostgresEventStore
from service.application.bus import Bus
from service.http import db
from service.http.auth import principal

# The header that names a retried request as the same one (`service.http.idempotency`).
IDEMPOTENCY_KEY = "Idempotency-Key"


def metadata(command: str, **extra: Any) -> dict[str, Any]:
    """Actor and the key it acted with (its id, never the secret), request id, correlation and
    idempotency key, and the command that produced it."""
    who = principal()
    return {
        "actor": who.key,
        "key_id": who.key_id,
        "request_id": g.get("request_id"),
        "correlation_id": request.headers.get("X-Correlation-ID") or g.get("request_id"),
        # What caused these events: the request that carried the command.
        "causation_id": g.get("request_id"),
        "idempotency_key": request.headers.get(IDEMPOTENCY_KEY),
        "command": command,
        **extra,
    }


def store() -> PostgresEventStore:
    return current_app.extensions["banco.store"]


def handle(command: Any, name: str | None = None) -> Any:
    """Hand `command` to the process's bus (`service.application.bus`) in the request's unit of
    work, its events recording the request (`metadata`) under the command's name, or `name`."""
    bus: Bus = current_app.extensions["banco.bus"]
    return bus.handle(command, db.uow(), metadata(name or type(command).__name__))
