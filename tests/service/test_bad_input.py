"""Bad input gets a clear problem+json 4xx and changes nothing; never a 500."""

from __future__ import annotations

import contextlib
import http.client
import re
import socket
from typing import Any

import orjson
import pytest

from tests.service import test_headers
from tests.service.conftest import OPERATOR, OPERATOR_KEY, bearer


def count_events(app) -> int:
    with app.extensions["banco.pool"].connection() as c:
        return c.execute("SELECT count(*) FROM events").fetchone()[0]


@pytest.mark.parametrize("body", [
    {"amount": 0, "reason": "r"}, {"amount": -5, "reason": "r"}, {"amount": 1.5, "reason": "r"},
    {"amount": "10", "reason": "r"}, {"amount": True, "reason": "r"}, {"amount": 10},
    {"amount": 10, "reason": ""}, {"amount": 10, "reason": "r", "extra": 1}, {"reason": "r"},
    [1, 2], "text", None, {"amount": 10**13, "reason": "r"},
])
def test_bad_amounts_are_422(client, new_player, app, body):
    p = new_player(deposit=50)
    before = count_events(app)
    for path in ("deposits", "withdrawals"):
        r = client.post(f"/v1/players/{p.id}/{path}", json=body, headers=OPERATOR)
        assert r.status_code == 422, r.json
        assert r.headers["Content-Type"] == "application/problem+json"
        assert r.json["status"] == 422 and r.json["code"]
    assert count_events(app) == before


def test_malformed_json_is_a_4xx_problem(client, new_player):
    p = new_player()
    r = client.post(f"/v1/players/{p.id}/deposits", data=b"{not json",
                    headers={**OPERATOR, "Content-Type": "application/json"})
    assert 400 <= r.status_code < 500
    assert r.headers["Content-Type"] == "application/problem+json"


def test_unknown_player_is_404(client):
    for method, path, body in (("get", "/v1/players/pl_nobody", None),
                               ("get", "/v1/players/pl_nobody/balance", None),
                               ("post", "/v1/players/pl_nobody/deposits", {"amount": 1, "reason": "r"})):
        r = getattr(client, method)(path, json=body, headers=OPERATOR)
        assert r.status_code == 404 and r.json["code"] == "player_not_found"


def test_oversized_body_is_413(client, new_player, app):
    p = new_player()
    before = count_events(app)
    r = client.post(f"/v1/players/{p.id}/deposits", data=b"{" + b" " * 10_000 + b"}",
                    headers={**OPERATOR, "Content-Type": "application/json"})
    assert r.status_code == 413 and r.headers["Content-Type"] == "application/problem+json"
    assert r.headers["Connection"] == "close"
    assert count_events(app) == before


# What `banco serve` takes by default (BANCO_MAX_BODY_BYTES).
CAP = 64 * 1024
served = test_headers.served  # `banco serve` on the session's servers: werkzeug's test client
# hands the app a body as a stream of known length, where gunicorn hands over a chunked one


def chunked(port: int, path: str, body: bytes, token: str = OPERATOR_KEY,
            content_type: str = "application/json") -> tuple[int, str, dict[str, Any]]:
    """POST `body` in chunks of 8 KiB (no Content-Length): the status, type and body answered.

    A body over the cap is refused before it has all gone, and the server closes the connection
    after its answer: the rest of the body meets a closed socket, and the answer is read then, as
    a client does. When the reset that the unread rest provokes takes the answer with it, the
    request is sent again (three times at most)."""
    for attempt in range(3):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                conn.request("POST", path,
                             body=(body[i:i + 8192] for i in range(0, len(body), 8192)),
                             encode_chunked=True, headers={"Authorization": f"Bearer {token}",
                                                           "Content-Type": content_type})
            try:
                r = conn.getresponse()
            except (ConnectionResetError, http.client.RemoteDisconnected):
                if attempt == 2:
                    raise
                continue
            return r.status, r.getheader("Content-Type", ""), orjson.loads(r.read())
        finally:
            conn.close()
    raise AssertionError("unreachable")


def padded(body: dict[str, Any], size: int) -> bytes:
    """`body` as JSON followed by spaces, `size` bytes in all."""
    text = orjson.dumps(body)
    return text + b" " * (size - len(text))


