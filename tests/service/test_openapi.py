"""`openapi.yaml` is generated from the code: it must not drift and must be valid OpenAPI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate

from events.catalog import PAYLOADS
from games.registry import event_data
from service.http.spec import generate
from tests.service.conftest import OPERATOR, ROOT, bearer
from tests.service.test_authorization import settled_hand

COMMITTED = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_committed_openapi_matches_the_code():
    assert COMMITTED.read_text() == generate(), "run `banco openapi write` and commit openapi.yaml"


def test_openapi_is_valid():
    validate(yaml.load(COMMITTED.read_text(), Loader=yaml.CSafeLoader))


REDOCLY = COMMITTED.parent / "tests" / "redocly"
# What Redocly's recommended rules warn of that the contract keeps: Banco names no license, and
# the probes answer 200 or 503 to anyone, so no 4xx.
KEPT_WARNINGS = {("info-license", "#/info"),
                 ("operation-4xx-response", "#/paths/~1healthz/get/responses"),
                 ("operation-4xx-response", "#/paths/~1readyz/get/responses")}


def redocly() -> Path:
    """Redocly's command, as pinned in tests/redocly (installed by ./quickstart, else here)."""
    tool = REDOCLY / "node_modules" / ".bin" / "redocly"
    if not tool.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed for Redocly's lint of openapi.yaml"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=REDOCLY, check=True,
                       capture_output=True, timeout=600)
    return tool


def test_openapi_passes_redocly_recommended_rules():
    """Redocly's recommended rules, as a third party lints the contract before generating from
    it: no error (a `nullable` beside no `type`, a missing server, ...), no warning but those
    kept on purpose (an unused component, a lone `oneOf`, ...)."""
    run = subprocess.run([str(redocly()), "lint", "--extends", "recommended", "--format", "json",
                          str(COMMITTED)], capture_output=True, text=True, timeout=300)
    report = json.loads(run.stdout)
    found = {(p["ruleId"], p["location"][0]["pointer"]): p["severity"] for p in report["problems"]}
    assert report["totals"]["errors"] == 0, found
    assert set(found) == KEPT_WARNINGS, found


