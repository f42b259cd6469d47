"""The registry of event types: a schema each, and upcasters for old versions.

Nothing is appended unless its type is registered and its payload passes the schema; events
recorded under an older schema version are upcast on read, one version at a time.

Releasing a change to a payload (a field renamed, added without a default, retyped):

1. register the type with its new schema and `version` one higher (events/catalog.py), and
   write its events at that version (the store refuses any other);
2. register an upcaster from the previous version, a pure function from the old payload to the
   new one (`upcasters={n: fn}` or `@types.upcaster(name, n)`); each one takes one step, so a
   v1 event reaches v3 through v1→v2 and v2→v3, and old upcasters are never edited;
3. never rewrite stored events: the hash chains and checkpoints cover the stored bytes, and the
   stores upcast on read (`stored_event` in events/postgres.py, `_read` in events/memory.py), so
   projections, replays, verification and exports all see the current shape.

A field added with a default needs no new version: old payloads are valid as they are.

A schema is a msgspec Struct class (the catalog's, events/catalog.py) or a marshmallow Schema
instance. msgspec checks a payload in well under a microsecond for the catalog's flat payloads,
a twentieth of `Schema.validate`'s time, which a store append would pay for every event it
writes (bench/validate.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import marshmallow
import msgspec

from events.model import InvalidEvent, NewEvent, StoredEvent, UnreadableEvent

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
Schema = type[msgspec.Struct] | marshmallow.Schema
Errors = dict[str, list[str]]


def struct_errors(struct: type[msgspec.Struct], data: Any) -> Errors:
    """Every field's complaint about `data`, worded for a person, as marshmallow words them.

    msgspec stops at the first error; a refused payload is then checked field by field, so that
    the caller learns everything that is wrong at once.
    """
    if not isinstance(data, dict):
        return {"_schema": ["Invalid input type."]}
    errors: Errors = {}
    fields = msgspec.structs.fields(struct)
    for f in fields:
        if f.encode_name not in data:
            if f.required:
                errors[f.encode_name] = ["Missing data for required field."]
            continue
        try:
            msgspec.convert(data[f.encode_name], f.type)
        except msgspec.ValidationError as e:
            # "Expected `int`, got `str` - at `$[0]`": the path from the field's own name.
            errors[f.encode_name] = [str(e).replace("`$", f"`{f.encode_name}")]
    known = {f.encode_name for f in fields}
    errors.update({str(key): ["Unknown field."] for key in data if key not in known})
    return errors


def checker(schema: Schema) -> Callable[[Any], Errors | None]:
    """A function of a payload that returns its errors, or nothing if it is valid."""
    if isinstance(schema, marshmallow.Schema):
        return schema.validate
    if not (isinstance(schema, type) and issubclass(schema, msgspec.Struct)):
        raise TypeError(f"not a msgspec Struct class nor a marshmallow Schema instance: {schema!r}")
    convert, validation_error = msgspec.convert, msgspec.ValidationError

    def check(data: Any) -> Errors | None:
        try:
            convert(data, schema)
        except validation_error:
            return struct_errors(schema, data)
        return None

    return check


@dataclass
class EventType:
    """A registered type: its current schema version and the upcasters from older ones."""

    name: str
    schema: Schema
    version: int = 1
    upcasters: dict[int, Upcaster] = field(default_factory=dict)
    check: Callable[[Any], Errors | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.check = checker(self.schema)


class EventTypes:
    """A set of registered event types."""

    def __init__(self) -> None:
        self._types: dict[str, EventType] = {}
        self._families: dict[str, EventType] = {}

    def register(self, name: str, schema: Schema, version: int = 1,
                 upcasters: Mapping[int, Upcaster] | None = None) -> None:
        """Register `name` with the schema of its current `version`: a msgspec Struct class
        (strict types, `forbid_unknown_fields=True` to refuse unknown keys) or a marshmallow
        Schema instance; `upcasters[n]` turns a version n payload into version n+1's. The
        upcasters already registered for `name` are kept: a new version only adds one."""
        kept = self._types[name].upcasters if name in self._types else {}
        self._types[name] = EventType(name, schema, version, {**kept, **(upcasters or {})})

    def register_family(self, prefix: str, schema: Schema) -> None:
        """Accept every type named `prefix...` with one schema (the games' own event types)."""
        self._families[prefix] = EventType(prefix, schema)

    def _family(self, name: str) -> EventType | None:
        for prefix, family in self._families.items():
            if name.startswith(prefix):
                return family
        return None

    def upcaster(self, name: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Decorator: turn a `from_version` payload of `name` into the next version's payload."""

        def add(fn: Upcaster) -> Upcaster:
            self._types[name].upcasters[from_version] = fn
            return fn

        return add

    def version(self, name: str) -> int:
        """The current schema version of `name` (1 for the games' families)."""
        known = self._types.get(name)
        return known.version if known is not None else 1

    def missing_upcasters(self) -> dict[str, list[int]]:
        """The versions of each type that no upcaster reads: empty when every old event can be."""
        return {name: gaps for name, known in self._types.items()
                if (gaps := [v for v in range(1, known.version) if v not in known.upcasters])}

    def __contains__(self, name: str) -> bool:
        return name in self._types or self._family(name) is not None

    def validate(self, event: NewEvent) -> None:
        """Raise `InvalidEvent` unless `event` is of a known type, current version, valid data."""
        known = self._types.get(event.type) or self._family(event.type)
        if known is None:
            raise InvalidEvent(event.type, "unknown event type")
        if event.schema_version != known.version:
            raise InvalidEvent(event.type, f"schema version {event.schema_version} is not current")
        errors = known.check(event.data)
        if errors:
            raise InvalidEvent(event.type, errors)

    def upcast(self, event: StoredEvent) -> StoredEvent:
        """The event in its type's current schema version, keeping what was stored.

        Raises `UnreadableEvent` for a version this registry cannot read rather than hand on a
        payload in a shape the readers do not expect.
        """
        current = self.version(event.type)
        if event.schema_version == current:
            return event
        if event.schema_version > current:
            raise UnreadableEvent(event.type, event.schema_version,
                                  f"newer than this release's version {current}")
        steps = self._types[event.type].upcasters
        # A copy, so that an upcaster may change the payload it is given without touching the
        # stored one (the in-memory store hands out its own dicts).
        data, version = copy.deepcopy(event.data), event.schema_version
        while version < current:
            if version not in steps:
                raise UnreadableEvent(event.type, version, f"no upcaster to version {version + 1}")
            data = steps[version](data)
            version += 1
        return replace(event, data=data, schema_version=version,
                       stored=event.stored or (event.schema_version, event.data))