def test_a_chunked_body_over_the_cap_is_413_and_changes_nothing(served, app):
    """werkzeug read a chunked body up to the cap and dropped the rest without a word: valid
    JSON followed by megabytes of spaces was read as the JSON, and a player was registered."""
    player = chunked(served, "/v1/players", orjson.dumps({"name": "Chunks"}))[2]["player"]
    before = count_events(app)
    for path, body in [("/v1/players", padded({"name": "Spaces"}, 2_000_000)),
                       ("/v1/players", padded({"name": "Over"}, CAP + 1)),
                       (f"/v1/players/{player['id']}/deposits",
                        padded({"amount": 5, "reason": "r"}, CAP + 1)),
                       # One that takes no body reads it all the same, to refuse it.
                       (f"/v1/players/{player['id']}/token", padded({}, CAP + 1))]:
        status, content_type, problem = chunked(served, path, body)
        assert status == 413, (path, len(body), problem)
        assert problem["code"] == "body_too_large"
        assert content_type == "application/problem+json"
    assert count_events(app) == before


def test_a_chunked_body_within_the_cap_is_read_whole(served, app):
    status, _, made = chunked(served, "/v1/players", padded({"name": "AtTheCap"}, CAP))
    assert status == 201 and made["player"]["name"] == "AtTheCap"
    path = f"/v1/players/{made['player']['id']}/deposits"
    status, _, deposit = chunked(served, path, orjson.dumps({"amount": 7, "reason": "chunked"}))
    assert status == 201, deposit
    # Refused as one with a Content-Length is: a body of another type, a body where none goes.
    status, _, problem = chunked(served, path, b"amount=7", content_type="text/plain")
    assert (status, problem["code"]) == (415, "unsupported_media_type")
    before = count_events(app)
    status, _, problem = chunked(served, f"/v1/players/{made['player']['id']}/token",
                                 orjson.dumps({"x": 1}))
    assert (status, problem["code"]) == (422, "invalid_input"), problem
    assert problem["errors"] == {"json": {"x": ["Unknown field."]}}
    assert count_events(app) == before


def test_missing_or_wrong_token_is_401(client, new_player):
    p = new_player()
    for headers in ({}, bearer("nope"), {"Authorization": "Basic abc"}):
        r = client.get(f"/v1/players/{p.id}", headers=headers)
        assert r.status_code == 401 and r.json["code"] == "unauthorized"
        assert r.headers["Content-Type"] == "application/problem+json"


def test_players_act_only_as_themselves(client, new_player):
    ann, bob = new_player("Ann", deposit=5), new_player("Bob")
    assert client.get(f"/v1/players/{ann.id}/balance", headers=bob.auth).status_code == 403
    assert client.get(f"/v1/players/{ann.id}/balance-history", headers=bob.auth).status_code == 403
    r = client.post(f"/v1/players/{ann.id}/deposits", json={"amount": 1, "reason": "r"}, headers=ann.auth)
    assert r.status_code == 403
    assert client.post("/v1/players", json={"name": "x"}, headers=ann.auth).status_code == 403
    assert client.get(f"/v1/players/{ann.id}/balance", headers=ann.auth).json["balance"] == 5


def test_auditors_read_everything_and_change_nothing(client, new_player):
    p = new_player(deposit=9)
    r = client.post("/v1/auditors", json={"name": "Audit"}, headers=OPERATOR)
    assert r.status_code == 201
    auditor = bearer(r.json["token"])
    assert client.get(f"/v1/players/{p.id}/balance", headers=auditor).json["balance"] == 9
    assert client.get(f"/v1/players/{p.id}/balance-history", headers=auditor).status_code == 200
    for path, body in ((f"/v1/players/{p.id}/deposits", {"amount": 1, "reason": "r"}),
                       (f"/v1/players/{p.id}/withdrawals", {"amount": 1, "reason": "r"}),
                       ("/v1/players", {"name": "x"}), ("/v1/auditors", {"name": "y"})):
        assert client.post(path, json=body, headers=auditor).status_code == 403
    assert client.get(f"/v1/players/{p.id}/balance", headers=auditor).json["balance"] == 9


def test_probes(client):
    assert client.get("/healthz").json == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    checks = ready.json["checks"]
    assert {k: checks[k] for k in ("postgres", "migrations", "redis")} == {
        "postgres": "ok", "migrations": "current", "redis": "ok"}
    assert checks["workers"] == "none" or re.fullmatch(
        r"\d+ alive \(banco-test-\d+: \d+, banco-test-\d+-webhooks: \d+\)", checks["workers"])


