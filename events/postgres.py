"""The PostgreSQL event store: one round trip per stream appended, a gap-safe global read."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any
from weakref import WeakKeyDictionary

import orjson
import psycopg
from psycopg import errors
from psycopg.types.json import set_json_dumps, set_json_loads
from psycopg_pool import ConnectionPool

from events.model import (
    Append,
    Checkpoint,
    ConcurrencyConflict,
    NewEvent,
    StoredEvent,
    canonical_json,
)
from events.types import EventTypes

COLUMNS = (
    "position, stream_id, version, type, schema_version, data, metadata, recorded_at, hash,"
    " txid::text::bigint"
)


# One event at an expected version: banco_append's single-event statement (migration 004), sent
# as it is rather than through the pl/pgsql call, which cost ~60 us of the server's time per
# append. Same order of checks: the stream row is written first (row locked, version checked,
# version and head set, head = sha256(old head || text)), and the event row is inserted from what
# that write returns. A wrong version raises inside the stream row's write, through
# banco_conflict (the same error as banco_append's, so it aborts the transaction the same way),
# before the INSERT has drawn a position. Under READ COMMITTED a writer that waited on the
# winner's row lock re-reads the row the winner left and so sees the version move.
#
# The canonical text goes only into the hash; data and metadata come as their own jsonb
# parameters, so the server parses the payload once rather than parsing the whole text and
# copying two parts out of it (~40 us of an append's wall time at one writer). The new version is
# the expected one plus one, so it is not returned; the txid comes back as xid8's text, which
# int() reads: cheaper for the server than a cast to bigint. The statements go through a raw
# cursor, whose $n placeholders psycopg sends as they are instead of parsing the query for them.
_APPEND_ONE_INSERT = """
INSERT INTO events (stream_id, version, type, schema_version, data, metadata, hash)
SELECT $1::text, s.version, $4::text, $5::integer, $6::text::jsonb, $7::text::jsonb, s.head
FROM s
RETURNING position, recorded_at, hash, txid
"""
# $1 stream, $2 expected version, $3 canonical text, $4 type, $5 schema version, $6 data and
# $7 metadata (JSON texts): the parameters `_append_one` sends, in this order.
APPEND_ONE = """
WITH s AS (
    UPDATE streams
    SET version = CASE WHEN version = $2::integer THEN version + 1
                       ELSE banco_conflict($1::text, $2::integer)::integer END,
        head = sha256(head || convert_to($3::text, 'UTF8'))
    WHERE stream_id = $1::text
    RETURNING version, head
)""" + _APPEND_ONE_INSERT
APPEND_ONE_NEW = """
WITH s AS (
    INSERT INTO streams (stream_id, version, head)
    VALUES ($1::text, 1, sha256(convert_to($3::text, 'UTF8')))
    ON CONFLICT (stream_id) DO UPDATE SET version = banco_conflict($1::text, $2::integer)::integer
    RETURNING version, head
)""" + _APPEND_ONE_INSERT


# The global read: the events after a checkpoint below the snapshot's xmin, in (txid, position)
# order, which is the order of the `events_txid_position` index of every partition: one index
# scan per partition, merged, stopped at the LIMIT. Two things keep the planner on that plan.
#
# - `events.txid`, not `txid`: ORDER BY takes a bare name for the output column first, and
#   COLUMNS names its `txid::text::bigint` so; sorting by that cast, the index's order went
#   unused and every page read and sorted all of the log after it (bench/README.md).
# - The checkpoint comes in as two one-row subqueries (InitPlans), whose values the planner does
#   not look at. Given them as constants, it estimated the row comparison from its first column
#   alone, `txid > checkpoint's txid`: inside the log's last large transaction (a bulk write,
#   or any transaction with nothing committed after it) that matches nothing, so it expected a
#   row or two and chose to sort them, and each page then read and sorted every remaining event
#   of that transaction (18-125 ms a page against 0.1-0.3 ms). Unknown values are estimated as
#   a third of the log, for which the merged index scans, stopped at the LIMIT, are the cheap
#   plan; what the checkpoint really leaves after it cannot make the planner sort it.
_READ_ALL = (
    f"SELECT {COLUMNS} FROM events"
    " WHERE (txid, position) > ((SELECT %s::text::xid8), (SELECT %s::bigint))"
    " AND txid < pg_snapshot_xmin(pg_current_snapshot()){only}"
    " ORDER BY events.txid, position LIMIT %s"
)
READ_ALL = _READ_ALL.format(only="")
# The last event below the same watermark, by the same order read backwards.
HEAD = ("SELECT txid::text::bigint, position FROM events"
        " WHERE txid < pg_snapshot_xmin(pg_current_snapshot())"
        " ORDER BY events.txid DESC, position DESC LIMIT 1")
READ_ALL_OF_TYPES = _READ_ALL.format(only=" AND type = ANY(%s)")


# What else every new connection of a pool is given, by the process that knows it: its traces'
# cursors when tracing is on (service/runtime/tracing.py).
ON_CONNECT: list[Callable[[psycopg.Connection], object]] = []


def configure_connection(conn: psycopg.Connection) -> None:
    """Per-connection setup: orjson for jsonb both ways."""
    set_json_loads(orjson.loads, conn)
    set_json_dumps(lambda obj: orjson.dumps(obj).decode(), conn)
    for hook in ON_CONNECT:
        hook(conn)


def make_pool(url: str, min_size: int = 1, max_size: int = 10, open: bool = True,
              settings: Mapping[str, str] | None = None, **kwargs: Any) -> ConnectionPool:
    """An autocommit connection pool; transactions are opened explicitly where needed. Each of
    its sessions takes `settings` (PostgreSQL's: `lock_timeout`, say) as it connects: set by
    statement, not by the URL's `options`, which a DATABASE_URL may hold for its own."""

    def configure(conn: psycopg.Connection) -> None:
        configure_connection(conn)
        for name, value in (settings or {}).items():
            conn.execute("SELECT set_config(%s, %s, false)", (name, value))

    return ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"autocommit": True},
        configure=configure,
        open=open,
        **kwargs,
    )


