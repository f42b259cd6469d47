"""Merkle inclusion proofs: that one event is a leaf of a checkpoint's root.

The checkpoint's fold (`merkle.MerkleRoot`: perfect subtrees joined from the right) gives the
tree of RFC 9162 (Certificate Transparency 2.0), section 2.1.1, so its audit paths
(section 2.1.3) and their verification apply as published: anyone can check one with a few
lines of any language (`verifier/` does, in Python and JavaScript).
"""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg

from events.model import StoredEvent
from events.postgres import COLUMNS, stored_event
from service.verification.merkle import MerkleRoot, leaf


def _split(size: int) -> int:
    """The largest power of two below `size` (size >= 2)."""
    return 1 << ((size - 1).bit_length() - 1)


def path_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """The leaf ranges whose roots make leaf `index`'s audit path in a tree of `size`, from the
    leaf up (RFC 9162 PATH(m, D[n]))."""
    out: list[tuple[int, int]] = []
    lo, hi = 0, size
    while hi - lo > 1:
        k = _split(hi - lo)
        if index < lo + k:
            out.append((lo + k, hi))
            hi = lo + k
        else:
            out.append((lo, lo + k))
            lo = lo + k
    return list(reversed(out))


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def verify(leaf_hash: bytes, index: int, size: int, path: list[bytes], root: bytes) -> bool:
    """RFC 9162 section 2.1.3.2: the audit path takes `leaf_hash` at `index` to `root`."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf_hash
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = _node(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = _node(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def leaf_index(conn: psycopg.Connection, event: StoredEvent) -> int:
    """The event's place among the log's leaves (events in (txid, position) order)."""
    row = conn.execute("SELECT count(*) FROM events WHERE (txid, position) < (%s::text::xid8, %s)",
                       (str(event.txid), event.position)).fetchone()
    assert row is not None
    return int(row[0])


def proofs(conn: psycopg.Connection, events: list[StoredEvent],
           checkpoint: dict[str, Any]) -> tuple[list[dict[str, Any]], bytes]:
    """Each event's audit path to `checkpoint` (all at or before its watermark), and the root
    those leaves fold to, recomputed in one read of the log up to the watermark."""
    size = int(checkpoint["events"])
    wanted = []
    for event in events:
        index = leaf_index(conn, event)
        wanted.append((index, path_ranges(index, size)))
    # Every range's root, folded as the leaves pass (constant memory per range).
    folds: dict[tuple[int, int], MerkleRoot] = {r: MerkleRoot() for _, ranges in wanted for r in ranges}
    starts: dict[int, list[tuple[int, int]]] = {}
    for r in folds:
        starts.setdefault(r[0], []).append(r)
    whole = MerkleRoot()
    open_ranges: list[tuple[int, int]] = []
    with conn.transaction(), conn.cursor(name="inclusion_proof") as cur:
        cur.itersize = 5000
        cur.execute(f"SELECT {COLUMNS} FROM events WHERE (txid, position) <= (%s::text::xid8, %s)"
                    " ORDER BY txid, position", (str(checkpoint["txid"]), checkpoint["position"]))
        for i, row in enumerate(cur):
            digest = leaf(stored_event(row, None))
            whole.add(digest)
            open_ranges = [r for r in open_ranges if r[1] > i] + starts.get(i, [])
            for r in open_ranges:
                folds[r].add(digest)
    out = [{"leaf_index": index, "tree_size": size,
            "path": [folds[r].root().hex() for r in ranges]} for index, ranges in wanted]
    return out, whole.root()
