"""A copy of the event log in a database of its own, and ways to tamper with it there."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.json import Jsonb

from events.postgres import configure_connection
from projections import migrate
from service.verification.chain_check import link
from service.verification.hand_log import read_stream

COPIED = {"events": "position, stream_id, version, type, schema_version, data, metadata,"
                    " recorded_at, txid, hash",
          "streams": "stream_id, version, head"}


@contextmanager
def log_copy(source_url: str) -> Iterator[psycopg.Connection]:
    """A fresh database holding a copy of `source_url`'s events and stream heads."""
    name = f"banco_tamper_{secrets.token_hex(4)}"
    admin = make_conninfo(source_url, dbname=conninfo_to_dict(source_url).get("dbname", "postgres"))
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(source_url, dbname=name)
    try:
        with psycopg.connect(url, autocommit=True) as conn, psycopg.connect(source_url) as src:
            migrate.upgrade(conn)
            for table, columns in COPIED.items():
                # A query, not the table: a partitioned table has no rows of its own to COPY.
                with src.cursor().copy(f"COPY (SELECT {columns} FROM {table}) TO STDOUT") as out, \
                        conn.cursor().copy(f"COPY {table} ({columns}) FROM STDIN") as into:
                    for chunk in out:
                        into.write(chunk)
            src.rollback()
            configure_connection(conn)
            # Only this copy may be edited: the immutability trigger stays on everywhere else.
            conn.execute("ALTER TABLE events DISABLE TRIGGER events_no_update_delete")
            yield conn
    finally:
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def edit(conn: psycopg.Connection, stream: str, version: int,
         change: Callable[[dict[str, Any]], None], rehash: bool = True) -> None:
    """Change an event's data in place; with `rehash`, forge the chain after it as well."""
    row = conn.execute("SELECT data FROM events WHERE stream_id = %s AND version = %s",
                       (stream, version)).fetchone()
    assert row is not None
    data = row[0]
    change(data)
    conn.execute("UPDATE events SET data = %s WHERE stream_id = %s AND version = %s",
                 (Jsonb(data), stream, version))
    if rehash:
        forge_chain(conn, stream)


def forge_chain(conn: psycopg.Connection, stream: str) -> None:
    """Recompute every hash of the stream and its head, as a forger with write access would."""
    head = b""
    for event in read_stream(conn, stream):
        head = link(head, event)
        conn.execute("UPDATE events SET hash = %s WHERE stream_id = %s AND version = %s",
                     (head, stream, event.version))
    conn.execute("UPDATE streams SET head = %s WHERE stream_id = %s", (head, stream))