def lost_race(e: psycopg.Error) -> bool:
    """Whether `e` is a lost race, the one error the store turns into its own: BC409 is raised
    by banco_append and banco_conflict, after the stream's row (locked) showed another version;
    a unique violation is two first appends of one stream meeting on the row's key."""
    return isinstance(e, errors.UniqueViolation) or e.sqlstate == "BC409"


def stored_event(row: tuple[Any, ...], types: EventTypes | None) -> StoredEvent:
    """A `StoredEvent` from a row selected with `COLUMNS`, upcast by `types` to its type's
    current schema version: every read of the events table goes through here, so that no reader
    sees an old payload's shape (events/types.py says how a payload change is released). With
    no `types`, the event exactly as stored: for digests of the stored bytes alone."""
    # Positional: every event of every global read comes through here, and keywords cost a
    # microsecond more an event (a tenth of a feed's event).
    position, stream_id, version, type_, schema_version, data, metadata, recorded_at, hash_, txid = row
    event = StoredEvent(position, stream_id, version, type_, schema_version, data, metadata,
                        recorded_at, bytes(hash_), txid)
    return event if types is None else types.upcast(event)


def older_events(conn: psycopg.Connection, types: EventTypes, type_: str) -> list[StoredEvent]:
    """The events of `type_` stored under an older schema version than the current one, upcast,
    in log order: what a query that reads the payload's keys in SQL (and so only the current
    version's rows) must add."""
    rows = conn.execute(f"SELECT {COLUMNS} FROM events WHERE type = %s AND schema_version < %s"
                        " ORDER BY position", (type_, types.version(type_))).fetchall()
    return [stored_event(r, types) for r in rows]