def test_a_204_names_no_content_type(client, new_player):
    """A DELETE answered 204 said `Content-Type: application/json` for its empty body."""
    ada = new_player("Ada")
    r = client.delete(f"/v1/players/{ada.id}/token", headers=OPERATOR)
    assert r.status_code == 204 and r.data == b""
    assert "Content-Type" not in r.headers
    made = client.post("/v1/keys", json={"name": "desk", "scopes": ["metrics:read"]},
                       headers=OPERATOR).json
    r = client.delete(f"/v1/keys/{made['key']['id']}", headers=OPERATOR)
    assert r.status_code == 204 and "Content-Type" not in r.headers


def test_every_response_carries_a_request_id(client):
    r = client.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert r.headers["X-Request-ID"] == "abc-123"
    assert len(client.get("/healthz").headers["X-Request-ID"]) == 16


def test_nul_characters_are_refused_not_a_500(client, new_player):
    p = new_player()
    # A text PostgreSQL cannot store reaches it in the table list's cursor.
    r = client.get("/v1/tables", query_string={"cursor": "\x00x"}, headers=p.auth)
    assert r.status_code == 422 and r.json["code"] == "invalid_input"
    r = client.post("/v1/players", json={"name": "a\u0000b"}, headers=OPERATOR)
    assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json"
    # Refused naming the field and the character (it was "a value in the request cannot be
    # stored", `reason: DataError`, from PostgreSQL itself), whatever the body holds it in.
    assert r.json["errors"] == {"json": {"name": ["Must not contain a NUL character."]}}, r.json
    for path, body in ((f"/v1/players/{p.id}/deposits", {"amount": 5, "reason": "a\u0000b"}),
                       ("/v1/stream-tickets", {"stream": "table", "table_id": "tb_\u0000"}),
                       ("/v1/keys", {"name": "k", "scopes": ["metrics:read"], "x\u0000": 1})):
        r = client.post(path, json=body, headers=OPERATOR)
        assert r.status_code == 422 and "NUL" in str(r.json["errors"]), (path, r.json)
        assert "reason" not in r.json, r.json
    # In an id it names nothing there is: a 404, not a value that "cannot be stored".
    for path in ("/v1/tables/tb_%00", f"/v1/players/{p.id}%00", "/v1/hands/hd_%00/replay"):
        r = client.get(path, headers=OPERATOR)
        assert r.status_code == 404 and r.json["code"] == "not_found", (path, r.json)


@pytest.mark.parametrize("query", [{"limit": 0}, {"limit": 100000}, {"cursor": -1}, {"limit": "x"}])
def test_pagination_limits_are_enforced(client, new_player, query):
    p = new_player()
    for path in (f"/v1/players/{p.id}/balance-history", "/v1/tables"):
        r = client.get(path, query_string=query, headers=p.auth)
        if path == "/v1/tables" and "cursor" in query:
            continue  # table cursors are ids, not numbers
        assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json"


def test_unknown_query_parameters_are_refused_not_ignored(client, new_player, app):
    """A misspelt filter is a 422 naming it, on every endpoint that takes query parameters;
    ignored, `?stauts=open` would have listed every table as if it were the filter."""
    p = new_player(deposit=5)
    r = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {}}, headers=OPERATOR)
    assert r.status_code == 201, r.json
    table = r.json["id"]
    before = count_events(app)
    for path, known in [("/v1/tables", {"status": "open"}),
                        (f"/v1/players/{p.id}/balance-history", {"limit": 5}),
                        (f"/v1/players/{p.id}/balance-history.svg", {"reason": "seed"}),
                        (f"/v1/tables/{table}/events", {"after": 0}),
                        (f"/v1/tables/{table}/stream", {"timeout": 0.1}),
                        (f"/v1/tables/{table}/hands", {"limit": 5})]:
        assert client.get(path, query_string=known, headers=OPERATOR).status_code == 200, path
        r = client.get(path, query_string={**known, "stauts": "open"}, headers=OPERATOR)
        assert r.status_code == 422, (path, r.status_code)
        assert r.headers["Content-Type"] == "application/problem+json"
        assert "stauts" in r.json["errors"]["query"], (path, r.json)
    # An endpoint that takes none refuses them too: a `limit` would have been ignored.
    for path in ("/v1/audit/checkpoints", f"/v1/tables/{table}", "/v1/games",
                 f"/v1/players/{p.id}/balance"):
        assert client.get(path, headers=OPERATOR).status_code == 200, path
        r = client.get(path, query_string={"limit": 5}, headers=OPERATOR)
        assert r.status_code == 422 and "limit" in r.json["errors"]["query"], (path, r.json)
    r = client.post(f"/v1/players/{p.id}/deposits?amount=5", json={"amount": 1, "reason": "r"},
                    headers=OPERATOR)
    assert r.status_code == 422 and "amount" in r.json["errors"]["query"]
    assert count_events(app) == before


