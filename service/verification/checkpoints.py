"""Checkpoints: a Merkle root over the global log up to a watermark, recorded and compared.

A checkpoint is recorded incrementally: it takes the latest one's frontier (the roots of the
perfect subtrees its root was folded from) and folds in only the events after its watermark, so
its cost follows the events since, not the log's size. Its root is exactly the one a fold over
the whole log gives (the leaves come in the same order), which is what `compare` recomputes.
"""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

import psycopg

from events.postgres import COLUMNS, stored_event
from service.verification.merkle import MerkleRoot, leaf

CHECKPOINT_COLUMNS = "id, recorded_at, txid::text::bigint, position, events, root"


def _fold(conn: psycopg.Connection, tree: MerkleRoot, after: tuple[int, int] | None,
          upto: tuple[int, int] | None) -> dict[str, Any]:
    """Fold into `tree` every event below the snapshot's xmin, after `after` and at or before
    `upto` (when given), in log order.

    Below xmin every writing transaction has finished, so nothing can later appear among the
    events covered (the same watermark as `PostgresEventStore.read_all`): in particular nothing
    at or before a previous checkpoint's watermark, which is why a fold may resume after it. The
    read is one query through a server-side cursor: one snapshot, constant memory.
    """
    bound, params = "", []
    if after is not None:
        bound += " AND (txid, position) > (%s::text::xid8, %s)"
        params += [str(after[0]), after[1]]
    if upto is not None:
        bound += " AND (txid, position) <= (%s::text::xid8, %s)"
        params += [str(upto[0]), upto[1]]
    last = after or (0, 0)
    with conn.transaction(), conn.cursor(name="checkpoint_digest") as cur:
        cur.itersize = 5000
        cur.execute(f"SELECT {COLUMNS} FROM events WHERE txid < pg_snapshot_xmin(pg_current_snapshot())"
                    f"{bound} ORDER BY txid, position", params)
        for row in cur:
            event = stored_event(row, None)  # the stored bytes: nothing to upcast
            tree.add(leaf(event))
            last = (event.txid, event.position)
    return {"txid": last[0], "position": last[1], "events": tree.count, "root": tree.root().hex(),
            "frontier": tree.frontier()}


def digest(conn: psycopg.Connection, upto: tuple[int, int] | None = None) -> dict[str, Any]:
    """The root over every event below the snapshot's xmin (and at or before `upto`), read from
    the log's start."""
    found = _fold(conn, MerkleRoot(), None, upto)
    del found["frontier"]
    return found


def _resumable(conn: psycopg.Connection) -> tuple[MerkleRoot, tuple[int, int]] | None:
    """The latest checkpoint's fold and watermark, when its frontier folds to its own root and
    count (one recorded before frontiers were kept, or a frontier altered since, does not)."""
    row = conn.execute("SELECT txid::text::bigint, position, events, root, frontier"
                       " FROM audit_checkpoints WHERE frontier IS NOT NULL"
                       " ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        return None
    try:
        tree = MerkleRoot.resumed(bytes(row[4]))
    except ValueError:
        return None
    if tree.count != row[2] or tree.root() != bytes(row[3]):
        return None
    return tree, (int(row[0]), int(row[1]))


def _row(row: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": row[0], "recorded_at": row[1], "txid": row[2], "position": row[3],
            "events": row[4], "root": bytes(row[5]).hex()}


def record(conn: psycopg.Connection) -> dict[str, Any]:
    """Compute a digest of the log now, from the latest checkpoint on, and keep it in
    `audit_checkpoints`."""
    resumed = _resumable(conn)
    found = (_fold(conn, MerkleRoot(), None, None) if resumed is None
             else _fold(conn, resumed[0], resumed[1], None))
    row = conn.execute(
        "INSERT INTO audit_checkpoints (txid, position, events, root, frontier)"
        f" VALUES (%s::text::xid8, %s, %s, %s, %s) RETURNING {CHECKPOINT_COLUMNS}",
        (str(found["txid"]), found["position"], found["events"], bytes.fromhex(found["root"]),
         found["frontier"]),
    ).fetchone()
    assert row is not None
    return _row(row)


STATEMENT = "banco-checkpoint/1"


def statement(checkpoint: dict[str, Any]) -> str:
    """The text that stands for a checkpoint outside Banco, signed by the house and stamped by
    a time-stamping authority: sorted keys, no spaces, ASCII only, its time in UTC, so that any
    language reproduces and parses it byte for byte."""
    recorded = checkpoint["recorded_at"]
    return json.dumps({"format": STATEMENT, "id": checkpoint["id"], "txid": checkpoint["txid"],
                       "position": checkpoint["position"], "events": checkpoint["events"],
                       "root": checkpoint["root"],
                       "recorded_at": recorded if isinstance(recorded, str)
                       else recorded.astimezone(UTC).isoformat()},
                      sort_keys=True, separators=(",", ":"))


def listed(conn: psycopg.Connection, limit: int = 100) -> list[dict[str, Any]]:
    """The latest checkpoints, newest first."""
    rows = conn.execute(f"SELECT {CHECKPOINT_COLUMNS} FROM audit_checkpoints ORDER BY id DESC"
                        " LIMIT %s", (limit,)).fetchall()
    return [_row(r) for r in rows]


def compare(conn: psycopg.Connection, saved: dict[str, Any]) -> dict[str, Any]:
    """Whether the log still holds exactly the history a saved digest covered: recomputed from
    the log's start, never from a kept frontier."""
    now = digest(conn, (int(saved["txid"]), int(saved["position"])))
    same = now["events"] == saved["events"] and now["root"] == saved["root"]
    return {"passed": same, "saved": {k: saved[k] for k in ("txid", "position", "events", "root")},
            "recomputed": now}
