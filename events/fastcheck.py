"""Precompiled payload checks for simple flat marshmallow schemas.

`Schema.validate` costs tens of microseconds per event (it builds error stores, closures and a
loaded copy of the payload), which a store append pays for every event it writes. Most of the
catalog's schemas are flat: strings, integers, booleans, plain dicts and lists of those, with
marshmallow's own `Regexp`, `Length`, `Range` and `OneOf` validators. For such a schema,
`compile_check` returns a function that answers in a microsecond or two whether a payload is
certainly valid.

The check only ever says "certainly valid" or "not sure": it accepts a value only when its type
is exactly the plain Python type the field loads (`str`, `int` but not `bool`, `bool`, `dict`,
`list`) and the field's validators, called as marshmallow calls them, pass. Anything else (a
missing required key, an unknown key, `None` where it is not allowed, a float, bytes, a subclass,
a failing validator) answers "not sure", and the caller then asks marshmallow itself, which
accepts or refuses and words the errors exactly as before. A schema with anything this module
does not know (hooks, other field types, options such as `unknown`, `partial` or `many`,
overridden loading methods, custom validators) gets no check at all: marshmallow decides alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate

Check = Callable[[Any], bool]

_VALIDATORS = (validate.Regexp, validate.Length, validate.Range, validate.OneOf)
_SCHEMA_METHODS = ("validate", "load", "_do_load", "_deserialize", "_invoke_load_processors",
                   "_invoke_field_validators", "_invoke_schema_validators", "handle_error")


def _plain(expected: type) -> Check:
    def check(value: Any) -> bool:
        return type(value) is expected

    return check


def _with_validators(base: Check, validators: list[Any]) -> Check:
    def check(value: Any) -> bool:
        if not base(value):
            return False
        try:
            for validator in validators:
                validator(value)
        except (ValidationError, TypeError, ValueError):
            return False
        return True

    return check


def _list_of(inner: Check, inner_allows_none: bool) -> Check:
    def check(value: Any) -> bool:
        if type(value) is not list:
            return False
        for item in value:
            if item is None:
                if not inner_allows_none:
                    return False
            elif not inner(item):
                return False
        return True

    return check


def _finite_float(value: object) -> bool:
    if type(value) is int:  # marshmallow turns it into a float; beyond 2**53 it may refuse
        return abs(value) < 2**53
    return type(value) is float and math.isfinite(value)


def _field_check(field: fields.Field) -> Check | None:
    """The check of one field's non-missing, non-None value, or None if it is not simple."""
    if field.pre_load or field.post_load:
        return None
    validators = list(field.validators)
    if any(type(v) not in _VALIDATORS for v in validators):
        return None
    kind = type(field)
    check: Check | None
    if kind is fields.String:
        check = _plain(str)
    elif kind is fields.Integer:
        check = _plain(int)  # `type(True) is bool`, so booleans are left to marshmallow
    elif isinstance(field, fields.Float) and kind is fields.Float and not field.allow_nan:
        # Finite floats and moderate integers are certainly valid; the rest go to marshmallow.
        check = _finite_float
    elif isinstance(field, fields.Boolean) and kind is fields.Boolean:
        # marshmallow accepts True and False only through its truthy and falsy sets.
        if True not in field.truthy or False not in field.falsy:
            return None
        check = _plain(bool)
    elif isinstance(field, fields.Dict) and kind is fields.Dict:
        if validators or field.key_field is not None or field.value_field is not None:
            return None
        check = _plain(dict)
    elif isinstance(field, fields.List) and kind is fields.List:
        inner = field.inner
        inner_check = _field_check(inner)
        if validators or inner_check is None:
            return None
        check = _list_of(inner_check, inner.allow_none)
    else:
        return None
    return _with_validators(check, validators) if validators else check


def compile_check(schema: Schema) -> Check | None:
    """A "certainly valid" check of `schema`'s payloads, or None if the schema is not simple."""
    cls = type(schema)
    if any(getattr(cls, m) is not getattr(Schema, m) for m in _SCHEMA_METHODS):
        return None
    if any(schema._hooks.values()) or schema.unknown != RAISE or schema.partial or schema.many:
        return None
    entries: list[tuple[str, bool, bool, Check]] = []
    for name, field in schema.load_fields.items():
        check = _field_check(field)
        if check is None:
            return None
        key = field.data_key if field.data_key is not None else name
        entries.append((key, field.required, field.allow_none, check))
    keys = frozenset(e[0] for e in entries)
    missing = object()

    def check_payload(data: Any) -> bool:
        if type(data) is not dict or not keys.issuperset(data):
            return False
        for key, required, allow_none, check in entries:
            value = data.get(key, missing)
            if value is missing:
                if required:
                    return False
            elif value is None:
                if not allow_none:
                    return False
            elif not check(value):
                return False
        return True

    return check_payload
