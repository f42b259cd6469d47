"""The precompiled payload checks accept exactly what marshmallow accepts, on generated payloads."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates

from events.catalog import ACCOUNT, GameEventSchema, default_types
from events.fastcheck import compile_check
from events.model import InvalidEvent, NewEvent
from events.types import EventTypes

TYPES = default_types()
SCHEMAS: dict[str, Schema] = {name: t.schema for name, t in TYPES._types.items()}
SCHEMAS["game.*"] = GameEventSchema()

WILD = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
    st.binary(max_size=4), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=2), st.tuples(st.text(max_size=2)),
)


def typed(field: fields.Field) -> st.SearchStrategy[Any]:
    """Values of the very type `field` loads, near its validators' edges."""
    if isinstance(field, fields.String):
        strategies = [st.text(max_size=6), st.text(min_size=95, max_size=205)]
        if any(v is ACCOUNT for v in field.validators):
            strategies.append(st.from_regex(ACCOUNT.regex))
        return st.one_of(*strategies)
    if isinstance(field, fields.Integer):
        return st.one_of(st.integers(-3, 3), st.integers())
    if isinstance(field, fields.Float):
        return st.one_of(st.floats(), st.integers(-3, 3))
    if isinstance(field, fields.Boolean):
        return st.booleans()
    if isinstance(field, fields.Dict):
        return st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=3), max_size=3)
    if isinstance(field, fields.List):
        return st.lists(typed(field.inner) | st.none(), max_size=3)
    raise AssertionError(field)


@st.composite
def payloads(draw: st.DrawFn, schema: Schema, wild: bool) -> dict[Any, Any]:
    data: dict[Any, Any] = {}
    for name, field in schema.load_fields.items():
        key = field.data_key or name
        choice = draw(st.sampled_from(["value", "value", "value", "none", "missing", "wild"]
                                      if wild else ["value", "value", "value", "none", "missing"]))
        if choice == "value":
            data[key] = draw(typed(field))
        elif choice == "none":
            data[key] = None
        elif choice == "wild":
            data[key] = draw(WILD)
    if draw(st.integers(0, 9)) == 0:
        data[draw(st.sampled_from(["from_", "extra", "", 1]))] = draw(WILD)
    return data


def marshmallow_accepts(schema: Schema, data: Any) -> bool:
    return not schema.validate(data)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_catalog_schema_has_a_fast_check(name: str):
    assert compile_check(SCHEMAS[name]) is not None


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_on_typed_payloads_the_check_and_marshmallow_agree(name: str, data: st.DataObject):
    schema = SCHEMAS[name]
    payload = data.draw(payloads(schema, wild=False))
    check = compile_check(schema)
    assert check is not None
    assert check(payload) == marshmallow_accepts(schema, payload)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_check_never_accepts_what_marshmallow_refuses(name: str, data: st.DataObject):
    schema = SCHEMAS[name]
    payload = data.draw(payloads(schema, wild=True) | WILD)
    check = compile_check(schema)
    assert check is not None
    if check(payload):
        assert marshmallow_accepts(schema, payload)


def _marshmallow_only(types: EventTypes) -> EventTypes:
    types._check = lambda schema: lambda data: False  # type: ignore[method-assign]
    return types


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(TYPES._types)), data=st.data())
def test_the_registry_accepts_and_refuses_as_marshmallow_alone_does(name: str, data: st.DataObject):
    payload = data.draw(payloads(SCHEMAS[name], wild=True))
    event = NewEvent(name, payload)
    outcomes = []
    for types in (default_types(), _marshmallow_only(default_types())):
        try:
            types.validate(event)
            outcomes.append(None)
        except InvalidEvent as e:
            outcomes.append(e.errors)
    assert outcomes[0] == outcomes[1]


def test_known_valid_and_invalid_payloads():
    posting = {"from": "wallet:a", "to": "wallet:b", "amount": 5, "reason": "r"}
    check = compile_check(SCHEMAS["TreasurePosted"])
    assert check is not None
    assert check(posting)
    assert check({**posting, "table": None, "hand": "h1"})
    for bad in ({**posting, "amount": 0}, {**posting, "amount": True}, {**posting, "amount": 5.0},
                {**posting, "from": "nobody"}, {**posting, "reason": ""}, {**posting, "x": 1},
                {**posting, "from_": "wallet:a"}, {k: v for k, v in posting.items() if k != "to"},
                {**posting, "to": None}, [posting]):
        assert not check(bad)


class WithHook(Schema):
    name = fields.String(required=True)

    @validates("name")
    def not_bob(self, value: str, **kwargs: Any) -> None:
        if value == "bob":
            raise ValidationError("no bobs")


class Excluding(Schema):
    class Meta:
        unknown = EXCLUDE

    name = fields.String(required=True)


class WithNested(Schema):
    inner = fields.Nested(WithHook)


class WithCustomValidator(Schema):
    name = fields.String(validate=lambda v: v != "bob")


class WithEmail(Schema):
    email = fields.Email()


class WithDictValidator(Schema):
    options = fields.Dict(validate=validate.Length(max=1))


class WithOwnTruth(Schema):
    name = fields.Boolean(truthy={"yes"}, falsy={"no"})


@pytest.mark.parametrize("schema", [WithHook(), Excluding(), WithNested(), WithCustomValidator(),
                                    WithEmail(), WithDictValidator(), WithHook(partial=True),
                                    WithHook(many=True), WithOwnTruth()])
def test_anything_not_simple_is_left_to_marshmallow(schema: Schema):
    assert compile_check(schema) is None
    types = EventTypes()
    types.register("Thing", schema)
    payload = {"name": "bob", "email": "x", "inner": {"name": "bob"}, "options": {"a": 1, "b": 2}}
    if schema.validate(payload):
        with pytest.raises(InvalidEvent):
            types.validate(NewEvent("Thing", payload))
    else:
        types.validate(NewEvent("Thing", payload))
