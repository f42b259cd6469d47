"""The request's database connection; every write request runs in one transaction.

A POST is one unit of work: the connection is taken from the pool before the view runs, a
transaction is opened, and it commits only when the response is a success. Anything the view
wrote, its idempotency record included, is then committed together or not at all. The BEGIN is
sent with the request's first statement (usually the token's lookup), not in a round trip of its
own: an action's budget is three (`tests/service/test_hot_path_budget.py`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import psycopg
from flask import Flask, Response, current_app, g, request
from psycopg_pool import ConnectionPool

from service.http.problems import retry_later

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def pool() -> ConnectionPool:
    return current_app.extensions["banco.pool"]


def conn() -> psycopg.Connection:
    """The request's connection, taken from the pool on first use (a write's transaction begun)."""
    c = _taken()
    if g.pop("db_begin", False):
        c.execute("BEGIN")
    return c


@contextlib.contextmanager
def pipelined() -> Iterator[psycopg.Connection]:
    """The request's connection in pipeline mode: the statements sent in the block (a write's
    BEGIN first, if not sent yet) cost one round trip, at its end. Their results are read after
    the block; a fetch inside it would wait for the server there and then."""
    c = _taken()
    with c.pipeline():
        if g.pop("db_begin", False):
            c.execute("BEGIN")
        yield c


def _taken() -> psycopg.Connection:
    if "db_conn" not in g:
        g.db_conn = pool().getconn()
        # Sent with the request's first statement rather than in a round trip of its own.
        g.db_begin = request.method in WRITE_METHODS
    return g.db_conn


def unavailable() -> Response:
    """503 problem+json: the database went away during the request. It wrote nothing, except
    when the connection dropped as its COMMIT landed (see `_finish`): a retry with the same
    Idempotency-Key settles which."""
    return retry_later("unavailable", "the database is unavailable", retry_after_s=1)


def after_commit(fn: Callable[[], None]) -> None:
    """Run `fn` once the request's transaction has committed (never if it rolls back)."""
    g.setdefault("after_commit", []).append(fn)


def with_commit(sql: str, params: Sequence[Any]) -> None:
    """Send the statement with the request's COMMIT, in its round trip: a write whose answer the
    request does not read (the idempotency record's response). Sent only if the request commits,
    and committed with it or not at all."""
    g.setdefault("with_commit", []).append((sql, params))


def _commit(c: psycopg.Connection) -> None:
    pending = g.pop("with_commit", [])
    if not pending:
        c.execute("COMMIT")
        return
    with c.pipeline():
        for sql, params in pending:
            c.execute(sql, params, prepare=False)  # see `projections.tables.save_later`
        c.execute("COMMIT", prepare=False)


def _finish(response: Response) -> Response:
    c = g.get("db_conn")
    if c is None or c.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        return response
    if response.status_code >= 400:
        with contextlib.suppress(psycopg.OperationalError):  # a lost connection rolled back
            c.execute("ROLLBACK")
        return response
    try:
        _commit(c)
    except psycopg.OperationalError:
        # The connection died before the commit was confirmed: the client must not be told
        # it succeeded. (It did not commit, or a retry with its Idempotency-Key replays it.)
        return unavailable()
    for fn in g.pop("after_commit", []):
        fn()
    return response


def release() -> None:
    """Give the request's connection back to the pool now, before a long wait: a waiting client
    must not hold one of the few connections every other request needs. Reads only: a write's
    transaction stays open to the request's end. A later `conn()` takes a connection again."""
    if request.method in WRITE_METHODS:
        raise RuntimeError("a write request keeps its connection to the end")
    _release(None)


def _release(_: BaseException | None) -> None:
    c = g.pop("db_conn", None)
    if c is None:
        return
    if c.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        with contextlib.suppress(psycopg.OperationalError):  # the pool discards a broken one
            c.rollback()  # the view failed before its response was made
    pool().putconn(c)


def init_app(app: Flask, db_pool: ConnectionPool) -> None:
    app.extensions["banco.pool"] = db_pool
    app.after_request(_finish)
    app.teardown_request(_release)
