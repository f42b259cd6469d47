"""Decks from seeds, by Banco's published recipe (its docs/fair-decks.md), written anew here."""

from __future__ import annotations

import hashlib
import hmac

SUITS_FR = ["s", "h", "d", "c"]
SUITS_ES = ["o", "c", "e", "b"]


def composition(game: str, options: dict) -> list[str] | None:
    """The unshuffled deck of `game` (its options for Casino pirate, each count checked in the
    range the rules allow: `checks.DECK_OPTIONS`); None for a game unknown here."""
    if game == "sette-e-mezzo":
        return [r + s for s in SUITS_FR for r in ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]]
    if game == "siete-y-media":
        return [r + s for s in SUITS_ES for r in ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"]]
    if game == "casino-pirate":
        out = [f"gem{v}.{i}" for v in range(1, 8) for i in range(1, int(options["gems"]) + 1)]
        out += [f"gold.{i}" for i in range(1, int(options["gold_coins"]) + 1)]
        out += [f"pebble.{i}" for i in range(1, int(options["pebbles"]) + 1)]
        return out + [f"skeleton.{i}" for i in range(1, int(options["skeletons"]) + 1)]
    if game == "pirate-pairs":
        return [f"{v}.{i}" for v in range(1, 11) for i in range(1, v + 1)]
    if game == "cassino":
        ranks = ["A", *[str(n) for n in range(2, 11)], "J", "Q", "K"]
        return [r + s for s in SUITS_FR for r in ranks]
    return None


def commitment(server_seed: str) -> str:
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def shuffle(cards: list[str], server_seed: str, player_seeds: list[str], label: str = "deck") -> list[str]:
    """Fisher-Yates driven by HMAC-SHA256(key, label || counter) words, without modulo bias."""
    h = hashlib.sha256(bytes.fromhex(server_seed))
    for seed in player_seeds:
        raw = seed.encode("utf-8")
        h.update(len(raw).to_bytes(4, "big") + raw)
    key = h.digest()
    words: list[int] = []
    counter = 0

    def next_word() -> int:
        nonlocal counter
        if not words:
            block = hmac.new(key, label.encode("utf-8") + counter.to_bytes(8, "big"), hashlib.sha256).digest()
            words.extend(int.from_bytes(block[i:i + 4], "big") for i in range(0, 32, 4))
            counter += 1
        return words.pop(0)

    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        x = next_word()
        while x >= limit:
            x = next_word()
        j = x % n
        out[i], out[j] = out[j], out[i]
    return out