def test_a_query_parameter_given_more_than_once_is_refused_not_cut_to_its_first(
        client, new_player, app):
    """`?status=open&status=over` listed the open tables alone, `?limit=1&limit=500` one player
    and `?types=HandBegan&types=TreasurePosted` the hands begun: webargs read the first value.
    Which one a client meant, nothing says, as of a JSON member named twice."""
    p = new_player(deposit=5)
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {}},
                        headers=OPERATOR).json["id"]
    before = count_events(app)
    for path, query, named in [
            ("/v1/tables", "status=open&status=over", "status"),
            ("/v1/players", "limit=1&limit=500", "limit"),
            ("/v1/feed", "after=0&types=HandBegan&types=TreasurePosted", "types"),
            ("/v1/feed/stream", "timeout=0.1&types=HandBegan&types=HandBegan", "types"),
            (f"/v1/players/{p.id}/balance-history", "from=2026-01-01T00:00:00Z"
             "&from=2026-02-01T00:00:00Z", "from"),
            (f"/v1/players/{p.id}/balance-history.svg", "reason=seed&reason=seed", "reason"),
            (f"/v1/tables/{table}/events", "after=0&after=0", "after"),
            (f"/v1/tables/{table}/stream", "timeout=0.1&timeout=600", "timeout"),
            (f"/v1/tables/{table}/hands", "limit=1&limit=2", "limit")]:
        once = query.rsplit("&", 1)[0]
        assert client.get(f"{path}?{once}", headers=OPERATOR).status_code == 200, (path, once)
        r = client.get(f"{path}?{query}", headers=OPERATOR)
        assert r.status_code == 422, (path, r.status_code)
        assert r.headers["Content-Type"] == "application/problem+json"
        assert r.json["code"] == "invalid_input", r.json
        said = r.json["errors"]["query"]
        assert list(said) == [named] and "more than once" in said[named][0], (path, r.json)
    # A list in one parameter is sent as one comma-separated value, and the answer says so.
    r = client.get("/v1/feed?types=HandBegan&types=TreasurePosted", headers=OPERATOR)
    assert "types=a,b" in r.json["errors"]["query"]["types"][0], r.json
    assert client.get("/v1/feed?types=HandBegan,TreasurePosted", headers=OPERATOR).status_code == 200
    # What else is wrong with the query is said in the same answer.
    r = client.get("/v1/tables?status=open&status=over&stauts=x&stauts=y", headers=OPERATOR)
    assert r.status_code == 422 and r.json["errors"]["query"] == {
        "stauts": ["Unknown field."], "status": ["Given more than once: send it once."]}, r.json
    assert count_events(app) == before


def test_a_body_sent_to_an_endpoint_that_takes_none_is_refused_not_ignored(client, new_player, app):
    """`POST /v1/tables/{id}/hands {"seed": ...}` dealt as if the seed were used; now the field
    is named as unknown. An empty object, which many clients send with every POST, says nothing
    and passes."""
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {}},
                        headers=OPERATOR).json["id"]
    before = count_events(app)
    for path in (f"/v1/tables/{table}/hands", "/v1/audit/ledger-checks", "/v1/audit/checkpoints"):
        r = client.post(path, json={"seed": "abc"}, headers=OPERATOR)
        assert r.status_code == 422 and r.mimetype == "application/problem+json", (path, r.json)
        assert r.json["errors"] == {"json": {"seed": ["Unknown field."]}}
        r = client.post(path, json=[1], headers=OPERATOR)
        assert r.status_code == 422 and r.json["detail"] == "this endpoint takes no body"
    assert count_events(app) == before
    # Passed through: no seated players is the table's own refusal, not the body's.
    r = client.post(f"/v1/tables/{table}/hands", json={}, headers=OPERATOR)
    assert r.status_code == 409, r.json
    assert client.post("/v1/audit/ledger-checks", json={}, headers=OPERATOR).status_code == 202


