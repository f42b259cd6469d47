"""The erasure journal (`service.application.erasure_journal`) as a file of JSON lines
(`BANCO_ERASURE_JOURNAL`).

Every API process of a node appends to it: each line is written whole under an exclusive lock
and flushed to the disk (`fsync`) before the erasure it records commits. Keep it where a restore
of the database does not reach, and where every node writes the same file (shared storage), or
give each node its own and reapply each (docs/operations.md).
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import datetime
from pathlib import Path

from service.application.erasure_journal import Erasure


class FileJournal:
    def __init__(self, path: Path) -> None:
        self.path = path

    def record(self, erasure: Erasure) -> None:
        """Keep `erasure`; JournalUnwritable when the file cannot take it (the erasure is then
        not made: it commits only once kept)."""
        try:
            self._append(erasure)
        except OSError as e:
            raise JournalUnwritable(f"the erasure journal {self.path} cannot be written"
                                    f" ({e.strerror})") from e

    def _append(self, erasure: Erasure) -> None:
        line = json.dumps({"player_id": erasure.player_id, "actor": erasure.actor,
                           "recorded_at": erasure.recorded_at.isoformat()}) + "\n"
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

    def entries(self) -> list[Erasure]:
        """Every erasure kept. A last line cut short (a crash mid-write) is left out; any other
        line that is not an erasure raises JournalError, naming the file, the line and what
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
                kept.append(_erasure(line))
            except ValueError as e:
                # Only a line that is not whole JSON can be a write cut short: a whole one
                # without its newline that lacks a field is no erasure, said as any other.
                if (isinstance(e, _CutShort) and number == len(lines)
                        and _START.startswith(line[:len(_START)])):
                    continue  # no newline after it, and begun as `record` begins: cut short
                raise JournalError(f"{self.path}, line {number}: not an erasure: {e}") from None
        return kept


# How every line `record` writes begins: a last line without its newline is a write cut short
# only if it begins so (or is shorter), not any text at the end of a file.
_START = b'{"player_id": "'
FIELDS = ("player_id", "actor", "recorded_at")
_KINDS = {list: "list", str: "string", int: "number", float: "number", bool: "boolean",
          type(None): "null"}


class _CutShort(ValueError):
    """The line is not whole JSON: what a write cut short leaves, if it is the last."""


def _erasure(line: bytes) -> Erasure:
    """The erasure `line` records; ValueError saying in words what it lacks or holds wrong."""
    try:
        row = json.loads(line.decode())
    except UnicodeDecodeError as e:
        raise _CutShort(f"it is not UTF-8 ({e})") from None
    except ValueError as e:
        raise _CutShort(f"it is not JSON ({e})") from None
    if not isinstance(row, dict):
        raise ValueError(f"it holds a JSON {_KINDS.get(type(row), 'value')}, not an object")
    for key in FIELDS:
        if key not in row:
            raise ValueError(f'it has no "{key}"')
    for key in ("player_id", "actor"):
        value = row[key]
        if not isinstance(value, str) or not value or "\x00" in value:
            raise ValueError(f'its "{key}" is not an id: {value!r}')
        try:
            value.encode()  # a lone surrogate (JSON's "\udcff") fails here
        except UnicodeEncodeError as e:
            raise ValueError(f'its "{key}" is not an id ({e})') from None
    at = row["recorded_at"]
    try:
        recorded_at = datetime.fromisoformat(at) if isinstance(at, str) else None
    except ValueError:
        recorded_at = None
    if recorded_at is None:
        raise ValueError(f'its "recorded_at" is not an ISO 8601 time: {at!r}')
    return Erasure(row["player_id"], row["actor"], recorded_at)


class JournalError(Exception):
    """The journal holds a line that is not an erasure."""


class JournalUnwritable(Exception):
    """The journal's file cannot be written now (a full disk, a folder moved away)."""
