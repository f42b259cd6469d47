"""RFC 3161 time-stamps of checkpoints: a time-stamping authority outside Banco signs that the
checkpoint's statement (its root, size and watermark: `checkpoints.statement`) existed at a time.

An auditor who kept nothing of Banco's can then show a root existed then, with `openssl ts
-verify` and the authority's certificate. A stamp is asked once, when the checkpoint is recorded;
an authority that does not answer leaves the checkpoint recorded, unstamped.
"""

from __future__ import annotations

import hashlib
import logging
import urllib.request
from typing import Any

import psycopg
from rfc3161_client import HashAlgorithm, PKIStatus, TimestampRequestBuilder, decode_timestamp_response

from service.verification.checkpoints import statement

log = logging.getLogger("banco.timestamps")
TIMEOUT_S = 10.0


class TimestampRefused(Exception):
    """The authority's answer is no stamp of what was asked."""


def request(url: str, data: bytes, timeout: float = TIMEOUT_S) -> bytes:
    """The authority's reply (DER) stamping SHA-256 of `data`, checked to be a granted stamp of
    exactly that digest and nonce."""
    query = (TimestampRequestBuilder().data(data).hash_algorithm(HashAlgorithm.SHA256)
             .nonce(nonce=True).cert_request(cert_request=True).build())
    asked = urllib.request.Request(url, data=query.as_bytes(), method="POST",
                                   headers={"Content-Type": "application/timestamp-query"})
    with urllib.request.urlopen(asked, timeout=timeout) as answer:
        reply = answer.read()
    try:
        decoded = decode_timestamp_response(reply)
    except ValueError as e:
        raise TimestampRefused(f"not a time-stamp reply: {e}") from e
    if decoded.status not in (PKIStatus.GRANTED, PKIStatus.GRANTED_WITH_MODS):
        raise TimestampRefused(f"refused: {decoded.status_string}")
    info = decoded.tst_info
    if info.message_imprint.message != hashlib.sha256(data).digest() or info.nonce != query.nonce:
        raise TimestampRefused("the stamp is not of the digest asked")
    return reply


def stamp(conn: psycopg.Connection, checkpoint: dict[str, Any], url: str) -> bytes | None:
    """Ask `url` to stamp the checkpoint's statement and keep the reply with it; None (logged)
    when the authority cannot be reached or answers no stamp."""
    try:
        reply = request(url, statement(checkpoint).encode())
    except (OSError, TimestampRefused) as e:
        log.warning("checkpoint %s not time-stamped by %s: %s", checkpoint["id"], url, e)
        return None
    conn.execute("UPDATE audit_checkpoints SET timestamp_reply = %s, tsa_url = %s WHERE id = %s",
                 (reply, url, checkpoint["id"]))
    return reply
