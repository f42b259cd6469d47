"""Every value a client sends, walked from openapi.yaml: text that is not Unicode and numbers
with a fraction where an integer is expected are a 422 naming the field, and change nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.http.blueprint import NOT_UNICODE
from tests.service.conftest import OPERATOR, app_on, bearer
from tests.service.test_bad_input import count_events

SPEC = yaml.load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text(),
                 Loader=yaml.CSafeLoader)
LONE = "\ud800"
# The bytes a client that encodes a lone surrogate anyway (WTF-8) would send in a URL.
LONE_IN_URL = "%ED%A0%80"


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SPEC["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _nest(path: tuple[str, ...], leaf: Any) -> Any:
    for name in reversed(path):
        leaf = {name: leaf}
    return leaf


def _operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in SPEC["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                parameters = item.get("parameters", []) + operation.get("parameters", [])
                yield method, path, {**operation, "parameters": parameters}


def _body_schema(operation: dict[str, Any]) -> dict[str, Any] | None:
    content = operation.get("requestBody", {}).get("content", {})
    return _resolve(content["application/json"]["schema"]) if "application/json" in content else None


def _lone_surrogates(schema: dict[str, Any], at: tuple[str, ...] = ()) -> Iterator[tuple[Any, Any]]:
    """(body, the errors it must get) for every place a string may go in `schema`."""
    # An action: any game's (`anyOf`), each game's by its `type` (`oneOf`).
    for alternative in [*schema.get("anyOf", []), *schema.get("oneOf", [])]:
        yield from _lone_surrogates(_resolve(alternative), at)
    for name, field in schema.get("properties", {}).items():
        field = _resolve(field)
        if field.get("type") == "string":
            yield _nest((*at, name), LONE), _nest((*at, name), [NOT_UNICODE])
        elif field.get("type") == "object":
            yield from _lone_surrogates(field, (*at, name))
    if schema.get("additionalProperties") not in (None, False):
        # A free-form object (a table's options, an action's `declare`): any key, any value,
        # nested at any depth. A key is named by the object that holds it.
        yield _nest(at, {LONE: 1}), _nest(at, [NOT_UNICODE]) if at else {"_schema": [NOT_UNICODE]}
        yield _nest(at, {"k": LONE}), _nest((*at, "k"), [NOT_UNICODE])
        yield _nest(at, {"k": [1, {"deep": LONE}]}), _nest((*at, "k", "1", "deep"), [NOT_UNICODE])


def _integers(schema: dict[str, Any]) -> Iterator[str]:
    for name, field in schema.get("properties", {}).items():
        if _resolve(field).get("type") == "integer":
            yield name


@pytest.fixture
def world(client, new_player) -> dict[str, Any]:
    """Real ids for every path parameter, and a caller of each kind."""
    player = new_player("Walker", deposit=50)
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {}}, headers=OPERATOR)
    auditor = client.post("/v1/auditors", json={"name": "walker"}, headers=OPERATOR).json["token"]
    return {"ids": {"player_id": player.id, "table_id": table.json["id"], "hand_id": "hd_none",
                    "job_id": "none", "subscription_id": "wh_none", "dispute_id": "dp_none"},
            "callers": [OPERATOR, player.auth, bearer(auditor)]}


def _send(client, world, method: str, path: str, headers: dict[str, str] | None = None,
          **kwargs: Any):
    """The answer of the first caller the endpoint lets judge the request (401/403 come first)."""
    url = path.format(**world["ids"])
    for caller in world["callers"]:
        r = client.open(url, method=method.upper(), headers={**caller, **(headers or {})}, **kwargs)
        if r.status_code not in (401, 403):
            return r
    raise AssertionError(f"no caller may {method} {path}")


def test_a_lone_surrogate_anywhere_is_a_422_naming_it(client, app, world):
    """`{"reason": "\\ud800"}` is valid JSON but no Unicode text: it reached the event log's
    encoder and failed there, a 500. Every string of every body (keys and values of free-form
    objects too, at any depth) and of every query is now checked where requests are parsed."""
    before = count_events(app)
    checked = []
    for method, path, operation in _operations():
        schema = _body_schema(operation)
        for body, errors in _lone_surrogates(schema) if schema else ():
            r = _send(client, world, method, path, json=body)
            assert r.status_code == 422, (method, path, body, r.status_code, r.get_data())
            assert r.mimetype == "application/problem+json"
            assert r.json["errors"] == {"json": errors}, (method, path, r.json)
            checked.append((method, path, "json"))
        for parameter in operation["parameters"]:
            if parameter["in"] != "query" or parameter["schema"].get("type") != "string":
                continue
            r = _send(client, world, method, f"{path}?{parameter['name']}={LONE_IN_URL}")
            assert r.status_code == 422, (method, path, parameter["name"], r.status_code)
            assert r.json["errors"] == {"query": {parameter["name"]: [NOT_UNICODE]}}, r.json
            checked.append((method, path, "query"))
    # The places the probe found it: a deposit's and a withdrawal's reason, a player's name, a
    # seat's seed, a table option's key; and an action's parameters.
    for where in [("post", "/v1/players/{player_id}/deposits", "json"),
                  ("post", "/v1/players/{player_id}/withdrawals", "json"),
                  ("post", "/v1/players", "json"), ("post", "/v1/tables/{table_id}/seats", "json"),
                  ("post", "/v1/tables", "json"), ("post", "/v1/tables/{table_id}/actions", "json"),
                  ("get", "/v1/players/{player_id}/balance-history", "query")]:
        assert where in checked, where
    # An endpoint that takes no body names the fields of one sent all the same: not these.
    r = _send(client, world, "post", "/v1/tables/{table_id}/hands", json={LONE: 1, "k": LONE})
    assert r.status_code == 422 and r.json["errors"] == {
        "json": {"_schema": [NOT_UNICODE]}}, r.get_data()
    assert count_events(app) == before


def test_a_number_with_a_fraction_where_an_integer_goes_is_a_422_naming_it(client, app, world):
    """`{"options": {"max_bet": 1.5}}` opened a table with a max_bet of 1: marshmallow cut the
    number down. 1.5 and 2.0 are refused wherever an integer goes: every body, every query and
    every game's table options."""
    before = count_events(app)
    checked = 0
    for method, path, operation in _operations():
        schema = _body_schema(operation)
        for name in _integers(schema) if schema else ():
            for value in (1.5, 2.0):
                r = _send(client, world, method, path, json={name: value})
                assert r.status_code == 422, (method, path, name, value, r.status_code)
                assert name in r.json["errors"]["json"], (method, path, r.json)
                checked += 1
        for parameter in operation["parameters"]:
            if parameter["in"] == "query" and parameter["schema"].get("type") == "integer":
                for value in ("1.5", "2.0"):
                    r = _send(client, world, method, path, query_string={parameter["name"]: value})
                    assert r.status_code == 422, (method, path, parameter["name"], value)
                    assert parameter["name"] in r.json["errors"]["query"], r.json
                    checked += 1
    for game in client.get("/v1/games", headers=OPERATOR).json:
        for name, option in game["options"].items():
            if option["type"] != "integer":
                continue
            for value in (1.5, 2.0):
                r = client.post("/v1/tables", json={"game": game["name"], "options": {name: value}},
                                headers=OPERATOR)
                assert r.status_code == 422, (game["name"], name, value, r.json)
                assert r.json["code"] == "invalid_options" and name in r.json["errors"]["options"]
                checked += 1
    assert checked >= 2 * (3 + 7 + 15)  # bodies, queries, options: at the least
    assert count_events(app) == before


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(client, app, world, literal):
    """Python's json reads them; JSON has no such numbers (RFC 8259 §6)."""
    before = count_events(app)
    for path, body in [("/v1/players/{player_id}/deposits", '{"amount": %s, "reason": "r"}'),
                       ("/v1/tables", '{"game": "sette-e-mezzo", "options": {"max_bet": %s}}')]:
        r = _send(client, world, "post", path, data=body % literal,
                  content_type="application/json")
        assert r.status_code == 400, (path, r.json)
        assert r.json["code"] == "invalid_json" and literal.lstrip("-") in r.json["detail"]
    assert count_events(app) == before


