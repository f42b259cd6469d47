"""The house's Ed25519 signing key: it signs the checkpoints that evidence bundles prove to.

The private key is a secret: kept in a file only its owner may read (PEM, PKCS#8), named to the
processes by its path (`BANCO_HOUSE_KEY_FILE`), never by its content, and never logged. Its
public key is served at `/.well-known/banco-house-key` and printed by `banco run`: anyone who
kept it can check a bundle without asking Banco anything.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey


class HouseKeyError(Exception):
    """The key file cannot be used: missing, unreadable, open to others, or not an Ed25519 key."""


def ensure(path: Path) -> Ed25519PrivateKey:
    """The key kept at `path`, generated there (readable by its owner only) on the first start."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        # Created with its final mode: the secret is never readable by others, even briefly.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
    return load(path)


def load(path: Path) -> Ed25519PrivateKey:
    """The key kept at `path`; refused when others may read the file."""
    try:
        if path.stat().st_mode & 0o077:
            raise HouseKeyError(f"{path}: the house key must be readable by its owner only (chmod 600)")
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except OSError as e:
        raise HouseKeyError(f"{path}: {e.strerror}") from e
    except ValueError as e:
        raise HouseKeyError(f"{path}: not a PEM private key") from e
    if not isinstance(key, Ed25519PrivateKey):
        raise HouseKeyError(f"{path}: not an Ed25519 key")
    return key


def public_raw(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """The 32 bytes of the public key."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def public_b64(key: Ed25519PrivateKey) -> str:
    """The public key as standard base64 (how bundles and the well-known document show it)."""
    return base64.b64encode(public_raw(key)).decode()


def key_id(key: Ed25519PrivateKey) -> str:
    """A short name for the key: the first 16 hex digits of SHA-256 of its public bytes."""
    return hashlib.sha256(public_raw(key)).hexdigest()[:16]


def public_pem(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()
