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
    # In one statement, so one snapshot: the events were read before, and a stream written since
    # (a table still in play) has a later head. Its head must be its last event's hash, no event
    # may lie past it, and what was read must be its beginning, link for link.
    row = conn.execute(
        "SELECT s.version, s.head, (SELECT max(version) FROM events WHERE stream_id = s.stream_id),"
        " (SELECT hash FROM events WHERE stream_id = s.stream_id AND version = s.version),"
        " (SELECT hash FROM events WHERE stream_id = s.stream_id AND version = %s)"
        " FROM streams s WHERE s.stream_id = %s", (len(events), stream)).fetchone()
    if (row is None or row[2] != row[0] or row[3] is None or bytes(row[1]) != bytes(row[3])
            or row[4] is None or bytes(row[4]) != head):
        return failed("integrity.chain", events[-1], "the stream's head is not the last link",
                      head=None if row is None else bytes(row[1]).hex(), recomputed=head.hex())
    return passed("integrity.chain", stream=stream, events=len(events), head=head.hex())
