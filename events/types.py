"""The registry of event types: a marshmallow schema each, and upcasters for old versions.

Nothing is appended unless its type is registered and its payload passes the schema; events
recorded under an older schema version are upcast on read, one version at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import marshmallow

from events.fastcheck import Check, compile_check
from events.model import InvalidEvent, NewEvent, StoredEvent

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class EventType:
    """A registered type: its current schema version and the upcasters from older ones."""

    name: str
    schema: marshmallow.Schema
    version: int = 1
    upcasters: dict[int, Upcaster] = field(default_factory=dict)


def _not_sure(data: Any) -> bool:
    return False


class EventTypes:
    """A set of registered event types."""

    def __init__(self) -> None:
        self._types: dict[str, EventType] = {}
        self._families: dict[str, marshmallow.Schema] = {}
        # Each schema's precompiled check (events/fastcheck.py), or None: marshmallow alone.
        self._checks: dict[int, tuple[marshmallow.Schema, Check | None]] = {}

    def register(self, name: str, schema: marshmallow.Schema, version: int = 1) -> None:
        """Register `name` with the schema of its current `version`."""
        self._types[name] = EventType(name, schema, version)

    def register_family(self, prefix: str, schema: marshmallow.Schema) -> None:
        """Accept every type named `prefix...` with one schema (the games' own event types)."""
        self._families[prefix] = schema

    def _family(self, name: str) -> marshmallow.Schema | None:
        return next((s for p, s in self._families.items() if name.startswith(p)), None)

    def upcaster(self, name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Decorator: turn a `from_version` payload of `name` into the next version's payload."""

        def add(fn: Upcaster) -> Upcaster:
            self._types[name].upcasters[from_version] = fn
            return fn

        return add

    def __contains__(self, name: str) -> bool:
        return name in self._types or self._family(name) is not None

    def validate(self, event: NewEvent) -> None:
        """Raise `InvalidEvent` unless `event` is of a known type, current version, valid data."""
        known = self._types.get(event.type)
        if known is None:
            family = self._family(event.type)
            if family is None:
                raise InvalidEvent(event.type, "unknown event type")
            known = EventType(event.type, family)
        if event.schema_version != known.version:
            raise InvalidEvent(event.type, f"schema version {event.schema_version} is not current")
        if self._check(known.schema)(event.data):
            return
        # Not certainly valid: marshmallow decides, and words the errors.
        errors = known.schema.validate(event.data)
        if errors:
            raise InvalidEvent(event.type, errors)

    def _check(self, schema: marshmallow.Schema) -> Check:
        cached = self._checks.get(id(schema))
        if cached is None or cached[0] is not schema:
            cached = self._checks[id(schema)] = (schema, compile_check(schema))
        return cached[1] or _not_sure

    def upcast(self, event: StoredEvent) -> StoredEvent:
        """The event in its type's current schema version."""
        known = self._types.get(event.type)
        if known is None or event.schema_version >= known.version:
            return event
        data, version = event.data, event.schema_version
        while version < known.version:
            data = known.upcasters[version](data)
            version += 1
        return replace(event, data=data, schema_version=version)
