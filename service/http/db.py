"""The request's unit of work; every write request runs in one transaction.

A POST is one unit of work (`service.application.unit_of_work`): its connection is taken from the
pool at its first statement, a transaction is opened with that statement (usually the token's
lookup, not in a round trip of its own: an action's budget is three,
`tests/service/test_hot_path_budget.py`), and it commits only when the response is a success.
Anything the view wrote, its idempotency record included, is then committed together or not at
all.

Views that only read what may lag a little take `reading()` instead of `conn()`: the streaming
replica's connection when one is configured and it has the caller's own writes
(`service.runtime.replica`), else the primary's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import psycopg
from flask import Flask, Response, current_app, g, request
from psycopg_pool import ConnectionPool

from service.application.postgres_unit_of_work import PostgresUnitOfWork
from service.http.problems import retry_later
from service.runtime import metrics
from service.runtime.replica import Replica

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def pool() -> ConnectionPool:
    return current_app.extensions["banco.pool"]


def _in_use(n: int) -> None:
    metrics.DB_CONNECTIONS_IN_USE.inc(n)


def uow() -> PostgresUnitOfWork:
    """The request's unit of work."""
    found = g.get("uow")
    if found is None:
        found = g.uow = PostgresUnitOfWork(pool(), current_app.extensions["banco.store"],
                                           begin=request.method in WRITE_METHODS,
                                           on_take=_in_use)
    return found


def conn() -> psycopg.Connection:
    """The request's connection, taken from the pool on first use (a write's transaction begun)."""
    return uow().connection


@contextlib.contextmanager
def pipelined() -> Iterator[psycopg.Connection]:
    """The request's connection in pipeline mode (see `PostgresUnitOfWork.pipelined`)."""
    with uow().pipelined() as c:
        yield c


def replica() -> Replica | None:
    return current_app.extensions.get("banco.replica")


def _caller() -> str | None:
    who = g.get("principal")  # set by `service.http.auth` before any view that reads runs
    return None if who is None else who.key


def reading() -> psycopg.Connection:
    """The request's connection for reads that may come from the streaming replica: its own when
    one is configured and it has replayed the caller's last write (waiting up to
    `BANCO_REPLICA_WAIT_MS`), else the primary's `conn()`. Never in a write request."""
    if "read_conn" in g:
        return g.read_conn
    taken = None
    chosen = replica()
    if chosen is not None and request.method not in WRITE_METHODS and "read_primary" not in g:
        # The primary's connection (the token lookup's) goes back first: a read waiting for the
        # replica must not hold one every other request may need.
        uow().release()
        taken = chosen.take("requests", _caller())
    if taken is None:
        # The rest of the request reads the primary too: a replica that lags would make it wait
        # again, and show it less than it has just read.
        g.read_primary = True
        g.read_conn = conn()
        return g.read_conn
    g.read_conn, g.read_give_back = taken
    return g.read_conn


def primary_instead() -> psycopg.Connection | None:
    """The primary's connection, for the rest of the request, when `reading()` gave the
    replica's; None when it already reads the primary. For a view that found on the replica
    less than its caller may have seen elsewhere (a player just registered by the operator, a
    version a stream already sent): the replica had not replayed it yet."""
    if "read_give_back" not in g:
        return None
    _give_back_read()
    g.read_primary = True
    g.read_conn = conn()
    return g.read_conn


def reading_from(primary: ConnectionPool, kind: str) -> tuple[psycopg.Connection, Callable[[], None]]:
    """A connection to hold past the view (a streamed export), from the replica's `kind` pool
    when it may serve the caller (as for `reading()`), else from `primary`; and its give-back."""
    chosen = replica()
    taken = None
    if chosen is not None and "read_primary" not in g:
        taken = chosen.take(kind, _caller())
    if taken is not None:
        return taken
    c = primary.getconn()
    return c, lambda: primary.putconn(c)


def unavailable() -> Response:
    """503 problem+json: the database went away during the request. It wrote nothing, except
    when the connection dropped as its COMMIT landed (see `_finish`): a retry with the same
    Idempotency-Key settles which."""
    return retry_later("unavailable", "the database is unavailable", retry_after_s=1)


def after_commit(fn: Callable[[], None]) -> None:
    """Run `fn` once the request's transaction has committed (never if it rolls back)."""
    uow().after_commit(fn)


def before_commit(fn: Callable[[Response], None]) -> None:
    """Run `fn` with the response once the view has answered, if the request's transaction is to
    commit (a success), just before it does: for a write that records the answer (the
    idempotency record's), sent with the COMMIT (`with_commit`)."""
    g.setdefault("before_commit", []).append(fn)


def with_commit(sql: str, params: Sequence[Any]) -> None:
    """Send the statement with the request's COMMIT, in its round trip: a write whose answer the
    request does not read (the idempotency record's response)."""
    uow().with_commit(sql, params)


def _finish(response: Response) -> Response:
    work: PostgresUnitOfWork | None = g.get("uow")
    if work is None:
        return response
    if response.status_code >= 400:
        work.rollback()
        return response
    for fn in g.pop("before_commit", []):
        fn(response)
    c, chosen, who = work.taken, replica(), _caller()
    if (c is not None and c.info.transaction_status != psycopg.pq.TransactionStatus.IDLE
            and chosen is not None and who is not None):
        # First: the caller's next read, wherever it lands, waits for this write.
        work.after_commit(lambda: chosen.wrote(c, who), first=True)
    try:
        work.commit()
    except psycopg.OperationalError:
        # The connection died before the commit was confirmed: the client must not be told
        # it succeeded. (It did not commit, or a retry with its Idempotency-Key replays it.)
        return unavailable()
    return response


def release() -> None:
    """Give the request's connection back to the pool now, before a long wait: a waiting client
    must not hold one of the few connections every other request needs. Reads only: a write's
    transaction stays open to the request's end. A later `conn()` takes a connection again."""
    if request.method in WRITE_METHODS:
        raise RuntimeError("a write request keeps its connection to the end")
    _teardown(None)


def _give_back_read() -> None:
    g.pop("read_conn", None)
    give_back = g.pop("read_give_back", None)
    if give_back is not None:
        give_back()


def _teardown(_: BaseException | None) -> None:
    _give_back_read()
    work: PostgresUnitOfWork | None = g.get("uow")
    if work is not None:
        work.rollback()  # the view failed before its response was made, or nothing to undo
        work.release()


def init_app(app: Flask, db_pool: ConnectionPool, db_replica: Replica | None = None) -> None:
    app.extensions["banco.pool"] = db_pool
    if db_replica is not None:
        app.extensions["banco.replica"] = db_replica
    metrics.DB_POOL_MAX.set(db_pool.max_size)
    app.after_request(_finish)
    app.teardown_request(_teardown)