def test_an_accept_no_answer_meets_is_406_not_another_type(client, new_player):
    """A client asking for CSV where only JSON is made was handed JSON it would misread."""
    p = new_player(deposit=5)
    history = f"/v1/players/{p.id}/balance-history"
    for path, accept, answered in [
            ("/v1/games", "application/json", "application/json"),
            ("/v1/games", "text/html,application/xhtml+xml,*/*;q=0.8", "application/json"),
            (history, "text/csv", "text/csv"),
            (history, "application/x-ndjson", "application/x-ndjson"),
            (history + ".svg", "image/*", "image/svg+xml")]:
        r = client.get(path, headers={**p.auth, "Accept": accept})
        assert r.status_code == 200 and r.mimetype == answered, (path, accept, r.mimetype)
    for path, accept in [("/v1/games", "text/csv"), (history, "image/svg+xml"),
                         (history + ".svg", "application/json")]:
        r = client.get(path, headers={**p.auth, "Accept": accept})
        assert r.status_code == 406 and r.mimetype == "application/problem+json", (path, accept)
        assert r.json["code"] == "not_acceptable" and accept not in r.json["available"]
    assert set(client.get(history, headers={**p.auth, "Accept": "text/plain"}).json["available"]) == {
        "application/json", "text/csv", "application/x-ndjson"}


def test_a_caller_is_authenticated_before_his_request_is_judged(client, new_player):
    """Who is asking comes first: an unknown caller learns nothing of what an endpoint takes, and
    one who may not use it is told so (403) before what is wrong with his request."""
    p = new_player()
    for headers, status in (({}, 401), (p.auth, 403)):
        r = client.get("/v1/audit/checkpoints", query_string={"limit": 5}, headers=headers)
        assert r.status_code == status, r.json
        r = client.post("/v1/audit/ledger-checks", json={"seed": 1},
                        headers={**headers, "Accept": "text/csv"})
        assert r.status_code == status, r.json


def test_every_numeric_table_option_is_bounded_and_past_its_bound_refused(client, app):
    """An option past any sane size (a turn of 10**30 seconds, say) was stored and then failed
    the event log's 64-bit numbers, or the deadline's date, with a 500. Every integer option of
    every game now has a maximum, shown by `GET /v1/games`, and a value past it is a 422."""
    games = client.get("/v1/games", headers=OPERATOR).json
    before = count_events(app)
    checked = 0
    for game in games:
        for name, option in game["options"].items():
            if option["type"] != "integer":
                continue
            assert option.get("max") is not None, f"{game['name']}.{name} has no maximum"
            for value in (option["max"] + 1, 10**30, 1e308):
                r = client.post("/v1/tables", json={"game": game["name"], "options": {name: value}},
                                headers=OPERATOR)
                assert r.status_code == 422, (game["name"], name, value, r.json)
                assert r.json["code"] == "invalid_options" and name in r.json["errors"]["options"]
                checked += 1
    assert checked >= 3 * 10
    assert count_events(app) == before


# Values that only stand for one of the type's (1 for true, "5" for 5): each a 422.
STAND_INS = {"integer": ["5", 5.5, True, None], "boolean": [1, 0, "true", "false", None],
             "string": [1, True, None]}


def test_every_table_option_takes_its_own_json_type_only(client, app):
    """`seven_half_takes_bank` read 1 and "true" as true, where every other option takes only its
    own type: now each option of each game refuses what merely stands for one of its values."""
    before = count_events(app)
    kinds = set()
    for game in client.get("/v1/games", headers=OPERATOR).json:
        for name, option in game["options"].items():
            kinds.add(option["type"])
            # null is a value of an option whose default it is (`duration_s`: no end).
            nullable = "default" in option and option["default"] is None
            for value in [v for v in STAND_INS[option["type"]] if v is not None or not nullable]:
                r = client.post("/v1/tables", json={"game": game["name"], "options": {name: value}},
                                headers=OPERATOR)
                assert r.status_code == 422, (game["name"], name, value, r.json)
                assert r.json["code"] == "invalid_options" and name in r.json["errors"]["options"]
    assert kinds == set(STAND_INS)
    assert count_events(app) == before


