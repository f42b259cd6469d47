"""Streamed answers (CSV, NDJSON) read from the exports' own pool, for as long as the client reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import psycopg
from flask import Response, current_app
from psycopg_pool import ConnectionPool

from service.http import db
from service.http.problems import retry_later
from service.runtime.slots import Slots, once


def streamed(produce: Callable[[psycopg.Connection], Iterator[bytes]], mime: str,
             replica: bool = False) -> Response:
    """`produce(conn)` streamed as the body, from a connection of the exports' own pool (with
    `replica`, the replica's when it may serve the caller: `db.reading_from`): a client that
    reads slowly holds one of those, never a connection the API's other requests need. It is
    taken before the response starts, so that with every one in use the answer is a 503 now
    rather than an error halfway through a 200."""
    pool: ConnectionPool = current_app.extensions["banco.export_pool"]
    slots: Slots = current_app.extensions["banco.export_slots"]
    slot = slots.take()
    if slot is None:
        return retry_later("exports_busy",
                           "as many exports as the service runs at once are being read")
    try:  # PostgreSQL away: the app's 503
        if replica:
            conn, put_back = db.reading_from(pool, "exports")
        else:
            conn = pool.getconn()
            put_back = lambda: pool.putconn(conn)  # noqa: E731
    except BaseException:
        slot()
        raise
    # Reset (or dropped) if an export stopped midway; given back once, by whichever comes first.
    give_back = once(put_back, slot)

    def body() -> Iterator[bytes]:
        try:
            yield from produce(conn)
        finally:
            give_back()

    response = Response(body(), mimetype=mime)
    # Also when the response is closed before its body was read to the end, or at all.
    response.call_on_close(give_back)
    return response
