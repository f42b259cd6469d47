"""Lists that page through a read model, newest first: tables and players.

A page's cursor is the id of the last item of the page before; ids are random, so the next page
goes on from that item's creation time (ties broken by id). A cursor that names nothing is
refused (Invalid `invalid_cursor`): the caller made it up or kept it across a purge.

A filtered list's cursor also carries a digest of its filters (`<id>.<digest>`), and is refused
under others: `?status=over&cursor=<a cursor of ?status=open>` would page on from an open table
through the tables that are over, a list no page gave, as if it were the rest of one. The
unfiltered list's cursor is the bare id, so that one a client already holds goes on working.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
import psycopg
from psycopg.types.json import Jsonb

from events import ledger
from service.application.errors import Invalid


def _after(conn: psycopg.Connection, sql: str, cursor: str) -> Any:
    row = conn.execute(sql, (cursor,)).fetchone()
    if row is None:
        raise Invalid("invalid_cursor", "cursor is not a next_cursor this list gave")
    return row[0]


def _page(items: list[dict[str, Any]], limit: int, filters: str = "") -> dict[str, Any]:
    more = len(items) > limit
    last = items[limit - 1]["id"] if more else None
    return {"items": items[:limit],
            "next_cursor": last if last is None or not filters else f"{last}.{filters}"}


def _filters(*values: str | None) -> str:
    """A short digest of a list's filters, "" when none is given: it tells one list's cursors
    from another's, and is no secret (a forged one pages a list as a plain id did)."""
    if all(value is None for value in values):
        return ""
    return hashlib.sha256(orjson.dumps(values)).hexdigest()[:8]


def _position(cursor: str, filters: str) -> str:
    """The id `cursor` goes on after, refused unless it was given under `filters`."""
    item, _, given = cursor.partition(".")
    if given != filters:
        raise Invalid("invalid_cursor", "cursor is not a next_cursor this list gave: a cursor"
                      " goes on only under the filters of the list that gave it")
    return item


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
    filters = _filters(game, status, player)
    if cursor is not None:
        after = _position(cursor, filters)
        clauses.append("(created_at, table_id) < (%s, %s)")
        params += [_after(conn, "SELECT created_at FROM tables WHERE table_id = %s", after),
                   after]
    rows = conn.execute(
        f"SELECT table_id, game, status, jsonb_array_length(seats), hand_number FROM tables"
        f" WHERE {' AND '.join(clauses)} ORDER BY created_at DESC, table_id DESC LIMIT %s",
        [*params, limit + 1]).fetchall()
    return _page([{"id": r[0], "game": r[1], "status": r[2], "players": r[3], "hands": r[4]}
                  for r in rows], limit, filters)


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
