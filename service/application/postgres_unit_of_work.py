"""PostgreSQL's unit of work (`service.application.unit_of_work` says what one is).

It keeps an action to three round trips: its BEGIN goes with the transaction's first statement
(the token's lookup, with the table's read prefetched beside it); a flush sends every queued
write in one pipeline, in an order where a refused check fails what follows it (the balances'
check before the append it guards, the append before the rows it changes); the commit sends, in
its own round trip, the statements whose answers nobody reads (`with_commit`).

Every statement may be prepared (psycopg prepares one at its fifth use on a connection), in a
pipeline too. A pipeline that fails skips what follows the failed statement, and psycopg, which
notes a statement as prepared when it sends its preparation, may then count as prepared one the
server never saw. A work whose pipeline failed is therefore rolled back by psycopg's own
`Connection.rollback`, which forgets the connection's prepared statements on both sides (or its
connection closed, when there is no transaction left to roll back).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from events import ledger
from events.model import ConcurrencyConflict, NewEvent, StoredEvent
from events.postgres import PostgresEventStore, lost_race
from projections import balances, players, tables
from projections.tables import TableRow
from service.application.postgres_credentials import PostgresCredentials
from service.application.unit_of_work import transfers_of


@dataclass
class _Append:
    stream_id: str
    events: list[NewEvent]
    expected_version: int | None
    # What `banco_hold` checks before the append: the transfers its TreasurePosted events make.
    transfers: list[ledger.Transfer] = field(default_factory=list)


class PostgresUnitOfWork:
    """A transaction on a connection of `pool`, taken at its first statement.

    With `begin` false (a read-only request) no transaction is opened: its statements run one by
    one in autocommit, as reads need no more."""

    def __init__(self, pool: ConnectionPool, store: PostgresEventStore, begin: bool = True,
                 on_take: Callable[[int], None] | None = None) -> None:
        self.pool = pool
        self.store = store
        self._begin = begin
        self._on_take = on_take  # told +1 when a connection is taken, -1 when given back
        self._conn: psycopg.Connection | None = None
        self._begun = False
        self._appends: list[_Append] = []
        self._saves: list[tuple[TableRow, str | None]] = []
        self._statements: list[tuple[str, Sequence[Any]]] = []  # queued writes, answers unread
        self._with_commit: list[tuple[str, Sequence[Any]]] = []
        self._after_commit: list[Callable[[], None]] = []
        self._notices: list[Any] = []
        self._prefetched: dict[str, psycopg.Cursor] = {}
        self._joined = False  # on a connection the caller holds (`joining`)
        self._failed = False  # a pipeline of this work failed (see the module's docstring)
        self.credentials = PostgresCredentials(self)

    @classmethod
    def joining(cls, conn: psycopg.Connection, store: PostgresEventStore) -> PostgresUnitOfWork:
        """A unit of work in the caller's connection and transaction, which the caller commits
        and gives back: for a command run inside a larger piece of work."""
        uow = cls(store.pool, store, begin=False)
        uow._conn = conn
        uow._joined = True
        return uow

    # The connection ---------------------------------------------------------------------------

    @property
    def taken(self) -> psycopg.Connection | None:
        """The connection, if one is taken."""
        return self._conn

    @property
    def connection(self) -> psycopg.Connection:
        """The transaction's connection, taken on first use, with its BEGIN sent."""
        c = self._taken()
        self._send_begin(c)
        return c

    @contextlib.contextmanager
    def pipelined(self) -> Iterator[psycopg.Connection]:
        """The connection in pipeline mode: the statements sent in the block (the BEGIN first, if
        not sent yet) cost one round trip, at its end. Their results are read after the block."""
        c = self._taken()
        with self._pipeline(c):
            self._send_begin(c)
            yield c

    @contextlib.contextmanager
    def _pipeline(self, c: psycopg.Connection) -> Iterator[None]:
        """`c`'s pipeline, whose failure is remembered until the work is rolled back."""
        try:
            with c.pipeline():
                yield
        except psycopg.Error:
            self._failed = True
            raise

    def _taken(self) -> psycopg.Connection:
        if self._conn is None:
            self._conn = self.pool.getconn()
            if self._on_take is not None:
                self._on_take(1)
        return self._conn

    def _send_begin(self, c: psycopg.Connection) -> None:
        if self._begin and not self._begun:
            c.execute("BEGIN")
            self._begun = True

    def release(self) -> None:
        """Give the connection back to the pool (rolling back what was not committed); a later
        statement takes one again."""
        if self._joined:
            return
        c, self._conn = self._conn, None
        self._begun = False
        self._prefetched.clear()
        if c is None:
            return
        if c.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            with contextlib.suppress(psycopg.OperationalError):  # the pool discards a broken one
                c.rollback()
        elif self._failed:
            # A pipeline failed outside a transaction (a read's): there is no rollback for
            # psycopg to forget its prepared statements at, so the pool replaces the connection.
            c.close()
        self._failed = False
        if self._on_take is not None:
            self._on_take(-1)
        self.pool.putconn(c)

    # Reads ------------------------------------------------------------------------------------

    def prefetch_table(self, table_id: str) -> None:
        """Send the table's read now (in the caller's pipeline, with another statement): `table`
        reads its answer."""
        self._prefetched[table_id] = tables.load_later(self._taken(), table_id)

    def table(self, table_id: str, balances: bool = False) -> TableRow | None:
        """The table's row (with its seats' balances if asked), or None."""
        early = self._prefetched.pop(table_id, None)
        if early is not None and not balances:
            return tables.loaded(early)
        self.flush()
        return tables.load(self.connection, table_id, balances)

    def seat_balances(self, table: TableRow) -> dict[str, int]:
        """The seats' balances by player, every queued posting included."""
        if table.balances is None:
            self.flush()
        return tables.seat_balances(self.connection, table)

    def player(self, player_id: str) -> dict[str, Any] | None:
        self.flush()
        return players.find(self.connection, player_id)

    def balance(self, account: str) -> int:
        self.flush()
        row = self.connection.execute("SELECT balance FROM balances WHERE account = %s",
                                      (account,)).fetchone()
        return 0 if row is None else int(row[0])

    def hand(self, hand_id: str) -> dict[str, Any] | None:
        self.flush()
        return tables.hand(self.connection, hand_id)

    def read_stream(self, stream_id: str, after: int, limit: int) -> list[StoredEvent]:
        self.flush()
        return self.store.read_stream(stream_id, after, conn=self.connection, limit=limit)

    def queue_behind(self, stream_id: str) -> None:
        # The lock `banco_append` takes on the stream's row, taken first: every writer takes it
        # before the table's row, so the lock order stays the one that cannot deadlock.
        self.flush()
        self.connection.execute("SELECT 1 FROM streams WHERE stream_id = %s FOR UPDATE",
                                (stream_id,))

    # Writes -----------------------------------------------------------------------------------

    def append(self, stream_id: str, events: Sequence[NewEvent],
               expected_version: int | None) -> None:
        """Queue `events` for `stream_id` at `expected_version` (None: wherever it stands).
        Their TreasurePosted events are checked (no account but the house's overdrawn) and
        projected into the balances with them."""
        for event in events:
            self.store.types.validate(event)  # an invalid one refused before anything is sent
        self._appends.append(_Append(stream_id, list(events), expected_version,
                                     transfers_of(events)))

    def save(self, table: TableRow, actor: str | None) -> None:
        """Queue the table's row, saved as the table stands when the work is flushed, and its
        change notified to its followers at commit, naming the `actor` whose command made it
        (`projections.tables.save`)."""
        if not any(t is table for t, _ in self._saves):
            self._saves.append((table, actor))

    def hand_began(self, table: TableRow, commitment: str, first_version: int,
                   at: datetime) -> None:
        self._statements.append(tables.hand_began_statement(table, commitment, first_version, at))

    def hand_status(self, hand_id: str, status: str, last_version: int | None = None,
                    postings: list[dict[str, Any]] | None = None,
                    at: datetime | None = None) -> None:
        self._statements.append(tables.hand_status_statement(hand_id, status, last_version,
                                                             postings, at))

    def with_commit(self, sql: str, params: Sequence[Any]) -> None:
        """Send the statement with the COMMIT, in its round trip: a write whose answer nobody
        reads. Sent only if the work commits, and committed with it or not at all."""
        self._with_commit.append((sql, params))

    def publish(self, notice: Any) -> None:
        self._notices.append(notice)

    def collect_notices(self) -> list[Any]:
        notices, self._notices = self._notices, []
        return notices

    def after_commit(self, fn: Callable[[], None], first: bool = False) -> None:
        """Run `fn` once the work has committed (never if it rolls back)."""
        if first:
            self._after_commit.insert(0, fn)
        else:
            self._after_commit.append(fn)

    def flush(self) -> list[StoredEvent]:
        """Send every queued write, in one round trip when each append's version is known; the
        events stored, in the order they were queued.

        Raises ConcurrencyConflict when a stream moved past its expected version, and
        ledger.InsufficientTreasure when a posting would overdraw an account: the transaction
        has then failed, and nothing queued is written."""
        appends, saves, statements = self._appends, self._saves, self._statements
        if not (appends or saves or statements):
            return []
        self._appends, self._saves, self._statements = [], [], []
        c = self.connection
        if c.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            # A joined connection in autocommit: the writes go in one transaction of their own,
            # never committed one by one.
            try:
                with c.transaction():
                    return self._flush(c, appends, saves, statements)
            except BaseException:
                # Rolled back by psycopg's transaction, which forgets the prepared statements.
                self._failed = False
                raise
        return self._flush(c, appends, saves, statements)

    def _flush(self, c: psycopg.Connection, appends: Sequence[_Append],
               saves: Sequence[tuple[TableRow, str | None]],
               statements: Sequence[tuple[str, Sequence[Any]]]) -> list[StoredEvent]:
        # In a caller's transaction (`joining`), whose rollback this work does not make, a
        # statement sent after one that may fail goes unprepared (see the module's docstring).
        later: bool | None = False if self._joined else None
        prepare: bool | None = None
        sent: list[tuple[_Append, psycopg.Cursor]] = []
        saving: list[tuple[TableRow, psycopg.Cursor]] = []
        try:
            with self._pipeline(c):
                for a in appends:
                    if a.transfers:
                        ledger.hold(c, a.stream_id, a.expected_version, a.transfers, prepare)
                        prepare = later
                    sent.append((a, self.store.send(c, a.stream_id, a.events, a.expected_version,
                                                    prepare=prepare, own_cursor=bool(sent))))
                    prepare = later
                    if a.transfers and a.expected_version is not None:
                        first = a.expected_version + 1
                        balances.apply_appended(c, a.stream_id, list(enumerate(a.events, first)),
                                                prepare=later)
                for table, actor in saves:
                    saving.append((table, tables.save_later(c, table, actor, prepare=prepare)))
                for sql, params in statements:
                    c.execute(sql, params, prepare=prepare)
        except psycopg.Error as e:
            if e.sqlstate == ledger.SHORTFALL:
                raise ledger.shortfall(e) from e
            if lost_race(e):
                raise ConcurrencyConflict(*_raced(appends, e)) from e
            raise
        stored: list[StoredEvent] = []
        for a, cursor in sent:
            found = self.store.sent(a.stream_id, a.events, a.expected_version, cursor)
            if a.transfers and a.expected_version is None:
                balances.apply(c, found)  # at positions known only now: a round trip more
            stored += found
        players.apply(c, stored)
        for table, cursor in saving:
            tables.saved(table, cursor)
            mine = [e for e in stored if e.stream_id == f"table-{table.table_id}"]
            if mine:
                table.txid = mine[-1].txid
        return stored

    # The end ----------------------------------------------------------------------------------

    def commit(self) -> None:
        """Flush what is queued, then COMMIT, with the `with_commit` statements (and queued
        statements no flush sent) in its round trip; then run the `after_commit` functions.
        psycopg.OperationalError when the connection died before the commit was confirmed (it
        may or may not have committed)."""
        if self._appends or self._saves:
            self.flush()
        c = self._conn
        if c is None or c.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            self._with_commit.clear()
            self._statements.clear()
        else:
            # Queued statements whose answers nobody reads go with the COMMIT, as its own do.
            pending = [*self._statements, *self._with_commit]
            self._statements, self._with_commit = [], []
            if not pending:
                c.execute("COMMIT")
            else:
                with self._pipeline(c):
                    for sql, params in pending:
                        c.execute(sql, params)
                    c.execute("COMMIT")
            self._begun = False
        done, self._after_commit = self._after_commit, []
        for fn in done:
            fn()

    def rollback(self) -> None:
        """Forget what was queued and roll back what was sent."""
        self._appends, self._saves, self._statements = [], [], []
        self._with_commit, self._after_commit, self._notices = [], [], []
        c = self._conn
        if c is not None and c.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            with contextlib.suppress(psycopg.OperationalError):  # a lost connection rolled back
                if self._failed:
                    c.rollback()  # psycopg's, which forgets the prepared statements too
                    self._failed = False
                else:
                    c.execute("ROLLBACK")
        self._begun = False


def _raced(appends: Sequence[_Append], e: psycopg.Error) -> tuple[str, int | None]:
    """The stream whose append lost its race: the one `banco_conflict` names, else the first."""
    detail = e.diag.message_primary or ""
    for a in appends:
        if a.stream_id in detail:
            return a.stream_id, a.expected_version
    return appends[0].stream_id, appends[0].expected_version


@contextlib.contextmanager
def transaction(pool: ConnectionPool, store: PostgresEventStore) -> Iterator[PostgresUnitOfWork]:
    """A unit of work committed when the block ends, rolled back if it raises; its connection
    given back either way: for a worker's job or a command-line tool."""
    uow = PostgresUnitOfWork(pool, store)
    try:
        yield uow
        uow.commit()
    finally:
        uow.rollback()
        uow.release()
