"""`replace` for the engines' frozen dataclasses: their states are copied on every event folded.

`dataclasses.replace` reads every field of the class and calls `__init__` with all of them as
keywords; a 7½ state has 25 fields, and an action folds several events, each one or two copies
(the hand, then the state). The engines' state classes are frozen dataclasses whose fields are
all set by `__init__` as given (no `__post_init__`, no `InitVar`, no `field(init=False)`), so
their instances hold their fields' values and nothing else: a copy of those with the changed
ones is the same value, made for a fraction of the work. Any other class goes to
`dataclasses.replace`.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, TypeVar

T = TypeVar("T")

# Each class's instance fields, or None when its instances are not plain copies (see above).
_fields: dict[type, frozenset[str] | None] = {}


def _plain_fields(cls: type) -> frozenset[str] | None:
    if cls in _fields:
        return _fields[cls]
    found = None
    if dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__") and not hasattr(
            cls, "__slots__"):
        fields = frozenset(f.name for f in dataclasses.fields(cls))
        # `__init__` takes exactly the fields: none left out of it, and no InitVar besides.
        taken = frozenset(inspect.signature(cls.__init__).parameters) - {"self"}
        if taken == fields:
            found = fields
    _fields[cls] = found
    return found


def replace(obj: T, **changes: Any) -> T:
    """`obj` with `changes`, as `dataclasses.replace` makes it."""
    cls = type(obj)
    fields = _plain_fields(cls)
    if fields is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    if not fields.issuperset(changes):
        unknown = sorted(set(changes) - fields)
        raise TypeError(f"{cls.__name__} has no field {unknown[0]!r}")
    new = object.__new__(cls)
    values = new.__dict__
    values.update(obj.__dict__)
    values.update(changes)
    return new
