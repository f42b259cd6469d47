"""The catalog's msgspec payloads accept what its marshmallow schemas accepted, on generated payloads,
and never more; refused payloads get every field's error; marshmallow schemas still register."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates

from bench.validate_models import ACCOUNT, SCHEMAS
from events.catalog import GAME_EVENT_PREFIX, PAYLOADS, default_types
from events.model import InvalidEvent, NewEvent
from events.types import EventTypes

TYPES = default_types()
# Generated payloads per event type and test: 100 in the default suite, which must keep to its
# time on two cores; `./quickstart fuzz` draws 1,000.
EXAMPLES = int(os.environ.get("BANCO_PAYLOAD_EXAMPLES", "100"))
NAMES = [*sorted(PAYLOADS), GAME_EVENT_PREFIX + "CardDealt"]

WILD = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
    st.binary(max_size=4), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=2), st.tuples(st.text(max_size=2)),
)


def schema_of(name: str) -> Schema:
    """The marshmallow schema the catalog had for `name` before its Structs."""
    return SCHEMAS["GameEvent" if name.startswith(GAME_EVENT_PREFIX) else name]


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


def errors_of(name: str, data: Any) -> Any:
    try:
        TYPES.validate(NewEvent(name, data))
    except InvalidEvent as e:
        return e.errors
    return None


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_on_typed_payloads_the_registry_and_marshmallow_agree(name: str, data: st.DataObject):
    schema = schema_of(name)
    payload = data.draw(payloads(schema, wild=False))
    assert (errors_of(name, payload) is None) == (not schema.validate(payload))


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_registry_never_accepts_what_marshmallow_refuses(name: str, data: st.DataObject):
    """And names every field marshmallow names (it may refuse more: "5" for an integer)."""
    schema = schema_of(name)
    payload = data.draw(payloads(schema, wild=True) | WILD)
    refused = schema.validate(payload)
    errors = errors_of(name, payload)
    if refused:
        assert errors is not None
        assert {str(key) for key in refused} <= set(errors)


def test_known_valid_and_invalid_payloads():
    posting = {"from": "wallet:a", "to": "wallet:b", "amount": 5, "reason": "r"}
    assert errors_of("TreasurePosted", posting) is None
    assert errors_of("TreasurePosted", {**posting, "table": None, "hand": "h1"}) is None
    for bad in ({**posting, "amount": 0}, {**posting, "amount": True}, {**posting, "amount": 5.0},
                {**posting, "from": "nobody"}, {**posting, "reason": ""}, {**posting, "x": 1},
                {**posting, "from_": "wallet:a"}, {k: v for k, v in posting.items() if k != "to"},
                {**posting, "to": None}, [posting]):
        assert errors_of("TreasurePosted", bad)


def test_a_refused_payload_gets_every_fields_error_in_words():
    errors = errors_of("TreasurePosted", {"from": "nobody", "amount": 0, "reason": "r", "x": 1})
    assert errors == {
        "from": ["Expected `str` matching regex "
                 "'^(house:issued|wallet:[\\\\w-]+|(seat|escrow|pot):[\\\\w-]+:[\\\\w-]+)$'"],
        "to": ["Missing data for required field."],
        "amount": ["Expected `int` >= 1"],
        "x": ["Unknown field."],
    }
    assert errors_of("game.CardDealt", {"hand": "h", "data": {}, "visible_to": [1, "2"]}) == {
        "visible_to": ["Expected `int`, got `str` - at `visible_to[1]`"]}
    assert errors_of("DeadlineSet", []) == {"_schema": ["Invalid input type."]}
    assert errors_of("DeadlineSet", {"hand": "h", "seat": 1, "waiting_for": "play",
                                     "deadline": float("nan")}) is not None


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
def test_a_marshmallow_schema_registers_and_decides_alone(schema: Schema):
    types = EventTypes()
    types.register("Thing", schema)
    payload = {"name": "bob", "email": "x", "inner": {"name": "bob"}, "options": {"a": 1, "b": 2}}
    errors = schema.validate(payload)
    if errors:
        with pytest.raises(InvalidEvent) as refused:
            types.validate(NewEvent("Thing", payload))
        assert refused.value.errors == errors
    else:
        types.validate(NewEvent("Thing", payload))


def test_a_schema_that_is_neither_is_refused_at_registration():
    with pytest.raises(TypeError):
        EventTypes().register("Thing", WithHook)  # type: ignore[arg-type]
