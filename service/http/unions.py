"""JSON objects that take one of several shapes, told apart by a tag property (an action's
`type`, a view's `game`), and the apispec converter that documents them as an OpenAPI `oneOf`
with a discriminator."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import marshmallow
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import resolve_schema_instance
from marshmallow import Schema, fields, validate

Alternatives = Mapping[str, type[Schema]]


def null() -> dict[str, Any]:
    """The null branch of a nullable reference in OpenAPI 3.0.3: null, and nothing else (a new
    dict each time: a shared one would be written to YAML as an alias)."""
    return {"type": "object", "nullable": True, "enum": [None]}


def tag(value: str, *values: str) -> fields.String:
    """The required tag property of one alternative: exactly `value` (or one of `values`)."""
    return fields.String(required=True, validate=validate.OneOf([value, *values]))


class Strict(Schema):
    """An object with exactly the properties declared (documented `additionalProperties: false`)."""

    class Meta:
        unknown = marshmallow.RAISE


class Union(Schema):
    """One of `alternatives` by the value of its `tag` property.

    Loaded and dumped as it is: the engines judge an action (a refusal is theirs to word, as
    `bad_action`), and responses are rendered before any schema sees them. The schema is the
    contract clients are generated from."""

    tag: ClassVar[str] = "type"
    alternatives: ClassVar[Alternatives] = {}

    class Meta:
        unknown = marshmallow.INCLUDE

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        return obj


class AnyOf(Union):
    """Any of `unions` (each a `Union`), whichever takes it: documented as `anyOf` them, for a
    value that several of them may take at once (an action shared by games)."""

    unions: ClassVar[tuple[type[Union], ...]] = ()


class UnionConverter(OpenAPIConverter):
    """Documents a `Union` as `oneOf` its alternatives (each a component) with a discriminator."""

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        instance = resolve_schema_instance(schema)
        if not isinstance(instance, Union):
            return dict(super().schema2jsonschema(schema))
        if isinstance(instance, AnyOf):
            return {"anyOf": [self.resolve_nested_schema(union) for union in instance.unions],
                    **self._description(instance)}
        refs = {value: self.resolve_nested_schema(alt)["$ref"]
                for value, alt in instance.alternatives.items()}
        out: dict[str, Any] = {
            "oneOf": [{"$ref": ref} for ref in dict.fromkeys(refs.values())],
            "discriminator": {"propertyName": instance.tag, "mapping": refs},
        }
        return {**out, **self._description(instance)}

    @staticmethod
    def _description(instance: Union) -> dict[str, str]:
        return {"description": " ".join(instance.__doc__.split())} if instance.__doc__ else {}


    def field2nullable(self, field: fields.Field, ret: dict[str, Any]) -> dict[str, Any]:
        # OpenAPI 3.0.3 lets `nullable` add null only to a `type` beside it: apispec's
        # `anyOf: [{type: object, nullable: true}, $ref]` takes any object at all (a wrong view
        # would pass), and `nullable` beside a lone `oneOf` adds nothing (null is refused). The
        # reference or null, each branch exact, is `oneOf` the two.
        # (A reference beside a description is `allOf: [$ref]`, as a `$ref`'s siblings are
        # ignored.)
        if field.allow_none and self.openapi_version.major == 3 and self.openapi_version.minor == 0:
            if "$ref" in ret:
                return {"oneOf": [{"$ref": ret.pop("$ref")}, null()]}
            if "allOf" in ret:
                return {"oneOf": [*ret.pop("allOf"), null()]}
        return dict(super().field2nullable(field, ret))

    def field2default(self, field: fields.Field, **kwargs: Any) -> dict[str, Any]:
        # A null default says no more than a field left out, and generators (openapi-typescript)
        # take a field with a default for one always present.
        out = dict(super().field2default(field, **kwargs))
        if out.get("default", ...) is None:
            del out["default"]
        return out


class UnionPlugin(MarshmallowPlugin):
    """apispec's marshmallow plugin, which also documents `Union`s."""

    Converter = UnionConverter
