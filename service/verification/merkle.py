"""A Merkle root over the global log: one leaf per event, computed in constant memory per level."""

from __future__ import annotations

import hashlib

from events.model import StoredEvent

EMPTY = hashlib.sha256(b"").digest()


def leaf(event: StoredEvent) -> bytes:
    """An event's leaf: its place, its canonical content as stored and its stored chain hash."""
    canonical = event.canonical()
    head = f"{event.position}\n{event.stream_id}\n{event.version}\n{event.hash.hex()}\n"
    return hashlib.sha256(b"\x00" + head.encode() + canonical.encode()).digest()


def _node(left: bytes, right: bytes) -> bytes:
    # Leaves and nodes are hashed with different prefixes so that one can never pass for the other.
    return hashlib.sha256(b"\x01" + left + right).digest()


class MerkleRoot:
    """Folds leaves one at a time: a stack of perfect subtrees, at most log2(n) of them."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, bytes]] = []
        self.count = 0

    def add(self, digest: bytes) -> None:
        """Append a leaf, merging equal-height subtrees."""
        height = 0
        while self._stack and self._stack[-1][0] == height:
            _, left = self._stack.pop()
            digest = _node(left, digest)
            height += 1
        self._stack.append((height, digest))
        self.count += 1

    def frontier(self) -> bytes:
        """The subtrees as bytes (a height byte and a digest each): all a later fold needs."""
        return b"".join(bytes([height]) + digest for height, digest in self._stack)

    @classmethod
    def resumed(cls, frontier: bytes) -> MerkleRoot:
        """A fold that carries on from `frontier` as the one that wrote it would have."""
        tree = cls()
        for at in range(0, len(frontier), 33):
            height, digest = frontier[at], frontier[at + 1:at + 33]
            if len(digest) != 32 or (tree._stack and tree._stack[-1][0] <= height):
                raise ValueError("not a Merkle frontier")
            tree._stack.append((height, digest))
            tree.count += 1 << height
        return tree

    def root(self) -> bytes:
        """The root: the perfect subtrees joined from the right."""
        if not self._stack:
            return EMPTY
        digest = self._stack[-1][1]
        for _, left in reversed(self._stack[:-1]):
            digest = _node(left, digest)
        return digest
