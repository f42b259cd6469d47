"""A table's snapshot as stored and passed between processes: its engine state as msgspec JSON,
in an envelope that names the version of the state's shape (its `SCHEMA`).

Nothing in the bytes names a class: they decode only into the state type of the table's engine
(`Engine.state_type`), a phase picked by its tag among that type's own. A stored row can neither
run code in the process that reads it (as a pickle could) nor become unreadable when a class is
renamed; a changed shape raises the state's `SCHEMA`, and a migration re-derives the stored
snapshots from the tables' events (`projections.table_fold.resnapshot`).
"""

from __future__ import annotations

import threading
from typing import Any, Generic, TypeVar

import msgspec

S = TypeVar("S")


class StaleSnapshot(ValueError):
    """A snapshot that does not decode into its state type at the schema version it has now."""


class _Envelope(msgspec.Struct, Generic[S]):
    schema: int
    state: S


_encoder = msgspec.json.Encoder()

# The state this thread encoded last, and its bytes: a move's table is encoded for its row and
# again for the node's streamers (`projections.tables.passed`), the same state both times.
# States are never changed in place (the engines make a new one for each event), so the same
# object is the same bytes; held here, it cannot be collected and its id taken by another.
_last = threading.local()


def encode(state: Any) -> bytes:
    """The stored form of an engine state."""
    last = getattr(_last, "encoded", None)
    if last is not None and last[0] is state:
        return last[1]
    data = _encode(state)
    _last.encoded = (state, data)
    return data


def _encode(state: Any) -> bytes:
    # Dicts sorted by key and sets in order, so that the same state is the same bytes whichever
    # way it was reached (a rebuild's fold against the live path's, whose events' data come
    # back from jsonb with their keys in another order). Sorting wants str keys: a state's int
    # keys (seats) are written as JSON writes them anyway, and decode back to ints.
    builtins = msgspec.to_builtins(_Envelope(type(state).SCHEMA, state), str_keys=True,
                                   order="deterministic")
    return _encoder.encode(builtins)


_decoders: dict[type[Any], msgspec.json.Decoder[_Envelope[Any]]] = {}


def _decoder(state_type: type[Any]) -> msgspec.json.Decoder[_Envelope[Any]]:
    # Made once per type (threads that race here make the same one: no lock needed).
    found = _decoders.get(state_type)
    if found is None:
        found = _decoders[state_type] = msgspec.json.Decoder(_Envelope[state_type])  # type: ignore[valid-type]
    return found


def decode(state_type: type[Any], data: bytes) -> Any:
    """The state `encode` stored; `StaleSnapshot` for bytes that are not one of `state_type` at
    its schema version (of an older shape, or no snapshot at all: they are never run)."""
    try:
        envelope = _decoder(state_type).decode(data)
    except msgspec.DecodeError as e:
        raise StaleSnapshot(f"not a {state_type.__qualname__} snapshot of schema"
                            f" {state_type.SCHEMA}: {e}") from e
    if envelope.schema != state_type.SCHEMA:
        raise StaleSnapshot(f"a {state_type.__qualname__} snapshot of schema {envelope.schema},"
                            f" read at schema {state_type.SCHEMA}")
    return envelope.state
