"""The events the API shows (the log's feed and its webhooks, a table's events, a hand's replay),
typed by their `type` in openapi.yaml: each event of the catalog (events/catalog.py) with its
payload's schema, as the caller receives it; each engine's event (`game.<Type>` in the log,
`<Type>` of kind `game` at a table) with its data's schema as the caller receives it, a member
hidden from him (a face-down card, the seeds) left out.

The payloads' schemas are made from msgspec Structs: the catalog's, the same types that check
what is stored, and the games' (games/event_data.py), that the games' tests check every event the
engines make against; written the way OpenAPI 3.0.3 says them (`nullable`, no JSON Schema `null`;
a nullable reference `oneOf` it and the `Null` component, `service.http.unions.or_null`).
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from events.catalog import GAME_EVENT_PREFIX, PAYLOADS
from games.registry import event_data
from service.http.unions import or_null

REF = "#/components/schemas/{name}Data"
# A registration is shown by the player's id alone (`Redactor.logged`); the name is read from
# the players' resource, which knows who was erased.
SHOWN: dict[str, dict[str, Any]] = {
    "PlayerRegistered": {
        "type": "object", "additionalProperties": False, "required": ["player_id"],
        "properties": {"player_id": {"type": "string"}},
        "description": "A player joined Banco: his id (his name is the players' resource's)."},
}
# Members a caller may not receive: a conceded hand's seeds are the auditors' alone.
WITHHELD = {"SeedRevealed": ("server_seed", "player_seeds")}


def _oas30(node: Any) -> Any:
    """A JSON Schema of msgspec's, as OpenAPI 3.0.3 reads it."""
    if isinstance(node, list):
        return [_oas30(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _oas30(v) for k, v in node.items() if k != "title"}
    if isinstance(out.get("description"), str):
        out["description"] = " ".join(out["description"].split())  # a docstring's lines, joined
    if out.get("default", ...) is None:
        del out["default"]  # says no more than the member left out
    if out.get("required", ...) == []:
        del out["required"]  # OpenAPI 3.0 wants at least one name (every member is optional)
    branches = out.get("anyOf")
    if branches and {"type": "null"} in branches:
        rest = [b for b in branches if b != {"type": "null"}]
        del out["anyOf"]
        if len(rest) == 1 and "$ref" in rest[0]:
            out.update(or_null(rest[0]["$ref"]))  # `nullable` beside a `$ref` is ignored
        elif len(rest) == 1:
            out.update(rest[0])
            out["nullable"] = True
        else:
            out["anyOf"] = rest
            out["nullable"] = True
    return out


def payload_schemas() -> dict[str, dict[str, Any]]:
    """Each catalog payload's schema as the API shows it, and each engine event's data's, by its
    component's name."""
    structs = [*sorted(set(PAYLOADS.values()), key=lambda t: t.__name__),
               *(s for shapes in event_data().values() for s in shapes)]
    names = [s.__name__ for s in dict.fromkeys(structs)]
    assert len(names) == len(set(names)), f"two event data types share a name: {sorted(names)}"
    _, made = msgspec.json.schema_components(list(dict.fromkeys(structs)), ref_template=REF)
    out = {f"{name}Data": _oas30(schema) for name, schema in made.items()}
    for name, shown in SHOWN.items():
        out[f"{PAYLOADS[name].__name__}Data"] = shown
    for name, members in WITHHELD.items():
        schema = out[f"{PAYLOADS[name].__name__}Data"]
        schema["required"] = [m for m in schema["required"] if m not in members]
    return out


def _families() -> dict[str, list[str]]:
    """The catalog's event types by the payload they share (TokenIssued and TokenRevoked)."""
    out: dict[str, list[str]] = {}
    for name, payload in PAYLOADS.items():
        out.setdefault(payload.__name__, []).append(name)
    return out


def _game_data(structs: list[type]) -> dict[str, Any]:
    """The data of an engine's event type: its Struct's schema, or any of them where games give
    events of one type different shapes."""
    refs = [{"$ref": REF.format(name=s.__name__)} for s in structs]
    return refs[0] if len(refs) == 1 else {"anyOf": refs}


def _typed(base: dict[str, Any], type_: dict[str, Any], data: dict[str, Any],
           kind: str | None) -> dict[str, Any]:
    alternative = copy.deepcopy(base)
    alternative["properties"]["type"] = {**alternative["properties"]["type"], **type_}
    alternative["properties"]["data"] = data
    if kind is not None:
        alternative["properties"]["kind"] = {**alternative["properties"]["kind"], "enum": [kind],
                                             "example": kind}
    return alternative


def add_event_schemas(schemas: dict[str, Any]) -> None:
    """Make `FeedEvent`, `TableEvent` and `ReplayStep` (as flask-smorest wrote them, `data` an
    object) each `oneOf` an alternative per event type, and add the payloads' schemas."""
    payloads = payload_schemas()
    assert not set(payloads) & set(schemas), "an event's data is named as another schema"
    assert not set(PAYLOADS) & set(event_data()), "an engine's event is named as the catalog's"
    schemas.update(payloads)
    # A replay's state is the hand as its game's view shows it (null before the engine's first
    # event).
    state = schemas["ReplayStep"]["properties"]["state"]
    schemas["ReplayStep"]["properties"]["state"] = {
        "description": state["description"], **or_null("#/components/schemas/View")}
    for family, tells_kind in (("FeedEvent", False), ("TableEvent", True), ("ReplayStep", True)):
        base = schemas[family]
        refs: list[str] = []
        types: dict[str, str] = {}
        for payload, names in _families().items():
            kind = None if not tells_kind else "ledger" if names == ["TreasurePosted"] else "table"
            name = family + (payload if len(names) > 1 else names[0])
            schemas[name] = _typed(base, {"enum": names, "example": names[0]},
                                   {"$ref": REF.format(name=payload)}, kind)
            refs.append(name)
            types.update(dict.fromkeys(names, name))
        # An engine's event: `game.<Type>` in the log, `<Type>` of kind `game` at a table.
        for name, structs in event_data().items():
            type_ = name if tells_kind else f"{GAME_EVENT_PREFIX}{name}"
            member = f"{family}Game{name}"
            schemas[member] = _typed(base, {"enum": [type_], "example": type_},
                                     _game_data(structs), "game" if tells_kind else None)
            types[type_] = member
            refs.append(member)
        # The types tell the members apart: the catalog's names and the engines' are distinct
        # (`game.` before the engines' in the log, `kind` beside them at a table).
        schemas[family] = {
            "oneOf": [{"$ref": f"#/components/schemas/{r}"} for r in refs],
            "discriminator": {"propertyName": "type", "mapping": {
                t: f"#/components/schemas/{m}" for t, m in types.items()}},
            "description": f"{base.get('description', '')} One alternative per event type, told"
                           " apart by `type`.".strip()}


# The `data:` of each message of a stream, by the stream's path: a component each, named in the
# operation's `text/event-stream` content as `x-sse-data` (OpenAPI 3.0 has no word for it). A
# union of unions is written as the one union of their members (`_flat`): openapi-generator
# reads a member that is itself a `oneOf` as a model it never writes (`instanceOfTable`).
STREAM_MESSAGES: dict[str, tuple[str, dict[str, Any]]] = {
    # A table (told apart by `game`) or one of its events (by `type`): no one property tells
    # them all apart, so no discriminator; each member refuses the others' (their tags are
    # required, and neither kind has the other's).
    "/v1/tables/{table_id}/stream": ("TableStreamMessage", {
        "description": "The `data:` of a message of a table's stream: with `event: table`, the"
                       " table as GET /v1/tables/{table_id} shows it to you (a `Table`); with"
                       " `event: <type>`, the table's event of that type, as GET"
                       " /v1/tables/{table_id}/events shows it (a `TableEvent`).",
        "oneOf": [{"$ref": "#/components/schemas/Table"},
                  {"$ref": "#/components/schemas/TableEvent"}]}),
    # The `data:` of a message of the log's stream (`event: <type>`, `id:` its position): the
    # event as GET /v1/feed shows it. A bare reference: OpenAPI 3.0 ignores a description beside
    # one, and generators read `allOf: [FeedEvent]` as a subtype of the discriminated union with
    # a `type` of its own (openapi-typescript: `type: "FeedStreamMessage"`).
    "/v1/feed/stream": ("FeedStreamMessage", {"$ref": "#/components/schemas/FeedEvent"}),
}


def add_stream_schemas(spec: dict[str, Any]) -> None:
    """The schemas of the streams' messages, and where each stream says its own: as
    `x-sse-data`, and in the schema of one Server-Sent Event, its fields as members (what
    OpenAPI 3.2 calls the `itemSchema` of `text/event-stream`)."""
    for path, (name, schema) in STREAM_MESSAGES.items():
        spec["components"]["schemas"][name] = _flat(schema, spec["components"]["schemas"])
        content = spec["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]
        ref = {"$ref": f"#/components/schemas/{name}"}
        content["x-sse-data"] = ref
        content["schema"] = {"type": "object", "description": "One Server-Sent Event.", "properties": {
            "id": {"type": "string", "description": "Where the stream is: send it back as"
                                                    " `Last-Event-ID` to go on after it."},
            "event": {"type": "string", "description": "What `data` holds: its type."},
            "data": {"allOf": [ref], "description": "The message, as JSON."}}}


def _flat(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """`schema` with each member of its `oneOf` that is itself a `oneOf` replaced by that one's
    members, in order and each once."""
    if "oneOf" not in schema:
        return schema
    members: dict[str, None] = {}
    for ref in schema["oneOf"]:
        inner = schemas[ref["$ref"].rsplit("/", 1)[1]]
        members.update(dict.fromkeys(r["$ref"] for r in inner.get("oneOf", [ref])))
    return {**schema, "oneOf": [{"$ref": ref} for ref in members]}


# What a subscription's URL receives: one event of the log per POST, as Standard Webhooks
# say (service/application/webhooks.py `outgoing`, workers/webhooks.py).
WEBHOOK_EVENT = {
    "type": "object", "additionalProperties": False, "required": ["type", "timestamp", "data"],
    "description": "The body of a webhook: one event of the log, as a spectator may see it (no"
                   " hidden card, no seed a hand has not revealed to all), as `data`, as GET"
                   " /v1/feed shows it.",
    "properties": {
        "type": {"type": "string", "description": "The event's type, as `data.type`.",
                 "example": "TreasurePosted"},
        "timestamp": {"type": "string", "format": "date-time",
                      "description": "When it was recorded, as `data.recorded_at`."},
        "data": {"$ref": "#/components/schemas/FeedEvent"}}}  # bare, as FeedStreamMessage
WEBHOOK_HEADERS = (
    ("webhook-id", "The delivery's id (`<subscription>_<position>`), the same on every attempt:"
                   " a receiver that saw it already has the event."),
    ("webhook-timestamp", "When this attempt was signed, in seconds since the epoch."),
    ("webhook-signature", "`v1,` then the base64 HMAC-SHA256, under the subscription's secret,"
                          " of `<webhook-id>.<webhook-timestamp>.<body>`."))


def add_webhook_schemas(spec: dict[str, Any]) -> None:
    """The webhooks' body (`WebhookEvent`), and the POST each subscription's URL receives as a
    callback of the operation that subscribes (OpenAPI 3.0 names webhooks no other way)."""
    spec["components"]["schemas"]["WebhookEvent"] = WEBHOOK_EVENT
    retried = "Not taken: the event is sent again later, with the same `webhook-id`."
    spec["paths"]["/v1/webhooks"]["post"]["callbacks"] = {"event": {"{$request.body#/url}": {"post": {
        "operationId": "receiveWebhookEvent",
        "summary": "An event of the log, sent to the subscription's URL",
        "description": "Each event of the types subscribed, one at a time in the log's order,"
                       " signed as Standard Webhooks say; the next is sent once this one is"
                       " taken (a 2xx answer).",
        "security": [],
        "parameters": [{"name": name, "in": "header", "required": True,
                        "schema": {"type": "string"}, "description": text}
                       for name, text in WEBHOOK_HEADERS],
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/WebhookEvent"}}}},
        "responses": {"2XX": {"description": "Taken: the next event follows."},
                      "4XX": {"description": retried},
                      "5XX": {"description": retried}}}}}}
