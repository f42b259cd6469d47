"""Auditor commands: register an auditor, who reads everything and changes nothing.

Each command is data; its handler runs it on the caller's unit of work, appending to the
auditor's stream (`auditor-<id>`), and returns what the caller renders. His token's changes
are the token commands' (`service.application.tokens`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import psycopg

from events.model import NewEvent
from service.application import tokens
from service.application.errors import NotFound
from service.application.unit_of_work import UnitOfWork


def stream(auditor_id: str) -> str:
    """His stream: registration and token changes."""
    return tokens.stream("auditor", auditor_id)


def new_auditor_id() -> str:
    return "au_" + secrets.token_hex(8)


@dataclass(frozen=True)
class RegisterAuditor:
    name: str
    # Drawn where the command is made, so that a caller knows the id before it runs.
    auditor_id: str = field(default_factory=new_auditor_id)


def find(conn: psycopg.Connection, auditor_id: str) -> dict[str, Any] | None:
    """The auditor as the API shows him, or None."""
    row = conn.execute("SELECT auditor_id, name, created_at FROM auditors WHERE auditor_id = %s",
                       (auditor_id,)).fetchone()
    if row is None:
        return None
    return {"id": row[0], "name": row[1], "created_at": row[2]}


def load(conn: psycopg.Connection, auditor_id: str) -> dict[str, Any]:
    """The auditor (NotFound when there is none)."""
    auditor = find(conn, auditor_id)
    if auditor is None:
        raise NotFound("auditor_not_found", f"no auditor {auditor_id}")
    return auditor


def register(uow: UnitOfWork, command: RegisterAuditor,
             metadata: dict[str, Any]) -> dict[str, Any]:
    """Register the auditor and issue his first token; the token issued (shown once).

    A second registration under one id is refused by the append (its stream must be new)."""
    auditor_id = command.auditor_id
    event = NewEvent("AuditorRegistered", {"auditor_id": auditor_id, "name": command.name},
                     metadata)
    issued, token_event = tokens.issue(uow, "auditor", auditor_id, metadata)
    uow.append(stream(auditor_id), [event, token_event], 0)
    [registered, _] = uow.flush()
    uow.credentials.add_auditor(auditor_id, command.name, registered.recorded_at)
    return issued