def _schemas_in(node: Any) -> Any:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _schemas_in(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schemas_in(value)


def test_a_nullable_reference_is_oneOf_it_and_null():
    """A nullable reference is `oneOf` the reference and `Null`, a component that is null and
    nothing else by OpenAPI 3.0.3's letter: `nullable` adds null only to the `type` beside it, so
    it is never beside an `allOf`, `oneOf`, `anyOf` or `$ref` (where a strict validator and
    openapi-python-client refused the null), and the null branch is no `enum: [null]` written in
    place (orval wrote that as no type: `HandRef |  | null`).
    tests/clients/test_generated_typescript.py compiles what the generators make of it."""
    spec = yaml.load(COMMITTED.read_text(), Loader=yaml.CSafeLoader)
    null = spec["components"]["schemas"]["Null"]
    check = OAS30Validator(null)
    assert check.is_valid(None)
    assert not [v for v in ("", "null", {}, [], 0, False) if check.is_valid(v)]
    schemas = list(_schemas_in(spec))
    nullable = [s for s in schemas if s.get("nullable") is True]
    assert all("type" in s and not {"allOf", "oneOf", "anyOf", "$ref"} & set(s) for s in nullable)
    assert [s for s in schemas if s.get("enum") == [None]] == [null]
    null_ref = {"$ref": "#/components/schemas/Null"}
    or_null = [s for s in schemas if null_ref in s.get("oneOf", [])]
    assert len(or_null) > 90
    assert all(len(s["oneOf"]) == 2 and "$ref" in s["oneOf"][0] and "discriminator" not in s
               for s in or_null)
    assert not [s for s in schemas if null_ref in s.get("anyOf", []) + s.get("allOf", [])]


def test_a_table_streams_message_is_one_union_of_tables_and_their_events():
    """A union of the two unions was one openapi-generator cannot write (`instanceOfTable`):
    the message is `oneOf` their members, each once, with no member itself a union."""
    schemas = yaml.load(COMMITTED.read_text(), Loader=yaml.CSafeLoader)["components"]["schemas"]
    members = [r["$ref"] for r in schemas["TableStreamMessage"]["oneOf"]]
    expected = dict.fromkeys(r["$ref"] for union in ("Table", "TableEvent")
                             for r in schemas[union]["oneOf"])
    assert members == list(expected)
    assert not [m for m in members if "oneOf" in schemas[m.rsplit("/", 1)[1]]]


@pytest.mark.parametrize("view", ["SetteEMezzoView", "SieteYMediaView", "CasinoPirateView"])
def test_the_7_half_views_say_who_banks_next(view):
    """`next_banker` was an undescribed nullable integer: a client could not tell "the meneur
    stays" (null) from a seat named, nor learn that a volunteer is named there."""
    schemas = yaml.load(COMMITTED.read_text(), Loader=yaml.CSafeLoader)["components"]["schemas"]
    fields = schemas[view]["properties"]
    assert "volunteer who took the post" in fields["next_banker"]["description"]
    assert "null" in fields["next_banker"]["description"]
    assert fields["volunteers"]["description"]


# The reference itself (the contract, Swagger UI, its assets) and the pages for people (`/`,
# `/tables/<id>`, ..., their static files) are left out of the contract.
REFERENCE = ("static", "api-docs.", "reference.", "pages.")


def test_every_route_of_the_app_is_documented(app):
    documented = set(yaml.load(COMMITTED.read_text(), Loader=yaml.CSafeLoader)["paths"])
    routes = {str(rule).replace("<", "{").replace(">", "}") for rule in app.url_map.iter_rules()
              if not rule.endpoint.startswith(REFERENCE)}
    assert routes == documented


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    paths = yaml.load(COMMITTED.read_text(), Loader=yaml.CSafeLoader)["paths"]
    return [(method.upper(), path, operation) for path, item in paths.items()
            for method, operation in item.items() if method != "parameters"]


def test_every_operation_has_a_unique_operation_id():
    ids = [operation.get("operationId") for _, _, operation in _operations()]
    assert None not in ids, [f"{m} {p}" for m, p, o in _operations() if "operationId" not in o]
    assert all(re.fullmatch(r"[a-z][A-Za-z]+", i) for i in ids), ids
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@dataclass
class World:
    """Ids of real resources, for requests that go past the lookup of what they name."""

    ids: dict[str, str]
    callers: dict[str, dict[str, str]]


@pytest.fixture
def world(client, new_player) -> World:
    me, partner = new_player("Me", deposit=100), new_player("Partner", deposit=100)
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
    for p in (me, partner):
        assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": 20},
                           headers=p.auth).status_code == 201
    hand = client.post(f"/v1/tables/{table}/hands", headers=OPERATOR).json["hand"]["id"]
    job = client.post("/v1/audit/ledger-checks", headers=OPERATOR).json["id"]
    auditor = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json
    # Paused at once: the session's workers have nothing to send it (but for the resume's test).
    hook = client.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/", "event_types":
                                             ["PlayerErased"]}, headers=OPERATOR).json
    client.post(f"/v1/webhooks/{hook['subscription']['id']}/pause", headers=OPERATOR)
    key = client.post("/v1/keys", json={"name": "k", "scopes": ["keys:admin"]},
                      headers=OPERATOR).json
    # An operator key with one scope: refused, for lack of theirs, what most operations do.
    scoped = client.post("/v1/keys", json={"name": "k", "scopes": ["metrics:read"]},
                         headers=OPERATOR).json["secret"]
    # A hand is disputed once it is settled: one of its own, ended at its deal.
    dispute = client.post("/v1/disputes", json={"hand_id": settled_hand(client, me, partner),
                                                "reason": "r"}, headers=OPERATOR).json["id"]
    return World({"player_id": me.id, "table_id": table, "hand_id": hand, "job_id": job,
                  "auditor_id": auditor["id"], "game": "sette-e-mezzo",
                  "subscription_id": hook["subscription"]["id"], "key_id": key["key"]["id"],
                  "dispute_id": dispute},
                 {"operator": OPERATOR, "player": me.auth, "auditor": bearer(auditor["token"]),
                  "scoped key": bearer(scoped)})


