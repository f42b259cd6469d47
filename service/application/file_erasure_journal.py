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
        line that is not an erasure raises JournalError."""
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
            except (ValueError, KeyError, TypeError) as e:  # UnicodeError is a ValueError
                if number == len(lines) and _START.startswith(line[:len(_START)]):
                    continue  # no newline after it, and begun as `record` begins: cut short
                raise JournalError(f"{self.path}, line {number}: not an erasure ({e})") from None
        return kept


# How every line `record` writes begins: a last line without its newline is a write cut short
# only if it begins so (or is shorter), not any text at the end of a file.
_START = b'{"player_id": "'


def _erasure(line: bytes) -> Erasure:
    row = json.loads(line.decode())
    ids = {key: row[key] for key in ("player_id", "actor")}
    for key, value in ids.items():
        if not isinstance(value, str) or not value or "\x00" in value:
            raise ValueError(f"its {key} is not an id: {value!r}")
        value.encode()  # a lone surrogate (JSON's "\udcff") fails here
    return Erasure(ids["player_id"], ids["actor"], datetime.fromisoformat(row["recorded_at"]))


class JournalError(Exception):
    """The journal holds a line that is not an erasure."""


class JournalUnwritable(Exception):
    """The journal's file cannot be written now (a full disk, a folder moved away)."""
