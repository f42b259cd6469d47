"""The erasure journal (`service.application.erasure_journal`) as a file of JSON lines
(`BANCO_ERASURE_JOURNAL`).

Every API process of a node appends to it: each line is written whole under an exclusive lock
and flushed to the disk (`fsync`) before the erasure or the retired credential it records
commits. Keep it where a restore of the database does not reach, and where every node writes the
same file (shared storage), or give each node its own and reapply each (docs/operations.md).

An erasure's line is as it always was, `{"player_id", "actor", "recorded_at"}`, with no kind: a
journal written before credentials were kept reads as it did. A retired credential's line
begins with its `kind`:

- `{"kind": "token_retired", "token_id", "role", "subject", "actor", "recorded_at"}`
- `{"kind": "operator_key_revoked", "key_id", "actor", "recorded_at"}`
- `{"kind": "operator_key_rotated", "key_id", "issued_at", "actor", "recorded_at"}`

Ids and times only: never a token, a key's secret, nor their hashes.
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from service.application.erasure_journal import (
    Entry,
    Erasure,
    KeyRevoked,
    KeyRotated,
    TokenRetired,
)


class FileJournal:
    def __init__(self, path: Path) -> None:
        self.path = path

    def record(self, entry: Entry) -> None:
        """Keep `entry`; JournalUnwritable when the file cannot take it (an erasure is then not
        made: it commits only once kept; a credential is retired all the same, the keeper
        logging what the journal lost)."""
        try:
            self._append(entry)
        except OSError as e:
            raise JournalUnwritable(f"the erasure journal {self.path} cannot be written"
                                    f" ({e.strerror})") from e

    def _append(self, entry: Entry) -> None:
        line = json.dumps(_row(entry)) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, line.encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:  # the file's name is durable only once its folder is
            folder = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)

    def entries(self) -> list[Entry]:
        """Every entry kept. A last line cut short (a crash mid-write) is left out; any other
        line that is not an entry raises JournalError, naming the file, the line and what
        is wrong with it (the field it lacks, say)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        lines = data.split(b"\n")
        kept = []
        for number, line in enumerate(lines, 1):
            if not line:
                continue
            try:
                kept.append(_entry(line))
            except _NotEntry as e:
                # Only a line that is not whole JSON can be a write cut short: a whole one
                # without its newline that lacks a field is no entry, said as any other.
                if (isinstance(e, _CutShort) and number == len(lines)
                        and any(s.startswith(line[:len(s)]) for s in _STARTS)):
                    continue  # no newline after it, and begun as `record` begins: cut short
                raise JournalError(f"{self.path}, line {number}: not {e.what}: {e}") from None
        return kept


def _row(entry: Entry) -> dict[str, Any]:
    """The line that keeps `entry`, its `kind` first (an erasure's has none, as ever)."""
    if isinstance(entry, Erasure):
        return {"player_id": entry.player_id, "actor": entry.actor,
                "recorded_at": entry.recorded_at.isoformat()}
    if isinstance(entry, TokenRetired):
        row: dict[str, Any] = {"kind": TOKEN, "token_id": entry.token_id, "role": entry.role,
                               "subject": entry.subject}
    elif isinstance(entry, KeyRevoked):
        row = {"kind": KEY_REVOKED, "key_id": entry.key_id}
    else:
        row = {"kind": KEY_ROTATED, "key_id": entry.key_id,
               "issued_at": entry.issued_at.isoformat()}
    return {**row, "actor": entry.actor, "recorded_at": entry.recorded_at.isoformat()}


TOKEN, KEY_REVOKED, KEY_ROTATED = "token_retired", "operator_key_revoked", "operator_key_rotated"
# What a line of each kind is, as an error names it; and its fields.
KINDS = {None: ("an erasure", ("player_id", "actor", "recorded_at")),
         TOKEN: ("a retired token", ("token_id", "role", "subject", "actor", "recorded_at")),
         KEY_REVOKED: ("a revoked operator key", ("key_id", "actor", "recorded_at")),
         KEY_ROTATED: ("a rotated operator key", ("key_id", "issued_at", "actor",
                                                  "recorded_at"))}
# How every line `record` writes begins: a last line without its newline is a write cut short
# only if it begins so (or is shorter), not any text at the end of a file.
_STARTS = (b'{"player_id": "', b'{"kind": "')
_KINDS = {list: "list", str: "string", int: "number", float: "number", bool: "boolean",
          type(None): "null"}


class _NotEntry(ValueError):
    """The line is not `what` (an erasure, a retired token, ...), for the reason it says."""

    # A line that is no JSON object cannot say its kind: it is not "a journal entry" of any.
    def __init__(self, reason: str, what: str = "a journal entry") -> None:
        super().__init__(reason)
        self.what = what


class _CutShort(_NotEntry):
    """The line is not whole JSON: what a write cut short leaves, if it is the last."""


def _entry(line: bytes) -> Entry:
    """The entry `line` records; _NotEntry saying in words what it lacks or holds wrong. A line
    with no `kind` is an erasure, as every line was before credentials were kept."""
    try:
        row = json.loads(line.decode())
    except UnicodeDecodeError as e:
        raise _CutShort(f"it is not UTF-8 ({e})") from None
    except ValueError as e:
        raise _CutShort(f"it is not JSON ({e})") from None
    if not isinstance(row, dict):
        raise _NotEntry(f"it holds a JSON {_KINDS.get(type(row), 'value')}, not an object")
    kind = row.get("kind")
    if not isinstance(kind, str | None) or kind not in KINDS:
        raise _NotEntry(f'its "kind" is none this Banco knows: {kind!r}', "a journal entry")
    what, fields = KINDS[kind]
    for key in fields:
        if key not in row:
            raise _NotEntry(f'it has no "{key}"', what)
    for key in fields:
        if key.endswith("_at"):
            row[key] = _time(row[key], key, what)
        elif key == "role":
            if row[key] not in ("player", "auditor"):
                raise _NotEntry(f'its "role" is neither "player" nor "auditor": {row[key]!r}',
                                what)
        else:
            _id(row[key], key, what)
    at = row["recorded_at"]
    if kind is None:
        return Erasure(row["player_id"], row["actor"], at)
    if kind == TOKEN:
        return TokenRetired(row["token_id"], row["role"], row["subject"], row["actor"], at)
    if kind == KEY_REVOKED:
        return KeyRevoked(row["key_id"], row["actor"], at)
    if row["issued_at"].tzinfo is None:  # compared with the database's times: it needs one
        raise _NotEntry(f'its "issued_at" has no UTC offset: {row["issued_at"].isoformat()!r}',
                        what)
    return KeyRotated(row["key_id"], row["issued_at"], row["actor"], at)


def _id(value: Any, key: str, what: str) -> None:
    if not isinstance(value, str) or not value or "\x00" in value:
        raise _NotEntry(f'its "{key}" is not an id: {value!r}', what)
    try:
        value.encode()  # a lone surrogate (JSON's "\udcff") fails here
    except UnicodeEncodeError as e:
        raise _NotEntry(f'its "{key}" is not an id ({e})', what) from None


def _time(at: Any, key: str, what: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(at) if isinstance(at, str) else None
    except ValueError:
        parsed = None
    if parsed is None:
        raise _NotEntry(f'its "{key}" is not an ISO 8601 time: {at!r}', what)
    return parsed


class JournalError(Exception):
    """The journal holds a line that is not an entry: an erasure, a retired credential."""


class JournalUnwritable(Exception):
    """The journal's file cannot be written now (a full disk, a folder moved away)."""