def test_text_that_is_unicode_passes(client, world):
    """A character outside the BMP, escaped in JSON as a surrogate pair, is text like any other."""
    r = client.post("/v1/players", json={"name": "Ada \ud83c\udca1"}, headers=OPERATOR)
    assert r.status_code == 201 and r.json["player"]["name"] == "Ada \U0001f0a1"
    r = _send(client, world, "get", "/v1/players/{player_id}/balance-history",
              query_string={"reason": "\U0001f0a1"})
    assert r.status_code == 200


# Past the 4,300 digits Python's int() reads from text (`sys.get_int_max_str_digits`).
HUGE = "9" * 5000
# A body each operation that reads a version from its headers takes, so that it reaches them.
BODIES = {"/v1/tables/{table_id}/seats": {"age": 30, "seed": "s", "buy_in": 20},
          "/v1/tables/{table_id}/actions": {"type": "stand"}}


def _holding_huge(body: dict[str, Any]) -> str:
    """`body` as JSON, with `HUGE` unquoted where it says "HUGE" (`str()` of an int is held to
    4,300 digits as `int()` is, so json cannot write it)."""
    return json.dumps(body).replace('"HUGE"', HUGE)


def _a_problem(r, where: Any) -> None:
    assert 400 <= r.status_code < 500, (where, r.status_code, r.get_data()[:300])
    assert r.mimetype == "application/problem+json", (where, r.mimetype)


