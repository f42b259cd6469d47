"""The OpenAPI document, generated from the code's schemas and views."""

from __future__ import annotations

import copy
from typing import Any

import yaml
from flask_smorest import Api

from service.http.event_schemas import add_event_schemas, add_stream_schemas, add_webhook_schemas
from service.http.unions import null_schema
from service.runtime.config import Config


def generate() -> str:
    """The document as YAML, stable from run to run."""
    # Imported here: the app serves `document` (service/http/reference.py), so imports this module.
    from service.http.app import create_app

    config = Config(database_url="postgresql://unused", redis_url="redis://unused",
                    operator_key="unused-unused-unused")
    return to_yaml(document(create_app(config, connect=False).extensions["banco.api"]))


def to_yaml(spec: dict[str, Any]) -> str:
    return yaml.safe_dump(spec, sort_keys=True, allow_unicode=True)


def document(api: Api) -> dict[str, Any]:
    """The contract of `api`'s routes: flask-smorest's document, completed."""
    # A copy: apispec hands out its own components, which are completed here in place.
    spec = copy.deepcopy(api.spec.to_dict())
    # Errors are rendered as problem+json (service/http/problems.py); say so in the document.
    for response in spec["components"]["responses"].values():
        content = response.get("content", {})
        if "application/json" in content:
            content["application/problem+json"] = content.pop("application/json")
    add_links(spec["paths"])
    # The null branch of each nullable reference (`service.http.unions.or_null`).
    assert "Null" not in spec["components"]["schemas"], "a schema is named Null"
    spec["components"]["schemas"]["Null"] = null_schema()
    add_event_schemas(spec["components"]["schemas"])
    add_stream_schemas(spec)
    add_webhook_schemas(spec)
    return _open_objects(spec)


def _open_objects(node: Any) -> Any:
    """`node` with each object of no declared members said to take any (`additionalProperties:
    {}`): OpenAPI reads a bare `type: object` so, but generators do not (openapi-typescript makes
    it `Record<string, never>`, which refuses a table's options or a posting)."""
    if isinstance(node, list):
        return [_open_objects(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _open_objects(v) for k, v in node.items()}
    if out.get("type") == "object" and not {"properties", "additionalProperties", "enum",
                                             "allOf", "oneOf", "anyOf", "$ref"} & out.keys():
        out["additionalProperties"] = {}
    return out


def _ref(path: str, method: str) -> str:
    return "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method


# What a client can do next with what a response gave it (OpenAPI links): a player, an auditor
# or an operator key created, a table opened, a hand dealt. Clients (and the contract fuzzer's
# stateful tests, which follow only these) take them.
LINKS = [
    ("/v1/players", "post", "201", "$response.body#/player/id", "player_id",
     [("/v1/players/{player_id}", "get"), ("/v1/players/{player_id}/deposits", "post"),
      ("/v1/players/{player_id}/withdrawals", "post"), ("/v1/players/{player_id}/balance", "get"),
      ("/v1/players/{player_id}/balance-history", "get"),
      ("/v1/players/{player_id}/balance-history.svg", "get"),
      ("/v1/players/{player_id}/token", "post"), ("/v1/players/{player_id}/erasure", "post")]),
    ("/v1/auditors", "post", "201", "$response.body#/id", "auditor_id",
     [("/v1/auditors/{auditor_id}", "get"), ("/v1/auditors/{auditor_id}/token", "post"),
      ("/v1/auditors/{auditor_id}/token", "delete")]),
    ("/v1/keys", "post", "201", "$response.body#/key/id", "key_id",
     [("/v1/keys/{key_id}", "get"), ("/v1/keys/{key_id}/rotation", "post"),
      ("/v1/keys/{key_id}", "delete")]),
    ("/v1/tables", "post", "201", "$response.body#/id", "table_id",
     [("/v1/tables/{table_id}", "get"), ("/v1/tables/{table_id}/seats", "post"),
      ("/v1/tables/{table_id}/hands", "post"), ("/v1/tables/{table_id}/events", "get")]),
    ("/v1/tables/{table_id}/hands", "post", "201", "$response.body#/hand/id", "hand_id",
     [("/v1/hands/{hand_id}", "get"), ("/v1/hands/{hand_id}/replay", "get")]),
    ("/v1/webhooks", "post", "201", "$response.body#/subscription/id", "subscription_id",
     [("/v1/webhooks/{subscription_id}", "get"), ("/v1/webhooks/{subscription_id}/pause", "post"),
      ("/v1/webhooks/{subscription_id}/deliveries", "get")]),
]


def add_links(paths: dict[str, Any]) -> None:
    """Add the OpenAPI links of `LINKS` to the responses they start from."""
    for path, method, status, value, parameter, targets in LINKS:
        response = paths[path][method]["responses"][status]
        response["links"] = {
            f"{target_method}{target.replace('/', '_').replace('{', '').replace('}', '')}": {
                "operationRef": _ref(target, target_method), "parameters": {parameter: value}}
            for target, target_method in targets if target in paths}
