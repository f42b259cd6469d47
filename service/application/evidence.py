"""A hand's evidence bundle: one self-contained file a verifier checks with no access to Banco.

It holds the hand's events as stored (the exact canonical JSON each chain link hashed), the link
before them, the table's `TableCreated` (its options and rules version), the seeds and the
commitment, the postings, an inclusion proof of the last event it gives whole and of
`TableCreated` to a checkpoint, and that checkpoint signed with the house's Ed25519 key. That
event's hash closes the chain over every event before it, so its one proof covers them; the
events after it (withheld: they hide only secrets, never a posting) are held by their hashes
and by the attestation.

The house attests the whole bundle (`attestation`): an Ed25519 signature, by the key that signs
the checkpoints, over the bundle's canonical JSON without the signature itself. The viewer,
what a withheld event shows him, the summary fields and each event's time and place are the
house's word, which no chain link covers: signed, an edit to any of them shows.

A caller who may not see an event whole (a card hidden from his seat, a seed kept from all but
auditors, another seat's move that names a card in secret) gets it withheld: its hash and place,
which the chain still needs, and the event as the engines' redaction shows it to him; never its
stored bytes. Everything else he gets as stored, other seats' public moves included, and a
settled hand that hides nothing from him any more (`_open_to`) whole.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.model import StoredEvent
from games.contract import GameInfo, Viewer, may_see
from service.application.principal import Principal
from service.application.redaction import Redactor, payload_shown
from service.runtime import house_key
from service.verification import checkpoints, inclusion, timestamps
from service.verification.attestation import attestation_text
from service.verification.checkpoints import CHECKPOINT_COLUMNS, statement
from service.verification.deck_check import bet_seeds
from service.verification.hand_log import HandLog, TableLog, is_game

FORMAT = "banco-evidence/2"


class NoCheckpointYet(Exception):
    """No checkpoint covers the hand's last event yet: a transaction older than it is still
    open, so no digest may include it. Asking again in a moment finds one."""


class CheckpointDiffers(Exception):
    """The log up to a checkpoint no longer folds to its root: what it covered has changed."""


def signed(key: Ed25519PrivateKey, checkpoint: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint's statement with the house's signature over its UTF-8 bytes (Ed25519 is
    deterministic: the same checkpoint is always signed alike)."""
    text = statement(checkpoint)
    return {"statement": text, "algorithm": "Ed25519",
            "signature": base64.b64encode(key.sign(text.encode())).decode(),
            "public_key": house_key.public_b64(key), "key_id": house_key.key_id(key)}


def covering(conn: psycopg.Connection, event: StoredEvent) -> dict[str, Any] | None:
    """The first checkpoint whose watermark is at or after `event`."""
    row = conn.execute(f"SELECT {CHECKPOINT_COLUMNS}, timestamp_reply, tsa_url FROM audit_checkpoints"
                       " WHERE (txid, position) >= (%s::text::xid8, %s) ORDER BY id LIMIT 1",
                       (str(event.txid), event.position)).fetchone()
    if row is None:
        return None
    return {"id": row[0], "recorded_at": row[1], "txid": row[2], "position": row[3],
            "events": row[4], "root": bytes(row[5]).hex(),
            "timestamp": None if row[6] is None else {
                "tsa_url": row[7], "reply": base64.b64encode(bytes(row[6])).decode(),
                "format": "RFC 3161 TimeStampResp (DER), over SHA-256 of the statement"}}


def checkpoint_for(conn: psycopg.Connection, event: StoredEvent,
                   record: Callable[[], None]) -> dict[str, Any]:
    """The checkpoint covering `event`, recorded now (`record`) when none does yet: a dispute
    need not wait for the next scheduled one."""
    found = covering(conn, event)
    if found is None:
        record()
        found = covering(conn, event)
    if found is None:
        raise NoCheckpointYet()
    return found


def _withheld(stored: StoredEvent, redactor: Redactor, viewer: Viewer, info: GameInfo,
              open_hand: bool = False) -> bool:
    """Whether the stored bytes of `stored` hold something `viewer` may not see (`open_hand`:
    nothing in its hand is hidden from him any more)."""
    if viewer.kind == "auditor":
        return False
    if open_hand and stored.stored is None:
        return False
    command = stored.metadata.get("command")
    if isinstance(command, dict) and "payload" in command and not payload_shown(command, viewer, info):
        return True  # another seat's move as sent names what he keeps secret (a hidden card)
    if stored.stored is not None:
        return True  # stored under an older schema: its bytes are not those redaction judged
    if is_game(stored):
        return not may_see(stored.data.get("visible_to"), viewer)
    return redactor.event(stored)["data"] != stored.data


