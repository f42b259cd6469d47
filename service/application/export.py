"""Balance history as CSV (formatted by PostgreSQL), NDJSON or JSON, streamed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson
import psycopg

from projections import history
from projections.history import COLUMNS

FORMATS = {"text/csv": "csv", "application/x-ndjson": "ndjson"}


def ndjson_lines(rows: Iterable[tuple[Any, ...]], chunk: int = 500) -> Iterator[bytes]:
    """One JSON object per line."""
    parts: list[bytes] = []
    for row in rows:
        parts.append(orjson.dumps(dict(zip(COLUMNS, row, strict=True))) + b"\n")
        if len(parts) == chunk:
            yield b"".join(parts)
            parts = []
    yield b"".join(parts)


def json_lines(rows: Iterable[tuple[Any, ...]], chunk: int = 500) -> Iterator[bytes]:
    """One JSON array of objects, written as it is read."""
    yield b"["
    separator = b"\n"
    for lines_ in ndjson_lines(rows, chunk):
        if lines_:
            yield separator + lines_.rstrip(b"\n").replace(b"\n", b",\n")
            separator = b",\n"
    yield b"\n]\n"


def lines(fmt: str, rows: Iterable[tuple[Any, ...]]) -> Iterator[bytes]:
    """The export in `fmt` (`ndjson` or `json`)."""
    return json_lines(rows) if fmt == "json" else ndjson_lines(rows)


def export(conn: psycopg.Connection, filters: history.Filters, fmt: str) -> Iterator[bytes]:
    """A history export in `fmt`; CSV is formatted by PostgreSQL's COPY (see bench/README.md)."""
    if fmt == "csv":
        return history.csv_copy(conn, filters)
    return lines(fmt, history.stream(conn, filters))
