"""Fair decks: exact compositions, commit-reveal seeds and a reproducible shuffle.

Anyone can recompute a hand's deck from its revealed seeds with this recipe (docs/fair-decks.md
publishes a test vector):

1. `commitment = SHA-256(server_seed_bytes)` is recorded before the deal; the seed itself is
   revealed when the hand ends. The seed is drawn by the application (32 random bytes, as hex:
   `service.application.handlers.new_server_seed`), never here: the rules are pure.
2. `key = SHA-256(server_seed_bytes || for each player seed in seat order: len32be || utf8)`;
   a Sette e mezzo deck shuffled again once bets carried seeds takes them after the seat order's,
   in the order the bets were placed (docs/fair-decks.md).
3. A stream of 32-bit big-endian integers comes from `HMAC-SHA256(key, label || counter64be)`
   blocks, counter 0, 1, 2, ...; each block gives eight integers.
4. `uniform(n)` takes the next integer `x`, rejects it while `x >= 2**32 - 2**32 % n` (so there is
   no modulo bias) and returns `x % n`.
5. Fisher-Yates: for `i` from `len-1` down to 1, swap position `i` with `uniform(i + 1)`.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence

from games.contract import SeedMaterial

Card = str

FRENCH_SUITS = ("s", "h", "d", "c")  # spades, hearts, diamonds, clubs
SPANISH_SUITS = ("o", "c", "e", "b")  # oros, copas, espadas, bastos


def italian_40() -> tuple[Card, ...]:
    """Sette e mezzo: a 52-card deck without 8, 9 and 10 (A..7, J, Q, K in four suits)."""
    ranks = ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
    return tuple(r + s for s in FRENCH_SUITS for r in ranks)


def spanish_40() -> tuple[Card, ...]:
    """Siete y media: 1..7 and sota/caballo/rey (10, 11, 12) in oros, copas, espadas, bastos."""
    ranks = ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12")
    return tuple(r + s for s in SPANISH_SUITS for r in ranks)


def pirate_casino(gems: int = 4, gold: int = 8, pebbles: int = 4, skeletons: int = 2) -> tuple[Card, ...]:
    """Casino pirate: `gems` of each gem 1..7, gold coins (½), pebbles (0) and skeletons (joker).

    Each physical card has a unique id (`gem5.2`, `gold.7`, ...) so hidden cards can be tracked.
    """
    cards = [f"gem{v}.{i}" for v in range(1, 8) for i in range(1, gems + 1)]
    cards += [f"gold.{i}" for i in range(1, gold + 1)]
    cards += [f"pebble.{i}" for i in range(1, pebbles + 1)]
    cards += [f"skeleton.{i}" for i in range(1, skeletons + 1)]
    return tuple(cards)


def pirate_pairs_55() -> tuple[Card, ...]:
    """Pirate pairs: one 1, two 2s, ..., ten 10s; `7.3` is the third 7."""
    return tuple(f"{v}.{i}" for v in range(1, 11) for i in range(1, v + 1))


def french_52() -> tuple[Card, ...]:
    """Cassino: the full 52-card deck, ranks A, 2..10, J, Q, K (`10d` is big casino)."""
    ranks = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    return tuple(r + s for s in FRENCH_SUITS for r in ranks)


def commitment(server_seed: str) -> str:
    """The SHA-256 commitment recorded before the deal."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def shuffle_key(material: SeedMaterial) -> bytes:
    """The HMAC key derived from the server seed and every player seed, in seat order."""
    h = hashlib.sha256(bytes.fromhex(material.server_seed))
    for text in material.player_seeds:
        raw = text.encode("utf-8")
        h.update(struct.pack(">I", len(raw)))
        h.update(raw)
    return h.digest()


def _words(key: bytes, label: str) -> Iterator[int]:
    counter = 0
    prefix = label.encode("utf-8")
    while True:
        block = hmac.new(key, prefix + struct.pack(">Q", counter), hashlib.sha256).digest()
        yield from struct.unpack(">8I", block)
        counter += 1


def shuffled(cards: Sequence[Card], material: SeedMaterial, label: str = "deck") -> tuple[Card, ...]:
    """The deck order for these seeds; `label` separates several shuffles within one hand."""
    words = _words(shuffle_key(material), label)
    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % n
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def verify(cards: Sequence[Card], material: SeedMaterial, recorded_commitment: str,
           dealt: Sequence[Card], label: str = "deck") -> bool:
    """True when the seed matches its commitment and `dealt` is a prefix of the recomputed deck."""
    if commitment(material.server_seed) != recorded_commitment:
        return False
    order = shuffled(cards, material, label)
    return tuple(dealt) == order[: len(dealt)]
