"""A player's personal data, sealed in the log under a key of his own that erasure destroys.

The event log is append-only and hash-chained, so nothing in it can be deleted. What a player
gives that identifies him (his name) is therefore stored there only encrypted (AES-256-GCM, bound
to his id) under a key kept in `player_keys`, a table outside the log. Erasing him deletes that
key: the ciphertext stays, so every hash, checkpoint and verification still holds, but nobody can
read it any more (crypto-shredding).

`name_of` is the one place the read path turns a registration back into a name: the players
projection calls it at append time and on rebuild, and any other reader of the raw log must too.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from typing import Any

import psycopg
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

NONCE_BYTES = 12  # AES-GCM's standard nonce, random for each seal: a key seals few texts


def _aad(player_id: str, field: str) -> bytes:
    # Bound to whose field it is: a ciphertext copied into another player's event does not open.
    return f"{field}:{player_id}".encode()


def new_key(conn: psycopg.Connection, player_id: str) -> bytes:
    """Create the player's key in the key table (in the caller's transaction) and return it."""
    key = AESGCM.generate_key(bit_length=256)
    conn.execute("INSERT INTO player_keys (player_id, key) VALUES (%s, %s)", (player_id, key))
    return key


def key_of(conn: psycopg.Connection, player_id: str) -> bytes | None:
    """The player's key, or None once he was erased (or for a player registered before keys)."""
    row = conn.execute("SELECT key FROM player_keys WHERE player_id = %s", (player_id,)).fetchone()
    return None if row is None else bytes(row[0])


def seal(key: bytes, player_id: str, field: str, text: str) -> str:
    """`text` encrypted under the player's key, as base64url text for a JSON payload."""
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(key).encrypt(nonce, text.encode(), _aad(player_id, field))
    return base64.urlsafe_b64encode(nonce + sealed).decode()


def unseal(key: bytes, player_id: str, field: str, sealed: str) -> str | None:
    """What `seal` sealed under `key` for this owner and field; None if it was not."""
    raw = base64.urlsafe_b64decode(sealed)
    try:
        plain = AESGCM(key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], _aad(player_id, field))
    except InvalidTag:
        return None  # not sealed under this key: as unreadable as an erased one
    return plain.decode()


def shred(conn: psycopg.Connection, player_id: str) -> bool:
    """Destroy the player's key (in the caller's transaction); False if there was none."""
    return conn.execute("DELETE FROM player_keys WHERE player_id = %s RETURNING 1",
                        (player_id,)).fetchone() is not None


def name_of(registration: Mapping[str, Any], key: bytes | None) -> str | None:
    """The name a `PlayerRegistered` payload holds, read with the player's key; None once his
    key is destroyed. A registration recorded before names were sealed holds it in clear."""
    if "name" in registration:
        return str(registration["name"])
    if key is None:
        return None
    return unseal(key, registration["player_id"], "name", registration["name_enc"])