class PostgresEventStore:
    """Events in the `events` table; every method also runs inside a caller's connection."""

    def __init__(self, pool: ConnectionPool, types: EventTypes) -> None:
        self.pool = pool
        self.types = types
        # Cursors kept per connection for appends: making one per statement costs ~25 us of
        # client CPU, a sixth of a single-event append. A connection serves one thread at a
        # time, and so do its cursors; the entries go with the connection.
        self._cursors: WeakKeyDictionary[psycopg.Connection, psycopg.Cursor] = WeakKeyDictionary()
        self._raw: WeakKeyDictionary[psycopg.Connection, psycopg.RawCursor] = WeakKeyDictionary()

    def _cursor(self, conn: psycopg.Connection) -> psycopg.Cursor:
        cursor = self._cursors.get(conn)
        if cursor is None or cursor.closed:
            cursor = self._cursors[conn] = conn.cursor()
        return cursor

    def _raw_cursor(self, conn: psycopg.Connection) -> psycopg.RawCursor:
        cursor = self._raw.get(conn)
        if cursor is None or cursor.closed:
            cursor = self._raw[conn] = psycopg.RawCursor(conn)
        return cursor

    @contextmanager
    def _conn(self, conn: psycopg.Connection | None) -> Iterator[psycopg.Connection]:
        if conn is not None:
            yield conn
        else:
            with self.pool.connection() as c:
                yield c

    def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        expected_version: int | None,
        conn: psycopg.Connection | None = None,
    ) -> list[StoredEvent]:
        return self.append_many([Append(stream_id, tuple(events), expected_version)], conn)

    def append_many(
        self, appends: Sequence[Append], conn: psycopg.Connection | None = None
    ) -> list[StoredEvent]:
        # Validate everything first: an invalid payload must not leave a half-written batch.
        for batch in appends:
            for event in batch.events:
                self.types.validate(event)
        with self._conn(conn) as c:
            if len(appends) == 1 or c.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                return self._append_all(c, appends)
            with c.transaction():
                return self._append_all(c, appends)

    def send(self, conn: psycopg.Connection, stream_id: str, events: Sequence[NewEvent],
             expected_version: int | None, prepare: bool | None = None,
             own_cursor: bool = False) -> psycopg.Cursor[Any]:
        """Send the append's statement without reading its answer: for a caller's pipeline,
        whose other statements go in the same round trip. `sent` reads it (after the pipeline);
        a lost race fails the pipeline with BC409 (see `lost_race`). The events are validated
        by the caller. A second append in one pipeline takes `own_cursor`: the connection's
        kept cursor holds one statement's answer, and the next statement it ran would replace
        the first's."""
        if len(events) == 1 and expected_version is not None:
            raw = psycopg.RawCursor(conn) if own_cursor else self._raw_cursor(conn)
            return self._send_one(conn, stream_id, events[0], expected_version, prepare, raw)
        cursor = conn.cursor() if own_cursor else self._cursor(conn)
        return self._send_many(conn, stream_id, events, expected_version, prepare, cursor)

    def sent(self, stream_id: str, events: Sequence[NewEvent], expected_version: int | None,
             cursor: psycopg.Cursor[Any]) -> list[StoredEvent]:
        """The events `send` appended, as stored."""
        if len(events) == 1 and expected_version is not None:
            row = cursor.fetchone()
            if row is None:  # no stream row at all; the caller's transaction rolls back
                raise ConcurrencyConflict(stream_id, expected_version)
            return [self._stored_one(stream_id, events[0], expected_version, row)]
        return self._stored_many(stream_id, events, cursor.fetchall())

    def _append_all(self, conn: psycopg.Connection, appends: Sequence[Append]) -> list[StoredEvent]:
        stored: list[StoredEvent] = []
        for batch in appends:
            if len(batch.events) == 1 and batch.expected_version is not None:
                stored.append(self._append_one(conn, batch.stream_id, batch.events[0],
                                               batch.expected_version))
                continue
            try:
                rows = self._send_many(conn, batch.stream_id, batch.events,
                                       batch.expected_version).fetchall()
            except psycopg.Error as e:
                if lost_race(e):
                    raise ConcurrencyConflict(batch.stream_id, batch.expected_version) from e
                raise
            stored += self._stored_many(batch.stream_id, batch.events, rows)
        return stored

    def _send_many(self, conn: psycopg.Connection, stream_id: str, events: Sequence[NewEvent],
                   expected: int | None, prepare: bool | None = None,
                   cursor: psycopg.Cursor[Any] | None = None) -> psycopg.Cursor:
        texts = [canonical_json(stream_id, e) for e in events]
        # The texts go as a binary array (%b): the text format would backslash-escape every
        # quote of every JSON text, which cost more client CPU than the rest of the append for
        # a 10-event batch (see bench/README.md).
        return (cursor or self._cursor(conn)).execute(
            "SELECT * FROM banco_append(%s, %s, %b)", (stream_id, expected, texts), prepare=prepare)

    @staticmethod
    def _stored_many(stream_id: str, events: Sequence[NewEvent],
                     rows: Sequence[tuple[Any, ...]]) -> list[StoredEvent]:
        return [StoredEvent(position, stream_id, version, event.type, event.schema_version,
                            event.data, event.metadata, recorded_at, bytes(hash_), int(txid))
                for event, (position, version, recorded_at, hash_, txid)
                in zip(events, rows, strict=True)]

    def _send_one(self, conn: psycopg.Connection, stream_id: str, event: NewEvent,
                  expected: int, prepare: bool | None = None,
                  cursor: psycopg.RawCursor | None = None) -> psycopg.RawCursor:
        params = (stream_id, expected, canonical_json(stream_id, event), event.type,
                  event.schema_version, orjson.dumps(event.data).decode(),
                  orjson.dumps(event.metadata).decode())
        return (cursor or self._raw_cursor(conn)).execute(
            APPEND_ONE_NEW if expected == 0 else APPEND_ONE, params, prepare=prepare)

    @staticmethod
    def _stored_one(stream_id: str, event: NewEvent, expected: int,
                    row: tuple[Any, ...]) -> StoredEvent:
        position, recorded_at, hash_, txid = row
        return StoredEvent(position, stream_id, expected + 1, event.type, event.schema_version,
                           event.data, event.metadata, recorded_at, bytes(hash_), int(txid))

    def _append_one(self, conn: psycopg.Connection, stream_id: str, event: NewEvent,
                    expected: int) -> StoredEvent:
        try:
            row = self._send_one(conn, stream_id, event, expected).fetchone()
            if row is None:  # no stream row at all: abort the transaction as a conflict
                conn.execute("SELECT banco_conflict(%s, %s)", (stream_id, expected))
        except psycopg.Error as e:
            if lost_race(e):
                raise ConcurrencyConflict(stream_id, expected) from e
            raise
        assert row is not None
        return self._stored_one(stream_id, event, expected, row)

    def read_stream(
        self, stream_id: str, after_version: int = 0, conn: psycopg.Connection | None = None,
        limit: int | None = None,
    ) -> list[StoredEvent]:
        with self._conn(conn) as c:
            rows = c.execute(
                f"SELECT {COLUMNS} FROM events WHERE stream_id = %s AND version > %s"
                " ORDER BY version LIMIT %s",
                (stream_id, after_version, limit),
            ).fetchall()
        return [stored_event(r, self.types) for r in rows]

    def read_all(
        self,
        after: Checkpoint = Checkpoint(),
        limit: int = 1000,
        conn: psycopg.Connection | None = None,
        types: Collection[str] | None = None,
    ) -> list[StoredEvent]:
        # Why not `position > last`: a position is drawn at INSERT but becomes visible at
        # COMMIT, so a transaction that drew position 10 can commit after one that drew 11; a
        # reader that already passed 11 would skip 10 forever. Instead we read only events whose
        # writing transaction is older than the snapshot's xmin: every such transaction has
        # finished (committed or rolled back), so no event can appear below that watermark
        # later. Ordering and checkpointing by the pair (txid, position) is then stable: a
        # transaction's events share its txid, and nothing new can sort before the checkpoint.
        # The price is that a long transaction holds readers back until it ends, and transaction
        # ids are server-wide: a long transaction in any database of the server counts.
        params: list[Any] = [str(after.txid), after.position]
        if types is not None:
            params.append(list(types))
        with self._conn(conn) as c:
            rows = c.execute(READ_ALL if types is None else READ_ALL_OF_TYPES,
                             [*params, limit]).fetchall()
        return [stored_event(r, self.types) for r in rows]

    def head(self, conn: psycopg.Connection | None = None) -> Checkpoint:
        """The place of the last event `read_all` would give now (the beginning when there is
        none): a reader that starts there is given only what commits from now on."""
        with self._conn(conn) as c:
            row = c.execute(HEAD).fetchone()
        return Checkpoint() if row is None else Checkpoint(int(row[0]), int(row[1]))

    def checkpoint_at(self, position: int, conn: psycopg.Connection | None = None
                      ) -> Checkpoint | None:
        """The place in the global log of the event at `position` (None: no such event), so
        that a reader given a position goes on from where that event sorts."""
        with self._conn(conn) as c:
            row = c.execute("SELECT txid::text::bigint FROM events WHERE position = %s",
                            (position,)).fetchone()
        return None if row is None else Checkpoint(int(row[0]), position)

    def stream_version(self, stream_id: str, conn: psycopg.Connection | None = None) -> int:
        with self._conn(conn) as c:
            row = c.execute("SELECT version FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
        return row[0] if row else 0
