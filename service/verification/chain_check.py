"""The integrity check: a stream's hash chain recomputed from its stored events."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from events.model import StoredEvent, chain_hash
from service.verification.findings import Check, failed, passed


def link(previous: bytes, event: StoredEvent) -> bytes:
    """The hash `event` should carry after `previous`: over its payload as stored, so that
    upcasting an old event on read never changes what its chain proves."""
    return chain_hash(previous, event.canonical())


def chain_check(conn: psycopg.Connection, events: Sequence[StoredEvent]) -> Check:
    """Versions run 1..n, each hash is sha256(previous hash || canonical JSON), the head matches."""
    head = b""
    for expected_version, event in enumerate(events, 1):
        if event.version != expected_version:
            return failed("integrity.chain", event, f"version {expected_version} is missing")
        head = link(head, event)
        if head != event.hash:
            return failed("integrity.chain", event, "the stored hash does not match the event",
                          stored=event.hash.hex(), recomputed=head.hex())
    if not events:
        return passed("integrity.chain", events=0)
    stream = events[-1].stream_id
    row = conn.execute("SELECT version, head FROM streams WHERE stream_id = %s", (stream,)).fetchone()
    if row is None or row[0] != len(events) or bytes(row[1]) != head:
        return failed("integrity.chain", events[-1], "the stream's head is not the last link",
                      head=None if row is None else bytes(row[1]).hex(), recomputed=head.hex())
    return passed("integrity.chain", stream=stream, events=len(events), head=head.hex())
