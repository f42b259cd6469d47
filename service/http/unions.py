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


class UnionConverter(OpenAPIConverter):
    """Documents a `Union` as `oneOf` its alternatives (each a component) with a discriminator."""

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        instance = resolve_schema_instance(schema)
        if not isinstance(instance, Union):
            return dict(super().schema2jsonschema(schema))
        refs = {value: self.resolve_nested_schema(alt)["$ref"]
                for value, alt in instance.alternatives.items()}
        out: dict[str, Any] = {
            "oneOf": [{"$ref": ref} for ref in dict.fromkeys(refs.values())],
            "discriminator": {"propertyName": instance.tag, "mapping": refs},
        }
        if instance.__doc__:
            out["description"] = " ".join(instance.__doc__.split())
        return out


    def field2nullable(self, field: fields.Field, ret: dict[str, Any]) -> dict[str, Any]:
        # apispec writes a nullable reference as `anyOf: [{type: object, nullable: true}, $ref]`
        # in OpenAPI 3.0, whose first branch takes any object at all: a wrong view would pass.
        if field.allow_none and "$ref" in ret and self.openapi_version.major == 3 \
                and self.openapi_version.minor == 0:
            return {"oneOf": [{"$ref": ret.pop("$ref")}], "nullable": True}
        return dict(super().field2nullable(field, ret))


class UnionPlugin(MarshmallowPlugin):
    """apispec's marshmallow plugin, which also documents `Union`s."""

    Converter = UnionConverter