def test_a_body_that_is_not_json_is_a_400_saying_where(client, new_player, app):
    """Broken JSON is a 400 `invalid_json` that says what is wrong (it was the browser's "could
    not understand"), and arrays nested a thousand deep, which overflowed the decoder, were a 500."""
    p = new_player()
    before = count_events(app)
    deep = b"[" * 1500 + b"]" * 1500  # within the 4 KiB the tests allow a body
    for body, said in [(b'{"amount": 5, "reason": }', "line 1 column 25"),
                       (b'{"amount": 5, "reason": "\xe9"}', "decoding"),
                       (b'{"amount": 5, "reason": ' + deep + b"}", "nests too deeply")]:
        for path in (f"/v1/players/{p.id}/deposits", "/v1/audit/ledger-checks"):
            r = client.post(path, data=body, headers={**OPERATOR, "Content-Type": "application/json"})
            assert r.headers["Content-Type"] == "application/problem+json", (path, r.status_code)
            if path.endswith("deposits"):
                assert r.status_code == 400 and r.json["code"] == "invalid_json"
                assert said in r.json["detail"], r.json
            else:  # it takes no body, and one it cannot even read is still one
                assert r.status_code == 422 and r.json["detail"] == "this endpoint takes no body"
    assert count_events(app) == before


def test_a_name_sent_twice_in_one_object_is_a_400(client, new_player, app):
    """`{"amount": 1, "amount": 500}` was read as 500, the last: a reader in front of Banco that
    takes the first would have passed a deposit of 1. Which one the client meant, nothing says."""
    p = new_player()
    before = count_events(app)
    for body in (b'{"amount": 1, "reason": "r", "amount": 500}',
                 b'{"amount": 5, "reason": "r", "x": {"a": 1, "a": 1}}'):
        r = client.post(f"/v1/players/{p.id}/deposits", data=body,
                        headers={**OPERATOR, "Content-Type": "application/json"})
        assert (r.status_code, r.json["code"]) == (400, "invalid_json"), r.json
        assert "twice in one object" in r.json["detail"]
    assert client.get(f"/v1/players/{p.id}/balance", headers=p.auth).json["balance"] == 0
    assert count_events(app) == before
    # The same name in two objects is no repetition.
    r = client.post("/v1/tables", data=b'{"game": "cassino", "variant": "spades",'
                    b' "options": {"variant": "spades"}}',
                    headers={**OPERATOR, "Content-Type": "application/json"})
    assert r.status_code == 201 and r.json["variant"] == "spades", r.json


