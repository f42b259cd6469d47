"""The unit of work's twin in memory (`service.application.unit_of_work` says what one is).

It runs the commands' handlers over the in-memory event store (`events.memory`) and rows held
in dicts, for tests of the application's logic that need no server. It refuses what
PostgreSQL's refuses, in the same order: a stream moved past its expected version, then a
posting that would overdraw an account; a refused flush writes nothing.

What it does not have: isolation. A flush is visible to every other unit of work on the same
`MemoryDatabase` at once, and a rollback forgets only what was not flushed yet. A handler
raises before its flush or at it, never after, so its tests see what PostgreSQL would show.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from events import ledger, personal_data
from events.catalog import default_types
from events.memory import InMemoryEventStore
from events.model import Append, ConcurrencyConflict, NewEvent, StoredEvent
from projections import tables
from projections.tables import HAND_COLUMNS, TableRow
from service.application.credentials import NOT_FOUND, Holder
from service.application.errors import NotFound
from service.application.unit_of_work import transfers_of


@dataclass
class MemoryDatabase:
    """What PostgreSQL holds for the application, in memory: the log, the tables' and hands'
    rows, the accounts' balances and the credentials."""

    store: InMemoryEventStore = field(default_factory=lambda: InMemoryEventStore(default_types()))
    tables: dict[str, TableRow] = field(default_factory=dict)
    hands: dict[str, dict[str, Any]] = field(default_factory=dict)
    balances: dict[str, int] = field(default_factory=dict)
    players: dict[str, dict[str, Any]] = field(default_factory=dict)  # as the API shows them
    # The credentials: players' keys, tokens (id: hash, role, subject) and auditors.
    keys: dict[str, bytes] = field(default_factory=dict)
    tokens: dict[str, tuple[bytes, Holder, str]] = field(default_factory=dict)
    auditors: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The operator's keys (id: the key as listed, and its hash while it works).
    operator_keys: dict[str, dict[str, Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class MemoryUnitOfWork:
    def __init__(self, db: MemoryDatabase) -> None:
        self.db = db
        self._appends: list[Append] = []
        self._saves: list[TableRow] = []
        self._hands: list[Callable[[], None]] = []
        self._after_commit: list[Callable[[], None]] = []
        self._notices: list[Any] = []
        self._kept: list[Callable[[], object]] = []  # the credentials' writes, done at the flush
        self.credentials = MemoryCredentials(db, self._kept)

    # Reads -----------------------------------------------------------------------------------

    def prefetch_table(self, table_id: str) -> None:
        """Nothing to send ahead: `table` reads it."""

    def table(self, table_id: str, balances: bool = False) -> TableRow | None:
        self.flush()
        with self.db.lock:
            row = self.db.tables.get(table_id)
            found = None if row is None else copy.deepcopy(row)
        if found is not None and balances:
            found.balances = self._held(found)
        return found

    def seat_balances(self, table: TableRow) -> dict[str, int]:
        if table.balances is None:
            self.flush()
            table.balances = self._held(table)
        return table.balances

    def _held(self, table: TableRow) -> dict[str, int]:
        with self.db.lock:
            table.names = self._names(table)
            return {s["player_id"]: self.db.balances.get(ledger.seat(table.table_id,
                                                                      s["player_id"]), 0)
                    for s in table.seats}

    def _names(self, table: TableRow) -> dict[str, str | None]:
        """The seated players' names, as the PostgreSQL read gives them with the balances."""
        return {s["player_id"]: (self.db.players.get(s["player_id"]) or {}).get("name")
                for s in table.seats}

    def player(self, player_id: str) -> dict[str, Any] | None:
        self.flush()
        with self.db.lock:
            found = self.db.players.get(player_id)
            return None if found is None else dict(found)

    def balance(self, account: str) -> int:
        self.flush()
        with self.db.lock:
            return self.db.balances.get(account, 0)

    def hand(self, hand_id: str) -> dict[str, Any] | None:
        self.flush()
        with self.db.lock:
            row = self.db.hands.get(hand_id)
            if row is None:
                return None
            # As PostgreSQL reads it: with the rules version of its table.
            table = self.db.tables[row["table_id"]]
            return {**copy.deepcopy(row), "rules_version": table.rules_version}

    def read_stream(self, stream_id: str, after: int, limit: int) -> list[StoredEvent]:
        self.flush()
        return self.db.store.read_stream(stream_id, after, limit=limit)

    def queue_behind(self, stream_id: str) -> None:
        """Nothing to wait for: one unit of work at a time uses the memory store."""

    # Writes ----------------------------------------------------------------------------------

    def append(self, stream_id: str, events: Sequence[NewEvent],
               expected_version: int | None) -> None:
        for event in events:
            self.db.store.types.validate(event)
        self._appends.append(Append(stream_id, tuple(events), expected_version))

    def save(self, table: TableRow, actor: str | None) -> None:
        if not any(t is table for t in self._saves):
            self._saves.append(table)

    def hand_began(self, table: TableRow, commitment: str, first_version: int,
                   at: datetime) -> None:
        row = dict.fromkeys(HAND_COLUMNS[:-1])
        row.update(hand_id=table.hand_id, table_id=table.table_id, number=table.hand_number,
                   status="playing", seats=[tables.seat_record(s) for s in table.seats],
                   commitment=commitment, first_version=first_version, opened_at=at)
        key = str(table.hand_id)
        self._hands.append(lambda: self.db.hands.__setitem__(key, row))

    def hand_status(self, hand_id: str, status: str, last_version: int | None = None,
                    postings: list[dict[str, Any]] | None = None,
                    at: datetime | None = None) -> None:
        def update() -> None:
            row = self.db.hands.get(hand_id)
            if row is None:
                return  # as an UPDATE of no row
            row["status"] = status
            for key, value in (("last_version", last_version), ("postings", postings),
                               ("settled_at", at)):
                if value is not None:
                    row[key] = value

        self._hands.append(update)

    def publish(self, notice: Any) -> None:
        self._notices.append(notice)

    def collect_notices(self) -> list[Any]:
        notices, self._notices = self._notices, []
        return notices

    def after_commit(self, fn: Callable[[], None], first: bool = False) -> None:
        if first:
            self._after_commit.insert(0, fn)
        else:
            self._after_commit.append(fn)

    def flush(self) -> list[StoredEvent]:
        appends, saves, hands, kept = self._appends, self._saves, self._hands, self._kept[:]
        if not (appends or saves or hands or kept):
            return []
        self._appends, self._saves, self._hands = [], [], []
        self._kept.clear()
        with self.db.lock:
            store = self.db.store
            # Checked in PostgreSQL's order, before anything is written: the versions (each
            # stream's lock, in `banco_hold` or `banco_append`), then the balances.
            versions: dict[str, int] = {}
            for a in appends:
                at = versions.get(a.stream_id, store.stream_version(a.stream_id))
                if a.expected_version is not None and a.expected_version != at:
                    raise ConcurrencyConflict(a.stream_id, a.expected_version)
                versions[a.stream_id] = at + len(a.events)
            after = dict(self.db.balances)
            for a in appends:
                for t in transfers_of(a.events):
                    held = after.get(t.from_account, 0)
                    if t.from_account != ledger.HOUSE and held < t.amount:
                        raise ledger.InsufficientTreasure(t.from_account, held, t.amount)
                    after[t.from_account] = held - t.amount
                    after[t.to_account] = after.get(t.to_account, 0) + t.amount
            stored = store.append_many(appends)
            self.db.balances = after
            for write in kept:
                write()
            for table in saves:
                table.balances = {s["player_id"]: after.get(ledger.seat(table.table_id,
                                                                         s["player_id"]), 0)
                                  for s in table.seats}
                table.names = self._names(table)
                mine = [e for e in stored if e.stream_id == f"table-{table.table_id}"]
                if mine:
                    table.txid = mine[-1].txid
                self.db.tables[table.table_id] = copy.deepcopy(table)
            for write in hands:
                write()
            for e in stored:
                if e.type == "PlayerRegistered":
                    player_id = e.data["player_id"]
                    self.db.players[player_id] = {
                        "id": player_id, "created_at": e.recorded_at, "erased": False,
                        "name": personal_data.name_of(e.data, self.db.keys.get(player_id))}
                elif e.type == "PlayerErased":
                    self.db.players[e.data["player_id"]].update(name=None, erased=True)
        return stored

    def commit(self) -> None:
        self.flush()
        done, self._after_commit = self._after_commit, []
        for fn in done:
            fn()

    def rollback(self) -> None:
        self._appends, self._saves, self._hands, self._after_commit, self._notices = [], [], [], [], []
        self._kept.clear()


class MemoryCredentials:
    """The credentials in the twin's dicts. Reads see what was flushed; writes wait for the
    flush and are done only if it passes, as PostgreSQL's would commit with the work."""

    def __init__(self, db: MemoryDatabase, kept: list[Callable[[], object]]) -> None:
        self._db = db
        self._kept = kept
        self._dropped: set[str] = set()  # tokens this work dropped already

    def lock_subject(self, role: Holder, subject: str) -> bool:
        rows = self._db.players if role == "player" else self._db.auditors
        with self._db.lock:
            row = rows.get(subject)
        if row is None:
            raise NotFound(NOT_FOUND[role], f"no {role} {subject}")
        return bool(row.get("erased", False))

    def new_key(self, player_id: str) -> bytes:
        key = AESGCM.generate_key(bit_length=256)
        self._kept.append(lambda: self._db.keys.__setitem__(player_id, key))
        return key

    def shred(self, player_id: str) -> None:
        self._kept.append(lambda: self._db.keys.pop(player_id, None))

    def add_token(self, digest: bytes, role: Holder, subject: str, token_id: str) -> None:
        self._kept.append(lambda: self._db.tokens.__setitem__(token_id, (digest, role, subject)))

    def revoke_all(self, role: Holder, subject: str) -> list[str]:
        with self._db.lock:
            ids = sorted(t for t, (_, r, s) in self._db.tokens.items()
                         if (r, s) == (role, subject) and t not in self._dropped)
        for token_id in ids:
            self._drop(token_id)
        return ids

    def holder_of(self, token_id: str) -> tuple[Holder, str] | None:
        with self._db.lock:
            found = self._db.tokens.get(token_id)
        return None if found is None or token_id in self._dropped else (found[1], found[2])

    def drop_token(self, token_id: str) -> bool:
        if self.holder_of(token_id) is None:
            return False
        self._drop(token_id)
        return True

    def add_auditor(self, auditor_id: str, name: str, created_at: datetime) -> None:
        row = {"id": auditor_id, "name": name, "created_at": created_at}
        self._kept.append(lambda: self._db.auditors.__setitem__(auditor_id, row))

    def _drop(self, token_id: str) -> None:
        self._dropped.add(token_id)
        self._kept.append(lambda: self._db.tokens.pop(token_id, None))

    def add_operator_key(self, key_id: str, digest: bytes, name: str, scopes: Sequence[str],
                         expires_at: datetime | None, created_at: datetime) -> None:
        row = {"id": key_id, "name": name, "scopes": list(scopes), "expires_at": expires_at,
               "created_at": created_at, "rotated_at": None, "revoked_at": None,
               "hash": digest}
        self._kept.append(lambda: self._db.operator_keys.__setitem__(key_id, row))

    def lock_operator_key(self, key_id: str) -> dict[str, Any]:
        with self._db.lock:
            row = self._db.operator_keys.get(key_id)
        if row is None:
            raise NotFound("key_not_found", f"no operator key {key_id}")
        return _shown(row)

    def replace_operator_key(self, key_id: str, digest: bytes, rotated_at: datetime) -> None:
        self._kept.append(lambda: self._db.operator_keys[key_id].update(
            hash=digest, rotated_at=rotated_at))

    def revoke_operator_key(self, key_id: str, revoked_at: datetime) -> None:
        self._kept.append(lambda: self._db.operator_keys[key_id].update(
            hash=None, revoked_at=revoked_at))

    def operator_keys(self) -> list[dict[str, Any]]:
        with self._db.lock:
            rows = list(self._db.operator_keys.values())
        return [_shown(row) for row in sorted(rows, key=lambda r: (r["created_at"], r["id"]))]


def _shown(row: dict[str, Any]) -> dict[str, Any]:
    """An operator key as listed: its status as of now, never its hash."""
    expires_at = row["expires_at"]
    status = ("revoked" if row["revoked_at"] is not None
              else "expired" if expires_at is not None and expires_at <= datetime.now(UTC)
              else "active")
    return {**{k: v for k, v in row.items() if k != "hash"}, "status": status}
