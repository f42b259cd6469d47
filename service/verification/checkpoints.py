"""Checkpoints: a Merkle root over the global log up to a watermark, recorded and compared."""

from __future__ import annotations

from typing import Any

import psycopg

from events.postgres import COLUMNS, stored_event
from service.verification.merkle import MerkleRoot, leaf

CHECKPOINT_COLUMNS = "id, recorded_at, txid::text::bigint, position, events, root"


def digest(conn: psycopg.Connection, upto: tuple[int, int] | None = None) -> dict[str, Any]:
    """The root over every event below the snapshot's xmin (and at or before `upto`).

    Below xmin every writing transaction has finished, so nothing can later appear among the
    events covered (the same watermark as `PostgresEventStore.read_all`). The read is one query
    through a server-side cursor: one snapshot, constant memory.
    """
    bound, params = "", []
    if upto is not None:
        bound = " AND (txid, position) <= (%s::text::xid8, %s)"
        params = [str(upto[0]), upto[1]]
    tree, last = MerkleRoot(), (0, 0)
    with conn.transaction(), conn.cursor(name="checkpoint_digest") as cur:
        cur.itersize = 5000
        cur.execute(f"SELECT {COLUMNS} FROM events WHERE txid < pg_snapshot_xmin(pg_current_snapshot())"
                    f"{bound} ORDER BY txid, position", params)
        for row in cur:
            event = stored_event(row, None)  # the stored bytes: nothing to upcast
            tree.add(leaf(event))
            last = (event.txid, event.position)
    return {"txid": last[0], "position": last[1], "events": tree.count, "root": tree.root().hex()}


def _row(row: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": row[0], "recorded_at": row[1], "txid": row[2], "position": row[3],
            "events": row[4], "root": bytes(row[5]).hex()}


def record(conn: psycopg.Connection) -> dict[str, Any]:
    """Compute a digest of the log now and keep it in `audit_checkpoints`."""
    found = digest(conn)
    row = conn.execute(
        "INSERT INTO audit_checkpoints (txid, position, events, root)"
        f" VALUES (%s::text::xid8, %s, %s, %s) RETURNING {CHECKPOINT_COLUMNS}",
        (str(found["txid"]), found["position"], found["events"], bytes.fromhex(found["root"])),
    ).fetchone()
    assert row is not None
    return _row(row)


def listed(conn: psycopg.Connection, limit: int = 100) -> list[dict[str, Any]]:
    """The latest checkpoints, newest first."""
    rows = conn.execute(f"SELECT {CHECKPOINT_COLUMNS} FROM audit_checkpoints ORDER BY id DESC"
                        " LIMIT %s", (limit,)).fetchall()
    return [_row(r) for r in rows]


def compare(conn: psycopg.Connection, saved: dict[str, Any]) -> dict[str, Any]:
    """Whether the log still holds exactly the history a saved digest covered."""
    now = digest(conn, (int(saved["txid"]), int(saved["position"])))
    same = now["events"] == saved["events"] and now["root"] == saved["root"]
    return {"passed": same, "saved": {k: saved[k] for k in ("txid", "position", "events", "root")},
            "recomputed": now}
