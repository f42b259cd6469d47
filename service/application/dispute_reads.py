"""Disputes as lists: newest first, by hand, by player, by status, read from the log itself (a
dispute is its stream, `service.application.disputes`), a page at a time."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import psycopg

from events.catalog import TYPES
from events.model import StoredEvent
from events.postgres import COLUMNS, stored_event
from service.application.disputes import fold
from service.application.principal import Principal

CLOSING = ("DisputeResolved", "DisputeRejected")


def listed(conn: psycopg.Connection, *, hand_id: str | None = None,
           player_id: str | None = None, status: str | None = None,
           before: int | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """Up to `limit` disputes, newest first, opened before log position `before` when given,
    each with its `position` (the cursor of the next page)."""
    where: list[str] = ["o.type = 'DisputeOpened'"]
    args: list[Any] = []
    if hand_id is not None:
        where.append("o.data->>'hand_id' = %s")
        args.append(hand_id)
    if player_id is not None:
        where.append("o.data->'players' ? %s")
        args.append(player_id)
    if before is not None:
        where.append("o.position < %s")
        args.append(before)
    closed = "EXISTS (SELECT 1 FROM events c WHERE c.stream_id = o.stream_id AND c.type = ANY(%s))"
    if status == "open":
        where.append(f"NOT {closed}")
        args.append(list(CLOSING))
    elif status is not None:
        where.append(closed)
        args.append(["DisputeResolved" if status == "resolved" else "DisputeRejected"])
    opened = conn.execute(
        f"SELECT o.stream_id, o.position FROM events o WHERE {' AND '.join(where)}"
        " ORDER BY o.position DESC LIMIT %s", (*args, limit)).fetchall()
    streams = [str(s) for s, _ in opened]
    rows = conn.execute(f"SELECT {COLUMNS} FROM events WHERE stream_id = ANY(%s)"
                        " ORDER BY stream_id, version", (streams,)).fetchall()
    by_stream: dict[str, list[StoredEvent]] = defaultdict(list)
    for row in rows:
        event = stored_event(row, TYPES)
        by_stream[event.stream_id].append(event)
    out = []
    for stream_id, position in opened:
        dispute = fold(by_stream[str(stream_id)])
        if dispute is not None:
            out.append({**dispute, "position": int(position)})
    return out


def of_hand(conn: psycopg.Connection, hand_id: str, who: Principal) -> list[dict[str, Any]]:
    """The hand's disputes that `who` may read, as `GET /v1/disputes` lists them (a player's:
    those of his hands; none for a key without `disputes:read`), oldest first, with their
    corrections, as the hand shows them."""
    if not who.may("disputes:read"):
        return []
    found = listed(conn, hand_id=hand_id, limit=1000,
                   player_id=who.subject if who.role == "player" else None)
    return [{k: d[k] for k in ("id", "status", "opened_at", "closed_at", "corrections")}
            for d in reversed(found)]
