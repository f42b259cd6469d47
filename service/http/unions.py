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


NULL = "#/components/schemas/Null"


def null_schema() -> dict[str, Any]:
    """The `Null` component: null, and nothing else, in OpenAPI 3.0.3's words (`nullable` adds
    null to the `type` beside it, and the `enum` holds null alone: no string is taken)."""
    return {"type": "string", "nullable": True, "enum": [None],
            "description": "Null, and nothing else: the other branch of a nullable reference."}


def or_null(ref: str) -> dict[str, Any]:
    """The object `ref` names, or null: `oneOf` the reference and the `Null` component (a new
    dict each time: a shared one would be written to YAML as an alias).

    By the letter of OpenAPI 3.0.3, `nullable` reaches no further than the `type` beside it: a
    reference (or `allOf`, `oneOf` one) with `nullable: true` beside it still refuses null, and a
    strict validator (openapi-schema-validator) or a generator that reads the letter
    (openapi-python-client) refuses the nulls the API sends. The null branch is a component, not
    written in place: orval writes an inline `enum: [null]` branch as no type at all
    (`HandRef |  | null`), and a component `Null` as `null`. It is `type: string`, not
    `object`: openapi-generator's typescript-fetch writes a `Null` model of `type: object` that
    imports a `NULL_SCHEMA_ERR` it never writes."""
    return {"oneOf": [{"$ref": ref}, {"$ref": NULL}]}


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
        # apispec's `anyOf: [{type: object, nullable: true}, $ref]` takes any object at all (a
        # wrong view would pass): a nested schema or null is `or_null` it. (A reference beside a
        # description comes as `allOf: [$ref]`, as a `$ref`'s siblings are ignored.)
        if field.allow_none and self.openapi_version.major == 3 and self.openapi_version.minor == 0:
            refs = [{"$ref": ret.pop("$ref")}] if "$ref" in ret else ret.pop("allOf", None)
            if refs is not None:
                assert len(refs) == 1 and isinstance(field, fields.Nested), field
                return or_null(refs[0]["$ref"])
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