JSON = "application/json"
# What each shared check refuses, sent as each caller: (name, path's ids, request's keywords).
# The ids are the world's, or unknown ones, or one with a NUL character.
PROVOCATIONS: list[tuple[str, str, dict[str, Any]]] = [
    ("as is", "known", {}),
    ("unknown ids", "unknown", {}),
    ("an id with NUL", "nul", {}),
    ("an unknown query parameter", "known", {"query_string": {"nope": "1"}}),
    ("an Accept it cannot meet", "known", {"headers": {"Accept": "application/x-nope"}}),
    ("a body too large", "known", {"data": "[" + " " * 5000 + "]", "content_type": JSON}),
    ("a body that is not JSON", "known", {"data": "nope", "content_type": "text/plain"}),
    ("invalid JSON", "known", {"data": "{", "content_type": JSON}),
    ("a body of unknown fields", "known", {"json": {"nope": 1}}),
    ("an Idempotency-Key too long", "known", {"headers": {"Idempotency-Key": "k" * 201}}),
    ("If-Match *", "known", {"json": {"type": "stand"}, "headers": {"If-Match": "*"}}),
    ("a stale If-Match", "known", {"json": {"type": "stand"}, "headers": {"If-Match": '"99999"'}}),
    ("a stale If-Match and no body", "known", {"headers": {"If-Match": '"99999"'}}),
]


@pytest.mark.parametrize(("method", "path", "operation"), _operations(),
                         ids=[f"{m} {p}" for m, p, _ in _operations()])
def test_every_status_an_operation_answers_is_listed(client, world, method, path, operation):
    """What the shared checks answer (401, 403, 404, 406, 413, 415, 400, 422, 428, 412, ...),
    provoked on each operation, is among the statuses the document lists for it: a client
    generated from it knows every answer it can get."""
    listed = set(operation["responses"])
    assert "default" not in listed, "list the statuses: a default passes any for documented"
    ids = {"known": world.ids, "unknown": dict.fromkeys(world.ids, "unknown0"),
           "nul": dict.fromkeys(world.ids, "a%00")}
    unlisted = []
    answered = {}
    for caller, auth in [("nobody", {}), *world.callers.items()]:
        for name, which, kwargs in PROVOCATIONS:
            url = path.format(**ids[which])
            headers = {**kwargs.get("headers", {}), **auth}
            r = client.open(url, method=method, **{**kwargs, "headers": headers})
            answered[(caller, name)] = r.status_code
            if str(r.status_code) not in listed:
                unlisted.append(f"{r.status_code} to {name} as {caller}: {r.get_data(as_text=True)[:200]}")
            r.close()  # a stream's, say: it holds a slot until closed
    assert not unlisted, f"{method} {path} answered what it does not list: {unlisted}"
    if operation.get("security") != []:
        assert answered[("nobody", "as is")] == 401


@pytest.mark.parametrize(("union", "prefix"), [("FeedEvent", "game."), ("TableEvent", ""),
                                               ("ReplayStep", "")])
def test_every_event_type_is_a_member_of_the_events_unions_told_apart_by_type(union, prefix):
    """Each type of the catalog and each engine's (`game.<Type>` in the log) has its member, its
    `type` an enum of it, named in the union's discriminator: a client narrows `data` by `type`."""
    schemas = yaml.load(COMMITTED.read_text(), Loader=yaml.CSafeLoader)["components"]["schemas"]
    assert set(schemas[union]) == {"oneOf", "discriminator", "description"}
    mapping = schemas[union]["discriminator"]["mapping"]
    assert set(mapping) == set(PAYLOADS) | {prefix + name for name in event_data()}
    for type_, ref in mapping.items():
        member = schemas[ref.rsplit("/", 1)[1]]
        assert type_ in member["properties"]["type"]["enum"]
        assert {"$ref": ref} in schemas[union]["oneOf"]
    assert len(schemas[union]["oneOf"]) == len(set(mapping.values()))


def _bare_objects(node: Any, at: str = "") -> list[str]:
    """Where `node` holds an object schema that declares no members and takes none."""
    if isinstance(node, list):
        return [w for i, n in enumerate(node) for w in _bare_objects(n, f"{at}/{i}")]
    if not isinstance(node, dict):
        return []
    found = [w for k, v in node.items() for w in _bare_objects(v, f"{at}/{k}")]
    if node.get("type") == "object" and not {"properties", "additionalProperties", "enum",
                                              "allOf", "oneOf", "anyOf", "$ref"} & node.keys():
        found.append(at)
    return found


def test_an_object_of_no_declared_members_takes_any_in_the_generated_clients():
    """A bare `type: object` (a table's options, a posting in an event) became
    `Record<string, never>` in the TypeScript SDK's types, which refused every real one."""
    spec = yaml.load((ROOT / "openapi.yaml").read_text(), Loader=yaml.CSafeLoader)
    assert _bare_objects(spec) == []
    types = (ROOT / "clients" / "typescript" / "src" / "schema.ts").read_text()
    components = types[types.index("export interface components"):types.index("export type $defs")]
    assert "Record<string, never>" not in components