def test_a_body_that_is_not_json_is_415_not_missing_fields(client, new_player, app):
    """`curl -d` sends a form unless told otherwise: the body was read as no body at all, and the
    client told his fields were missing. Now a 415 says what to send, and nothing is written."""
    p = new_player()
    before = count_events(app)
    # Nor is JSON of another media type (a merge patch says to merge, not to set), which was
    # taken as plain JSON.
    for mimetype in ("application/x-www-form-urlencoded", "text/plain",
                     "application/merge-patch+json", "application/vnd.api+json"):
        r = client.post(f"/v1/players/{p.id}/deposits", data=b'{"amount": 5, "reason": "r"}',
                        headers={**OPERATOR, "Content-Type": mimetype})
        assert r.status_code == 415 and r.json["code"] == "unsupported_media_type"
        assert mimetype in r.json["detail"] and r.headers["Content-Type"] == "application/problem+json"
    # A body said to be compressed is not read as if it were not: the service decodes none.
    for coding in ("gzip", "br, gzip"):
        r = client.post(f"/v1/players/{p.id}/deposits", data=b'{"amount": 5, "reason": "r"}',
                        headers={**OPERATOR, "Content-Type": "application/json",
                                 "Content-Encoding": coding})
        assert r.status_code == 415 and r.json["code"] == "unsupported_media_type", r.json
        assert coding in r.json["detail"]
    assert count_events(app) == before
    r = client.post(f"/v1/players/{p.id}/deposits", data=b'{"amount": 5, "reason": "r"}',
                    headers={**OPERATOR, "Content-Type": "application/json",
                             "Content-Encoding": "identity"})
    assert r.status_code == 201, r.json
    # JSON with a charset is JSON.
    r = client.post(f"/v1/players/{p.id}/deposits", data=b'{"amount": 5, "reason": "r"}',
                    headers={**OPERATOR, "Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 201, r.json


MALFORMED_CHUNKS = {
    "a size that is no number": b"zz\r\n",
    "a chunk longer than its size": b"3\r\n{}xx\r\n0\r\n\r\n",
    "a chunk not ended by CRLF": b"2\r\n{}XX0\r\n\r\n",
    "a trailer that is no header": b"2\r\n{}\r\n0\r\nBad Trailer\r\n\r\n",
}


@pytest.mark.parametrize("unread", [
    b"Content-Length: 70000\r\n\r\n" + b" " * 70_000,  # over the cap, refused before it is read
    b"Transfer-Encoding: chunked\r\n\r\n" + MALFORMED_CHUNKS["a chunk longer than its size"],
], ids=["over the cap", "malformed chunks"])
def test_a_body_left_unread_ends_its_connection_and_the_answer_says_so(served, unread):
    """The server closes a connection whose body it could not read to its end; its answer said
    `Connection: keep-alive`, so a client's pool sent its next request there, to be reset."""
    with socket.create_connection(("127.0.0.1", served), timeout=30) as s:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            s.sendall(b"POST /v1/players HTTP/1.1\r\nHost: x\r\n"
                      b"Authorization: Bearer " + OPERATOR_KEY.encode() + b"\r\n"
                      b"Content-Type: application/json\r\n" + unread)
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(65536):  # to the end: the server closes the connection
                answer += chunk
    head = answer.partition(b"\r\n\r\n")[0].lower().split(b"\r\n")
    assert head[0].split()[1] in (b"400", b"413"), answer
    assert b"connection: close" in head and b"connection: keep-alive" not in head


@pytest.mark.parametrize("case", MALFORMED_CHUNKS)
def test_a_malformed_chunked_body_is_a_400_and_changes_nothing(served, app, case):
    """gunicorn finds the fault as the app reads the body, and raised it through the app: a 500."""
    before = count_events(app)
    with socket.create_connection(("127.0.0.1", served), timeout=30) as s:
        s.sendall(b"POST /v1/players HTTP/1.1\r\nHost: x\r\n"
                  b"Authorization: Bearer " + OPERATOR_KEY.encode() + b"\r\n"
                  b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                  b"Connection: close\r\n\r\n" + MALFORMED_CHUNKS[case])
        s.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), answer
    assert b"application/problem+json" in head and b"chunked encoding is malformed" in body
    assert count_events(app) == before


def test_a_balance_past_the_largest_kept_is_said_so_and_nothing_changes(app, client, new_player):
    """A deposit that would carry a wallet past 2**63 - 1 was refused as "a value in the request
    cannot be stored", saying neither which value nor why. Nothing is written."""
    p = new_player(deposit=10)
    largest = 2**63 - 1
    pool = app.extensions["banco.pool"]

    def held(balance: int) -> None:  # the projection only: put back after, for the ledger's checks
        with pool.connection() as c:
            c.execute("UPDATE balances SET balance = %s WHERE account = %s", (balance, f"wallet:{p.id}"))

    held(largest - 5)  # as if deposited over the years
    try:
        r = client.post(f"/v1/players/{p.id}/deposits", json={"amount": 10, "reason": "more"},
                        headers=OPERATOR)
        assert r.status_code == 422 and str(largest) in r.json["detail"], r.json
        assert "balance" in r.json["detail"]
        assert client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"] == largest - 5
    finally:
        held(10)
    assert client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"] == 10


def test_an_idempotency_key_is_printable_ascii_as_the_contract_says(client, new_player, app):
    """openapi.yaml said any 1 to 200 characters; the server refused some (a UTF-8 key arrives
    as Latin-1, C1 controls among them) and took others. Both now say printable ASCII."""
    from service.http.contract import IDEMPOTENCY_KEY

    assert IDEMPOTENCY_KEY["schema"]["pattern"] == "^[ -~]{1,200}$"
    p = new_player()
    path = f"/v1/players/{p.id}/deposits"
    for key in ("日本".encode().decode("latin-1"), "café".encode().decode("latin-1"), "\xe9t\xe9"):
        r = client.post(path, json={"amount": 1, "reason": "d"}, headers={**OPERATOR, "Idempotency-Key": key})
        assert r.status_code == 422 and r.json["code"] == "invalid_idempotency_key", (key, r.json)
    r = client.post(path, json={"amount": 1, "reason": "d"},
                    headers={**OPERATOR, "Idempotency-Key": "a key ~ with spaces!"})
    assert r.status_code == 201, r.json


@pytest.mark.parametrize("name", [" ", "\t\n", "a\nb", "Ann\x00", "Dee\x7f", "Eve\x9b", "\u200b",
                                  "\u200b\u200d\u2060", "\u2800", "\u3164", "a\u2028b", "a\u2029b"])
def test_a_name_without_a_visible_character_or_with_control_characters_is_refused(client, app,
                                                                                    name):
    """A player's, an auditor's or a key's name that was only spaces (or zero-width or blank
    characters), or held a line break (U+2028 too), a NUL or another control character, was
    taken. Each is a 422 naming the field, and nothing is
    written. Text-direction characters are kept: the pages isolate names
    (tests/pages/test_bidi_names.py)."""
    before = count_events(app)
    for path, body in (("/v1/players", {"name": name}), ("/v1/auditors", {"name": name}),
                       ("/v1/keys", {"name": name, "scopes": ["players:read"]})):
        r = client.post(path, json=body, headers=OPERATOR)
        assert r.status_code == 422 and r.json["code"] == "invalid_input", (path, r.json)
        assert "name" in r.json["errors"]["json"], r.json
    assert count_events(app) == before
    for kept in ("Ada Lovelace", "Zoë", "\u200fעדה", "👩\u200d🚀"):  # any script, its marks, emoji
        assert client.post("/v1/players", json={"name": kept}, headers=OPERATOR).status_code == 201


def test_a_request_waiting_past_its_lock_timeout_is_a_503_that_changes_nothing(config, new_player):
    """A table held by a transaction left open (a node hung in the middle of a move) kept each
    request for it waiting, holding one of the pool's connections, until every connection was
    taken and requests about anything else answered 503 too. A request's session gives up a
    lock after its `lock_timeout` (10 s as served: tests/service/test_timeouts.py; a fraction
    of a second here) and answers 503 `locked` with Retry-After; the rest of the API answers."""
    import psycopg

    from events.postgres import make_pool
    from service.http.app import create_app
    from tests.service.play import Session

    pool = make_pool(config.database_url, max_size=2, timeout=5,
                     settings={"lock_timeout": "300ms", "idle_in_transaction_session_timeout": "60s"})
    app = create_app(config, pool=pool)
    try:
        client = app.test_client()
        session = Session(client, "sette-e-mezzo", [new_player(f"L{i}", deposit=50) for i in range(2)])
        session.open({}, 20)
        late, other = new_player("Late", deposit=50), new_player("Other", deposit=50)
        store = app.extensions["banco.store"]
        before = len(store.read_stream(f"table-{session.table_id}"))
        with psycopg.connect(config.database_url, autocommit=True) as stuck:
            stuck.execute("BEGIN")
            stuck.execute("SELECT version FROM streams WHERE stream_id = %s FOR UPDATE",
                          (f"table-{session.table_id}",))
            for _ in range(3):  # more than the pool holds: none is kept
                r = client.post(f"/v1/tables/{session.table_id}/seats", json={"buy_in": 10},
                                headers=late.auth)
                assert (r.status_code, r.json["code"]) == (503, "locked"), r.json
                assert r.headers["Retry-After"] == "5"
                assert r.headers["Content-Type"] == "application/problem+json"
            r = client.post(f"/v1/players/{other.id}/deposits", json={"amount": 1, "reason": "r"},
                            headers=OPERATOR)
            assert r.status_code == 201, r.json
            stuck.execute("ROLLBACK")
        assert len(store.read_stream(f"table-{session.table_id}")) == before
        r = client.post(f"/v1/tables/{session.table_id}/seats", json={"buy_in": 10}, headers=late.auth)
        assert r.status_code == 201, r.json
    finally:
        pool.close()
        app.extensions["banco.export_pool"].close()
