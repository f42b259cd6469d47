"""The operator's scoped API keys over HTTP: created, listed, rotated and revoked by the
application's commands (`service.application.operator_keys`), each change an event."""

from __future__ import annotations

from typing import Any

import orjson
from flask import g
from flask.views import MethodView

from service.application.operator_keys import CreateKey, RevokeKey, RotateKey
from service.application.scopes import SCOPES
from service.http import db
from service.http.auth import principal, require
from service.http.blueprint import Blueprint
from service.http.context import handle
from service.http.key_schemas import KeyCreateSchema, KeyIssuedSchema, KeyListSchema, KeySchema
from service.http.problems import Problem

PATH = "/v1/keys"

blp = Blueprint("keys", __name__, url_prefix=PATH,
                description="The operator's API keys, each with the scopes it may use: shown"
                            " once, stored hashed, rotated and revoked.")


def _shown(issued: dict[str, Any]) -> dict[str, Any]:
    """`issued`, noted so that the request's idempotency record keeps it without the secret: a
    replay gives the key a new one (`again`)."""
    g.issued_secret = True
    return issued


def again(body: bytes) -> bytes:
    """A kept answer that issued a key's secret, replayed: the key given a new secret in place
    of the one the first answer carried, which stops working; 409 when the key was revoked or
    has expired since."""
    doc = orjson.loads(body)
    if "secret" in doc or "key" not in doc:
        return body
    issued = handle(RotateKey(doc["key"]["id"], principal().scopes), "RotateOperatorKey")
    return orjson.dumps(KeyIssuedSchema().dump(issued))


def _find(key_id: str) -> dict[str, Any]:
    for key in db.uow().credentials.operator_keys():
        if key["id"] == key_id:
            return key
    raise Problem(404, "key_not_found", f"no operator key {key_id}")


@blp.route("")
class Keys(MethodView):
    @require("operator", scope="keys:admin")
    @blp.operation("createOperatorKey", 403)
    @blp.arguments(KeyCreateSchema)
    @blp.response(201, KeyIssuedSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Make an operator key with scopes; the answer holds its secret, shown only once

        The key is stored only hashed. It may be given only scopes the key that makes it
        holds (403 `scope_not_held`), and an expiry in the future (422 `expiry_passed`), at
        most ten years away and no later than the making key's own (422 `expiry_too_far`): a
        key made by one that expires, given no expiry, expires with it.
        Replayed with its `Idempotency-Key`, the request gives the key a new secret in place of
        the one the earlier answer carried, which stops working.
        """
        who = principal()
        return _shown(handle(CreateKey(body["name"], tuple(body["scopes"]), body["expires_at"],
                                       who.scopes, who.expires_at), "CreateOperatorKey"))

    @require("operator", scope="keys:admin")
    @blp.operation("listOperatorKeys")
    @blp.response(200, KeyListSchema)
    def get(self) -> dict[str, Any]:
        """Every operator key, live or not, oldest first, and every scope a key may hold"""
        return {"items": db.uow().credentials.operator_keys(),
                "scopes": [{"name": n, "description": d} for n, d in SCOPES.items()]}


@blp.route("/<key_id>")
class Key(MethodView):
    @require("operator", scope="keys:admin")
    @blp.operation("getOperatorKey", 404)
    @blp.response(200, KeySchema)
    def get(self, key_id: str) -> dict[str, Any]:
        """An operator key: its name, scopes and status (never its secret)"""
        return _find(key_id)

    @require("operator", scope="keys:admin")
    @blp.operation("revokeOperatorKey", 404)
    @blp.response(204)
    def delete(self, key_id: str) -> None:
        """Revoke an operator key: a 401 at once, for good; it stays listed, as revoked

        Its open streams end. Revoking a key revoked already changes nothing.
        """
        handle(RevokeKey(key_id), "RevokeOperatorKey")


@blp.route("/<key_id>/rotation")
class Rotation(MethodView):
    @require("operator", scope="keys:admin")
    @blp.operation("rotateOperatorKey", 404, 409)
    @blp.response(200, KeyIssuedSchema)
    def post(self, key_id: str) -> dict[str, Any]:
        """Give an operator key a new secret, shown only once: the old one stops working at once

        The key keeps its id, name, scopes and expiry. A revoked or expired key is given none
        (409 `key_revoked`, `key_expired`), nor one with a scope the calling key does not hold
        (403 `scope_not_held`): its new secret would hand that scope over. Replayed with its
        `Idempotency-Key`, it gives yet another in place of the one the earlier answer carried.
        """
        return _shown(handle(RotateKey(key_id, principal().scopes), "RotateOperatorKey"))
