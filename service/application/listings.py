"""Lists that page through a read model, newest first: tables and players.

A page's cursor is the id of the last item of the page before; ids are random, so the next page
goes on from that item's creation time (ties broken by id). A cursor that names nothing is
refused (Invalid `invalid_cursor`): the caller made it up or kept it across a purge.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from events import ledger
from service.application.errors import Invalid


def _after(conn: psycopg.Connection, sql: str, cursor: str) -> Any:
    row = conn.execute(sql, (cursor,)).fetchone()
    if row is None:
        raise Invalid("invalid_cursor", "cursor is not a next_cursor this list gave")
    return row[0]


def _page(items: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    more = len(items) > limit
    return {"items": items[:limit], "next_cursor": items[limit - 1]["id"] if more else None}


def tables(conn: psycopg.Connection, game: str | None, status: str | None, cursor: str | None,
           limit: int, player: str | None = None) -> dict[str, Any]:
    """A page of tables, of `game`, in `status` and with `player` seated when given."""
    clauses: list[str] = ["true"]
    params: list[Any] = []
    for column, value in (("game", game), ("status", status)):
        if value is not None:
            clauses.append(f"{column} = %s")
            params.append(value)
    if player is not None:
        clauses.append("seats @> %s")
        params.append(Jsonb([{"player_id": player}]))
    if cursor is not None:
        clauses.append("(created_at, table_id) < (%s, %s)")
        params += [_after(conn, "SELECT created_at FROM tables WHERE table_id = %s", cursor),
                   cursor]
    rows = conn.execute(
        f"SELECT table_id, game, status, jsonb_array_length(seats), hand_number FROM tables"
        f" WHERE {' AND '.join(clauses)} ORDER BY created_at DESC, table_id DESC LIMIT %s",
        [*params, limit + 1]).fetchall()
    return _page([{"id": r[0], "game": r[1], "status": r[2], "players": r[3], "hands": r[4]}
                  for r in rows], limit)


def players(conn: psycopg.Connection, cursor: str | None, limit: int) -> dict[str, Any]:
    """A page of players, with their wallets' balances."""
    clauses, params = "true", []
    if cursor is not None:
        after = _after(conn, "SELECT created_at FROM players WHERE player_id = %s", cursor)
        clauses, params = "(p.created_at, p.player_id) < (%s, %s)", [after, cursor]
    rows = conn.execute(
        "SELECT p.player_id, p.name, p.created_at, coalesce(b.balance, 0), p.erased_at IS NOT NULL"
        " FROM players p"
        " LEFT JOIN balances b ON b.account = %s || p.player_id"
        f" WHERE {clauses} ORDER BY p.created_at DESC, p.player_id DESC LIMIT %s",
        [ledger.wallet(""), *params, limit + 1]).fetchall()
    return _page([{"id": r[0], "name": r[1], "created_at": r[2], "balance": r[3], "erased": r[4]}
                  for r in rows], limit)