def _open_to(hand: HandLog, redactor: Redactor, viewer: Viewer, info: GameInfo) -> bool:
    """Whether the settled hand hides nothing from `viewer` any more. The engines are
    deterministic: a viewer holding the revealed seed (so the deck, every pile and reshuffle)
    and the payload of every move can recompute every event of the hand, face-down cards
    included. Giving him their bytes tells him nothing new, and lets his verifier walk every
    deal. A move sent with a secret parameter (Casino pirate's hidden card, Pirate pairs'
    opening choice), or a seed kept for auditors, keeps the hand closed to him."""
    revealed = hand.find("SeedRevealed")
    if revealed is None or _withheld(revealed, redactor, viewer, info):
        return False
    for stored in hand.events:
        command = stored.metadata.get("command")
        if isinstance(command, dict) and "payload" in command \
                and not payload_shown(command, viewer, info):
            return False
    return True


def _entry(stored: StoredEvent, redactor: Redactor, viewer: Viewer, info: GameInfo,
           open_hand: bool = False) -> dict[str, Any]:
    out = {"position": stored.position, "stream_id": stored.stream_id, "version": stored.version,
           "type": stored.type, "recorded_at": stored.recorded_at.isoformat(),
           "hash": stored.hash.hex()}
    if _withheld(stored, redactor, viewer, info, open_hand):
        return {**out, "canonical": None, "shown": redactor.event(stored)}
    return {**out, "canonical": stored.canonical()}


def bundle(conn: psycopg.Connection, hand: HandLog, table: TableLog, who: Principal, viewer: Viewer,
           key: Ed25519PrivateKey, record: Callable[[], None]) -> dict[str, Any]:
    """The hand's evidence bundle as `viewer` may receive it, attested by the house."""
    redactor = Redactor(conn, who)
    first, last = hand.events[0], hand.events[-1]
    created = table.events[0]
    before = table.events[first.version - 2] if first.version > 1 else None
    info = hand.engine.info
    open_hand = _open_to(hand, redactor, viewer, info)
    entries = [_entry(e, redactor, viewer, info, open_hand) for e in hand.events]
    # The last event given whole is the one proved: a hand nobody bet in ends with a seed
    # revealed to auditors only, whose text a player's bundle withholds. Every event after it
    # is withheld too: its hash is still covered by the checkpoint's (the proof of any event
    # covers the log before it, and the checkpoint covers the hand's last event).
    proven = next((i for i in range(len(entries) - 1, -1, -1)
                   if entries[i]["canonical"] is not None), None)
    if proven is None:
        raise ValueError(f"hand {hand.hand_id}: every event is withheld, nothing to prove")
    checkpoint = checkpoint_for(conn, last, record)
    proofs, root = inclusion.proofs(conn, [hand.events[proven], created], checkpoint)
    if root.hex() != checkpoint["root"]:
        raise CheckpointDiffers()
    revealed = hand.find("SeedRevealed")
    seed_shown = revealed is not None and not _withheld(revealed, redactor, viewer, info)
    return attested(key, {
        "format": FORMAT,
        "hand_id": hand.hand_id, "table_id": hand.table_id, "game": hand.game,
        "rules_version": hand.rules_version, "options": hand.options,
        "viewer": {"kind": viewer.kind, "seat": viewer.seat},
        "redacted": any(e["canonical"] is None for e in entries),
        "table_created": _entry(created, redactor, viewer, info),
        "chain": {"stream_id": first.stream_id, "first_version": first.version,
                  "previous_hash": "" if before is None else before.hash.hex()},
        "events": entries,
        "seeds": {"commitment": hand.began.data.get("commitment"),
                  "server_seed": hand.server_seed() if seed_shown else None,
                  # The joins' in seat order, then the bets' in the order they were placed:
                  # the seeds the cards were shuffled with (docs/fair-decks.md).
                  "player_seeds": [*(s.get("seed") or "" for s in hand.seats), *bet_seeds(hand)]},
        "postings": [e.data for e in hand.events if e.type == "TreasurePosted"],
        "checkpoint": {**signed(key, checkpoint), "timestamp": checkpoint["timestamp"]},
        "inclusion": {"last_event": {**proofs[0], "version": hand.events[proven].version},
                      "table_created": {**proofs[1], "version": created.version}},
    })


def attested(key: Ed25519PrivateKey, bundle: dict[str, Any]) -> dict[str, Any]:
    """`bundle` with the house's signature over all of it (deterministic, as Ed25519 is)."""
    out = {**bundle, "attestation": {"algorithm": "Ed25519", "key_id": house_key.key_id(key)}}
    out["attestation"]["signature"] = base64.b64encode(key.sign(attestation_text(out))).decode()
    return out


def record_checkpoint(conn: psycopg.Connection, tsa_url: str | None = None) -> None:
    """Record a checkpoint now on `conn` (an autocommit connection of the primary), stamped by
    the time-stamping authority at `tsa_url` when one is configured."""
    found = checkpoints.record(conn)
    if tsa_url:
        timestamps.stamp(conn, found, tsa_url)
