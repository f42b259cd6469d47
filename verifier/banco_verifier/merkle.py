"""RFC 9162 (Certificate Transparency 2.0) Merkle trees, as Banco's checkpoints use them."""

from __future__ import annotations

import hashlib


def leaf_hash(event: dict) -> bytes:
    """A log event's leaf: SHA-256 of 0x00, its place and chain hash, and its stored text."""
    head = f"{event['position']}\n{event['stream_id']}\n{event['version']}\n{event['hash']}\n"
    return hashlib.sha256(b"\x00" + head.encode("utf-8") + event["canonical"].encode("utf-8")).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def included(leaf: bytes, index: int, size: int, path: list[bytes], root: bytes) -> bool:
    """RFC 9162 section 2.1.3.2: verifying an inclusion proof."""
    if index < 0 or index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            r = _node(p, r)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn //= 2
                    sn //= 2
        else:
            r = _node(r, p)
        fn //= 2
        sn //= 2
    return sn == 0 and r == root