def test_a_number_of_5000_digits_is_a_4xx_problem_wherever_sent(config, client, app, world,
                                                               new_player):
    """`int()` refuses a string of more than 4,300 digits with a ValueError: an `If-Match` of
    5,000 digits was a 500, and so was such a number in a body. A number that long is refused, or
    read as no version or position, everywhere a client sends one: every body's integers, every
    query, every header, every id in a path and every game's options."""
    seated = new_player("Seated", deposit=50)
    seats = "/v1/tables/{table_id}/seats"
    r = client.post(seats.format(**world["ids"]), json=BODIES[seats], headers=seated.auth)
    assert r.status_code == 201, r.json
    world = {**world, "callers": [seated.auth, *world["callers"]]}
    before = count_events(app)
    # A version of 5,000 digits is one the table is not at (a stale one, told its version).
    for value in (f'"{HUGE}"', f'"0{HUGE}"'):
        r = client.post(f"/v1/tables/{world['ids']['table_id']}/actions", json={"type": "stand"},
                        headers={**seated.auth, "If-Match": value})
        assert (r.status_code, r.json["code"]) == (412, "stale_version"), r.json
        assert isinstance(r.json["version"], int)
    # A weak one names no version at all: If-Match is compared strongly.
    r = client.post(f"/v1/tables/{world['ids']['table_id']}/actions", json={"type": "stand"},
                    headers={**seated.auth, "If-Match": f'W/"{HUGE}"'})
    assert (r.status_code, r.json["code"]) == (428, "if_match_required"), r.json
    # The tests' cap (4 KiB) would refuse such a body before it is read: the service's is 64.
    with app_on(replace(config, max_body_bytes=64 * 1024)) as roomy:
        checked = _send_5000_digits(roomy.test_client(), world)
    for where in [("post", "/v1/tables/{table_id}/actions", "header"),
                  ("post", "/v1/tables/{table_id}/seats", "header"),
                  ("get", "/v1/tables/{table_id}/stream", "header"),
                  ("get", "/v1/feed/stream", "header"), ("get", "/v1/feed", "query"),
                  ("get", "/v1/players/{player_id}/balance-history", "query"),
                  ("post", "/v1/players/{player_id}/deposits", "json"), ("post", "/v1/tables", "options")]:
        assert where in checked, where
    assert count_events(app) == before


def _send_5000_digits(client, world: dict[str, Any]) -> set[tuple[str, str, str]]:
    """Where `HUGE` was sent and answered as it should be."""
    checked = set()
    for method, path, operation in _operations():
        schema = _body_schema(operation)
        for name in _integers(schema) if schema else ():
            r = _send(client, world, method, path, data=_holding_huge({name: "HUGE"}),
                      content_type="application/json")
            _a_problem(r, (method, path, name))
            checked.add((method, path, "json"))
        # A stream the value would let open ends at once.
        brief = {"timeout": "0.1"} if path.endswith("/stream") else {}
        for parameter in operation["parameters"]:
            name, where = parameter["name"], parameter["in"]
            if where == "query":
                r = _send(client, world, method, path, query_string={**brief, name: HUGE})
                if parameter["schema"].get("type") in ("integer", "number"):
                    _a_problem(r, (method, path, name))
                else:  # text: a filter that matches nothing, say
                    assert r.status_code < 500, (method, path, name, r.status_code)
            elif where == "path":
                r = _send(client, world, method, path.replace(f"{{{name}}}", HUGE))
                _a_problem(r, (method, path, name))
            elif where == "header" and name != "Idempotency-Key":
                for value in (HUGE, f'"{HUGE}"', f'W/"{HUGE}"'):
                    r = _send(client, world, method, path, query_string=brief,
                              headers={name: value}, json=BODIES.get(path))
                    assert r.status_code < 500, (method, path, name, r.status_code, r.get_data()[:300])
                    if r.status_code >= 400:
                        _a_problem(r, (method, path, name))
                    r.close()
            else:
                continue
            r.close()  # a stream's holds a slot until closed
            checked.add((method, path, where))
    for game in client.get("/v1/games", headers=OPERATOR).json:
        for name, option in game["options"].items():
            if option["type"] == "integer":
                body = {"game": game["name"], "options": {name: "HUGE"}}
                r = client.post("/v1/tables", data=_holding_huge(body), content_type="application/json",
                                headers=OPERATOR)
                _a_problem(r, (game["name"], name))
                checked.add(("post", "/v1/tables", "options"))
    return checked
