"""Who may call what: every endpoint for every kind of caller, from one table.

The table must name every route of the app: adding an endpoint without deciding who may call it
fails `test_every_route_has_a_row`. Each route the operator may call names, in `SCOPE_OF`, the
scope an operator key needs for it (None: any key), which the API says too (`x-banco-scope`);
`test_a_key_needs_the_scope_of_each_route` proves a key without it refused and one with only
it let through.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from events.model import ConcurrencyConflict
from service.application import settling
from service.application.postgres_unit_of_work import transaction
from service.application.scopes import SCOPES
from tests.service.conftest import OPERATOR, bearer
from tests.service.play import until_covered
from tests.service.test_timeouts import wait_for

CALLERS = ("none", "bad", "self", "other", "auditor", "operator")


@dataclass
class World:
    """A player (`self`) seated at a table with a second one, a stranger (`other`), ids to use."""

    me: Any
    stranger: Any
    table: str
    hand: str | None
    job: str
    auditor: str
    auditor_id: str
    hook: str
    key: str
    dispute: str | None
    settled: str | None  # a settled hand of the two players: one is disputed once settled

    def headers(self, caller: str) -> dict[str, str]:
        return {
            "none": {}, "bad": bearer("bnc_not-a-token"), "self": self.me.auth,
            "other": self.stranger.auth, "auditor": bearer(self.auditor), "operator": OPERATOR,
        }[caller]


# (method, route, body or None, deal a hand first?, statuses for CALLERS in order)
MATRIX: list[tuple[str, str, Any, bool, str]] = [
    # The pages: static shells that hold no data, the same to everyone (their API calls are
    # authorized as any client's).
    ("GET", "/", None, False, "200 200 200 200 200 200"),
    ("GET", "/tables/{table}", None, False, "200 200 200 200 200 200"),
    ("GET", "/hands/{hand}", None, False, "200 200 200 200 200 200"),
    ("GET", "/players/{me}", None, False, "200 200 200 200 200 200"),
    ("GET", "/console", None, False, "200 200 200 200 200 200"),
    ("GET", "/favicon.ico", None, False, "200 200 200 200 200 200"),
    ("GET", "/v1/me", None, False, "401 401 200 200 200 200"),
    ("GET", "/v1/players", None, False, "401 401 403 403 200 200"),
    ("GET", "/v1/jobs", None, False, "401 401 403 403 200 200"),
    ("POST", "/v1/jobs/{job}/requeue", None, False, "401 401 403 403 403 409"),
    ("GET", "/docs", None, False, "200 200 200 200 200 200"),
    ("GET", "/docs/assets/swagger-ui.css", None, False, "200 200 200 200 200 200"),
    ("GET", "/openapi.json", None, False, "200 200 200 200 200 200"),
    ("GET", "/openapi.yaml", None, False, "200 200 200 200 200 200"),
    ("GET", "/healthz", None, False, "200 200 200 200 200 200"),
    ("GET", "/readyz", None, False, "200 200 200 200 200 200"),
    ("GET", "/metrics", None, False, "401 401 403 403 403 200"),
    ("POST", "/v1/players", {"name": "x"}, False, "401 401 403 403 403 201"),
    ("GET", "/v1/players/{me}", None, False, "401 401 200 403 200 200"),
    ("POST", "/v1/players/{me}/deposits", {"amount": 1, "reason": "r"}, False, "401 401 403 403 403 201"),
    ("POST", "/v1/players/{me}/withdrawals", {"amount": 1, "reason": "r"}, False,
     "401 401 403 403 403 201"),
    ("GET", "/v1/players/{me}/balance", None, False, "401 401 200 403 200 200"),
    ("GET", "/v1/players/{me}/balance-history", None, False, "401 401 200 403 200 200"),
    ("POST", "/v1/auditors", {"name": "x"}, False, "401 401 403 403 403 201"),
    ("GET", "/v1/auditors/{auditor}", None, False, "401 401 403 403 200 200"),
    ("POST", "/v1/players/{me}/token", None, False, "401 401 201 403 403 201"),
    ("DELETE", "/v1/players/{me}/token", None, False, "401 401 403 403 403 204"),
    ("POST", "/v1/players/{me}/erasure", None, False, "401 401 403 403 403 200"),
    ("POST", "/v1/auditors/{auditor}/token", None, False, "401 401 403 403 403 201"),
    ("DELETE", "/v1/auditors/{auditor}/token", None, False, "401 401 403 403 403 204"),
    ("POST", "/v1/audit/ledger-checks", None, False, "401 401 403 403 202 202"),
    ("GET", "/v1/audit/ledger-checks/{job}", None, False, "401 401 403 403 200 200"),
    ("GET", "/v1/games", None, False, "200 200 200 200 200 200"),
    ("GET", "/v1/games/{game}", None, False, "200 200 200 200 200 200"),
    ("GET", "/v1/games/{game}/rules", None, False, "200 200 200 200 200 200"),
    ("POST", "/v1/tables", {"game": "sette-e-mezzo"}, False, "401 401 201 201 403 201"),
    ("GET", "/v1/tables", None, False, "401 401 200 200 200 200"),
    ("GET", "/v1/tables?player={me}", None, False, "401 401 200 403 200 200"),
    ("GET", "/v1/tables/{table}", None, True, "401 401 200 200 200 200"),
    # Closing is the operator's; a hand in play makes it a 409.
    ("POST", "/v1/tables/{table}/close", None, True, "401 401 403 403 403 409"),
    ("POST", "/v1/tables/{table}/close", None, False, "401 401 403 403 403 200"),
    ("POST", "/v1/tables/{table}/seats", {"buy_in": 5}, False, "401 401 409 201 403 403"),
    ("DELETE", "/v1/tables/{table}/seats/{me}", None, False, "401 401 200 403 403 200"),
    ("POST", "/v1/tables/{table}/hands", None, False, "401 401 201 403 403 201"),
    ("POST", "/v1/tables/{table}/actions", {"type": "bet", "amount": 1}, True,
     "401 401 200|422 403 403 403"),
    ("GET", "/v1/tables/{table}/events", None, True, "401 401 200 200 200 200"),
    ("GET", "/v1/tables/{table}/stream?timeout=0.1", None, True, "401 401 200 200 200 200"),
    ("GET", "/v1/feed?limit=1", None, False, "401 401 403 403 200 200"),
    ("GET", "/v1/feed/stream?timeout=0.1", None, False, "401 401 403 403 200 200"),
    # A ticket for the log's feed: to whom may follow it (a table's is anyone's, as its stream).
    ("POST", "/v1/stream-tickets", {"stream": "feed"}, False, "401 401 403 403 201 201"),
    ("GET", "/v1/balances?as_of=1&limit=1", None, False, "401 401 403 403 200 200"),
    ("GET", "/v1/tables/{table}/hands", None, True, "401 401 200 200 200 200"),
    ("GET", "/v1/hands/{hand}", None, True, "401 401 200 200 200 200"),
    ("GET", "/v1/hands/{hand}/replay", None, True, "401 401 403 403 200 403"),
    ("GET", "/v1/hands/{hand}/verification", None, True, "401 401 403 403 200 403"),
    # The hand is in play: its evidence is an auditor's until it is settled, as its replay.
    ("GET", "/v1/hands/{hand}/evidence", None, True, "401 401 403 403 200 403"),
    ("GET", "/.well-known/banco-house-key", None, False, "200 200 200 200 200 200"),
    ("GET", "/v1/audit/checkpoints", None, False, "401 401 403 403 200 200"),
    ("POST", "/v1/audit/checkpoints", None, False, "401 401 403 403 403 201"),
    ("GET", "/v1/players/{me}/balance-history.svg", None, False, "401 401 200 403 200 200"),
    ("POST", "/v1/webhooks", {"url": "http://127.0.0.1:9/", "event_types": ["PlayerErased"]}, False,
     "401 401 403 403 403 201"),
    ("GET", "/v1/webhooks", None, False, "401 401 403 403 403 200"),
    ("GET", "/v1/webhooks/{hook}", None, False, "401 401 403 403 403 200"),
    ("POST", "/v1/webhooks/{hook}/pause", None, False, "401 401 403 403 403 200"),
    ("POST", "/v1/webhooks/{hook}/resume", None, False, "401 401 403 403 403 200"),
    ("POST", "/v1/webhooks/{hook}/replay", {"position": 0}, False, "401 401 403 403 403 200"),
    ("GET", "/v1/webhooks/{hook}/deliveries", None, False, "401 401 403 403 403 200"),
    # After the others: the operator's deletes the subscription they use.
    ("DELETE", "/v1/webhooks/{hook}", None, False, "401 401 403 403 403 204"),
    ("POST", "/v1/keys", {"name": "k", "scopes": ["keys:admin"]}, False, "401 401 403 403 403 201"),
    ("GET", "/v1/keys", None, False, "401 401 403 403 403 200"),
    ("GET", "/v1/keys/{key}", None, False, "401 401 403 403 403 200"),
    ("POST", "/v1/keys/{key}/rotation", None, False, "401 401 403 403 403 200"),
    ("DELETE", "/v1/keys/{key}", None, False, "401 401 403 403 403 204"),
    # Disputes: a player only about a hand he played (the stranger did not); deciding one is
    # the operator's alone.
    ("POST", "/v1/disputes", {"hand_id": "{settled}", "reason": "r"}, True, "401 401 201 403 201 201"),
    ("GET", "/v1/disputes", None, False, "401 401 200 200 200 200"),
    ("GET", "/v1/disputes/{dispute}", None, True, "401 401 200 403 200 200"),
    ("POST", "/v1/disputes/{dispute}/evidence", {"note": "n"}, True, "401 401 201 403 201 201"),
    ("POST", "/v1/disputes/{dispute}/readjudications", {}, True, "401 401 201 403 201 201"),
    ("POST", "/v1/disputes/{dispute}/resolution", {"note": "n", "corrections": [
        {"from": "house", "to": "{me}", "amount": 1}]}, True, "401 401 403 403 403 200"),
    ("POST", "/v1/disputes/{dispute}/rejection", {"note": "n"}, True, "401 401 403 403 403 200"),
]

# The scope an operator key needs for each route the operator may call (None: any key will do).
SCOPE_OF: dict[tuple[str, str], str | None] = {
    **{("GET", route): None for route in (
        "/", "/tables/{table}", "/hands/{hand}", "/players/{me}", "/console", "/favicon.ico",
        "/v1/me", "/docs", "/docs/assets/swagger-ui.css", "/openapi.json", "/openapi.yaml",
        "/healthz", "/readyz", "/v1/games", "/v1/games/{game}", "/v1/games/{game}/rules",
        "/.well-known/banco-house-key")},
    ("GET", "/v1/players"): "players:read",
    ("POST", "/v1/players"): "players:write",
    ("GET", "/v1/players/{me}"): "players:read",
    ("GET", "/v1/players/{me}/balance"): "players:read",
    ("GET", "/v1/players/{me}/balance-history"): "players:read",
    ("GET", "/v1/players/{me}/balance-history.svg"): "players:read",
    ("POST", "/v1/players/{me}/token"): "players:write",
    ("DELETE", "/v1/players/{me}/token"): "players:write",
    ("POST", "/v1/players/{me}/erasure"): "players:write",
    ("POST", "/v1/players/{me}/deposits"): "treasure:write",
    ("POST", "/v1/players/{me}/withdrawals"): "treasure:write",
    ("GET", "/v1/balances?as_of=1&limit=1"): "treasure:read",
    ("POST", "/v1/tables"): "tables:write",
    ("GET", "/v1/tables"): "tables:read",
    ("GET", "/v1/tables?player={me}"): "tables:read",
    ("GET", "/v1/tables/{table}"): "tables:read",
    ("POST", "/v1/tables/{table}/close"): "tables:write",
    ("DELETE", "/v1/tables/{table}/seats/{me}"): "tables:write",
    ("POST", "/v1/tables/{table}/hands"): "tables:write",
    ("GET", "/v1/tables/{table}/events"): "tables:read",
    ("GET", "/v1/tables/{table}/stream?timeout=0.1"): "tables:read",
    ("GET", "/v1/tables/{table}/hands"): "tables:read",
    ("GET", "/v1/hands/{hand}"): "tables:read",
    ("POST", "/v1/auditors"): "auditors:admin",
    ("GET", "/v1/auditors/{auditor}"): "auditors:admin",
    ("POST", "/v1/auditors/{auditor}/token"): "auditors:admin",
    ("DELETE", "/v1/auditors/{auditor}/token"): "auditors:admin",
    ("POST", "/v1/audit/ledger-checks"): "audit:read",
    ("GET", "/v1/audit/ledger-checks/{job}"): "audit:read",
    ("GET", "/v1/audit/checkpoints"): "audit:read",
    ("POST", "/v1/audit/checkpoints"): "audit:write",
    ("GET", "/v1/feed?limit=1"): "audit:read",
    ("GET", "/v1/feed/stream?timeout=0.1"): "audit:read",
    ("POST", "/v1/stream-tickets"): "audit:read",  # for the feed's stream, as the row asks
    ("GET", "/metrics"): "metrics:read",
    ("GET", "/v1/jobs"): "jobs:read",
    ("POST", "/v1/jobs/{job}/requeue"): "jobs:admin",
    **{(method, route): "webhooks:admin" for method, route, *_ in [
        ("POST", "/v1/webhooks"), ("GET", "/v1/webhooks"), ("GET", "/v1/webhooks/{hook}"),
        ("POST", "/v1/webhooks/{hook}/pause"), ("POST", "/v1/webhooks/{hook}/resume"),
        ("POST", "/v1/webhooks/{hook}/replay"), ("GET", "/v1/webhooks/{hook}/deliveries"),
        ("DELETE", "/v1/webhooks/{hook}")]},
    ("GET", "/v1/disputes"): "disputes:read",
    ("GET", "/v1/disputes/{dispute}"): "disputes:read",
    **{(method, route): "disputes:write" for method, route in [
        ("POST", "/v1/disputes"), ("POST", "/v1/disputes/{dispute}/evidence"),
        ("POST", "/v1/disputes/{dispute}/readjudications"),
        ("POST", "/v1/disputes/{dispute}/resolution"),
        ("POST", "/v1/disputes/{dispute}/rejection")]},
    **{(method, route): "keys:admin" for method, route in [
        ("POST", "/v1/keys"), ("GET", "/v1/keys"), ("GET", "/v1/keys/{key}"),
        ("POST", "/v1/keys/{key}/rotation"), ("DELETE", "/v1/keys/{key}")]},
}
# The rows the operator may call (not refused him whoever he is): each needs its entry above.
OPERATOR_ROWS = [row for row in MATRIX if row[4].split()[-1] not in ("401", "403")]
# A hand's own reads, which the matrix's world (a hand in play) refuses the operator: proved on
# a settled hand (`test_a_settled_hands_reads_need_their_scope`).
HAND_READS = {("GET", "/v1/hands/{hand}/replay"): "tables:read",
              ("GET", "/v1/hands/{hand}/verification"): "audit:read",
              ("GET", "/v1/hands/{hand}/evidence"): "audit:read"}


def make_world(client, new_player, deal: bool) -> World:
    me, partner, stranger = (new_player(n, deposit=50) for n in ("Me", "Partner", "Stranger"))
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
    for p in (me, partner):
        assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": 20},
                           headers=p.auth).status_code == 201
    hand = dispute = settled = None
    if deal:
        hand = client.post(f"/v1/tables/{table}/hands", headers=OPERATOR).json["hand"]["id"]
        settled = settled_hand(client, me, partner)
        dispute = client.post("/v1/disputes", json={"hand_id": settled, "reason": "r"},
                              headers=OPERATOR).json["id"]
    job = client.post("/v1/audit/ledger-checks", headers=OPERATOR).json["id"]
    auditor = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json
    # Paused at once: the session's workers have nothing to send it (but for the resume's row).
    hook = client.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/", "event_types":
                                             ["PlayerErased"]}, headers=OPERATOR).json
    hook_id = hook["subscription"]["id"]
    client.post(f"/v1/webhooks/{hook_id}/pause", headers=OPERATOR)
    # A key the route's own key may act on: rotating one hands its scopes over, so a key with
    # `keys:admin` alone rotates only keys that hold no more (test_operator_keys.py).
    key = client.post("/v1/keys", json={"name": "a key", "scopes": ["keys:admin"]},
                      headers=OPERATOR).json["key"]["id"]
    return World(me, stranger, table, hand, job, auditor["token"], auditor["id"], hook_id, key,
                 dispute, settled)


def settled_hand(client, me, partner) -> str:
    """A settled hand of `me` (the banker) and `partner`, at a table of its own: the partner
    bets the minimum and both stand; it is settled here (a worker may get there first)."""
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
    for p in (me, partner):
        assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": 3},
                           headers=p.auth).status_code == 201
    hand = client.post(f"/v1/tables/{table}/hands", headers=OPERATOR).json["hand"]["id"]
    while client.get(f"/v1/tables/{table}", headers=OPERATOR).json["status"] == "playing":
        for p in (partner, me):
            seen = client.get(f"/v1/tables/{table}", headers=p.auth).json
            if seen["legal_actions"]:
                kind = {a["type"] for a in seen["legal_actions"]}
                action = {"type": "bet", "amount": 1} if "bet" in kind else {"type": "stand"}
                moved = client.post(f"/v1/tables/{table}/actions", json=action,
                                    headers={**p.auth, "If-Match": f'"{seen["version"]}"'})
                assert moved.status_code == 200, moved.json
                break
    app = client.application
    try:
        with transaction(app.extensions["banco.pool"], app.extensions["banco.store"]) as uow:
            settling.settle(uow, table, hand, {"actor": "worker", "command": "SettleHand",
                                               "hand": hand})
    except ConcurrencyConflict:
        pass  # a worker settled it first: its settlement stream is taken, once
    wait_for(lambda: client.get(f"/v1/hands/{hand}", headers=OPERATOR).json["status"]
             == "settled", timeout=30)
    return str(hand)


def test_every_route_has_a_row(app):
    rows = {(method, route.split("?")[0]) for method, route, *_ in MATRIX}
    routes = set()
    for rule in app.url_map.iter_rules():
        if str(rule).startswith("/static"):
            continue
        path = str(rule).replace("<table_id>", "{table}").replace("<player_id>", "{me}")
        path = path.replace("<hand_id>", "{hand}").replace("<job_id>", "{job}")
        path = path.replace("<auditor_id>", "{auditor}").replace("<game>", "{game}")
        path = path.replace("<path:filename>", "swagger-ui.css")
        path = path.replace("<subscription_id>", "{hook}").replace("<key_id>", "{key}")
        path = path.replace("<dispute_id>", "{dispute}")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add((method, path))
    assert routes == rows


@pytest.mark.parametrize(("method", "route", "body", "deal", "expected"), MATRIX,
                         ids=[f"{m} {r}" for m, r, *_ in MATRIX])
def test_who_may_call_what(client, new_player, method, route, body, deal, expected):
    world = None
    for caller, allowed in zip(CALLERS, expected.split(), strict=True):
        # Each caller finds the world as the first found it: a refused call changes nothing (Bad
        # input and refusals write nothing, the README's promise), nor does a read, so a world is
        # made anew only after a write that was let through.
        if world is None:
            world = make_world(client, new_player, deal)
        r = call(client, world, method, route, body, world.headers(caller))
        assert str(r.status_code) in allowed.split("|"), (caller, r.status_code, r.get_json())
        if r.status_code >= 400:
            assert r.headers["Content-Type"] == "application/problem+json"
        elif method not in ("GET", "HEAD"):
            world = None


def call(client, world: World, method: str, route: str, body: Any, headers: dict[str, str]):
    ids = {"me": world.me.id, "table": world.table, "hand": world.hand, "job": world.job,
           "auditor": world.auditor_id, "game": "cassino", "hook": world.hook, "key": world.key,
           "dispute": world.dispute, "settled": world.settled}
    path = route.format(**ids)
    body = _filled(body, ids)
    if method == "POST" and "/actions" in path:
        version = client.get(f"/v1/tables/{world.table}", headers=OPERATOR).json["version"]
        headers = {**headers, "If-Match": f'"{version}"'}
    r = until_covered(lambda: client.open(path, method=method, json=body, headers=headers))
    r.close()  # an asset is a file the response holds open
    return r


def _filled(body: Any, ids: dict[str, Any]) -> Any:
    """`body` with the world's ids in its strings' `{...}`."""
    if isinstance(body, dict):
        return {k: _filled(v, ids) for k, v in body.items()}
    if isinstance(body, list):
        return [_filled(v, ids) for v in body]
    return body.format(**ids) if isinstance(body, str) else body


def operator_key(client, *scopes: str) -> dict[str, str]:
    made = client.post("/v1/keys", json={"name": "scoped", "scopes": list(scopes)},
                       headers=OPERATOR)
    assert made.status_code == 201, made.json
    return bearer(made.json["secret"])


def test_every_operator_route_names_its_scope(client):
    assert {(m, r) for m, r, *_ in OPERATOR_ROWS} == set(SCOPE_OF)
    # ... as the API says it: in each operation of its OpenAPI document.
    said = {}
    for path, item in client.get("/openapi.json").json["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict):  # the path's own parameters
                continue
            said[(method.upper(), path.replace("{table_id}", "{table}"))] = \
                operation.get("x-banco-scope")
    for (method, route), scope in {**SCOPE_OF, **HAND_READS}.items():
        path = route.split("?")[0].replace("{me}", "{player_id}").replace("{hand}", "{hand_id}")
        path = path.replace("{job}", "{job_id}").replace("{auditor}", "{auditor_id}")
        path = path.replace("{hook}", "{subscription_id}").replace("{key}", "{key_id}")
        path = path.replace("{dispute}", "{dispute_id}")
        if path.startswith(("/v1/", "/metrics")) and route != "/v1/stream-tickets":
            assert said[(method, path)] == scope, (method, route)


@pytest.mark.parametrize(("method", "route"), list(HAND_READS))
def test_a_settled_hands_reads_need_their_scope(client, new_player, method, route):
    """A key holding `metrics:read` alone read any hand's replay, verification and evidence."""
    scope = HAND_READS[(method, route)]
    hand = settled_hand(client, new_player("Me", deposit=50), new_player("Partner", deposit=50))
    path = route.format(hand=hand)
    lacking = operator_key(client, *sorted(set(SCOPES) - {scope}))
    r = until_covered(lambda: client.get(path, headers=lacking))
    assert r.status_code == 403 and (r.json["code"], r.json["scope"]) == ("missing_scope", scope)
    r = until_covered(lambda: client.get(path, headers=operator_key(client, scope)))
    assert r.status_code == 200 and r.json["hand_id"] == hand, r.json


def test_every_scope_opens_some_route():
    assert set(SCOPE_OF.values()) - {None} == set(SCOPES)


# Routes that need a second scope besides their own, which a key holding only their own lacks:
# a webhook's subscription and replay choose what of the feed is sent, as the feed does.
ALSO_NEEDS = {("POST", "/v1/webhooks"): "audit:read",
              ("POST", "/v1/webhooks/{hook}/replay"): "audit:read"}


@pytest.mark.parametrize(("method", "route", "body", "deal", "expected"), OPERATOR_ROWS,
                         ids=[f"{m} {r}" for m, r, *_ in OPERATOR_ROWS])
def test_a_key_needs_the_scope_of_each_route(client, new_player, method, route, body, deal,
                                            expected):
    scope = SCOPE_OF[(method, route)]
    allowed = expected.split()[-1].split("|")
    others = sorted(set(SCOPES) - {scope})
    # Every scope but the route's: refused, naming it. Only the route's (or, where none is
    # needed, one that opens nothing here): as the bootstrap key.
    lacking = operator_key(client, *others) if scope else None
    also = ALSO_NEEDS.get((method, route))
    holding = operator_key(client, scope or "metrics:read", *([also] if also else []))
    if lacking is not None:
        r = call(client, make_world(client, new_player, deal), method, route, body, lacking)
        assert r.status_code == 403, (r.status_code, r.get_json())
        assert r.headers["Content-Type"] == "application/problem+json"
        assert (r.json["code"], r.json["scope"]) == ("missing_scope", scope)
        assert scope in r.json["detail"]
    if also is not None:  # its own scope alone: refused, naming the other
        r = call(client, make_world(client, new_player, deal), method, route, body,
                 operator_key(client, scope))
        assert r.status_code == 403 and (r.json["code"], r.json["scope"]) == ("missing_scope", also)
    r = call(client, make_world(client, new_player, deal), method, route, body, holding)
    assert str(r.status_code) in allowed, (r.status_code, r.get_json())


def test_a_closed_dispute_tells_nothing_to_a_player_who_may_not_read_it(client, new_player):
    """docs/disputes.md: another player gets 403 `not_your_dispute` when he adds evidence or
    asks for a re-adjudication. On a closed dispute he got 409 `dispute_closed` ("... was
    rejected already"), its outcome, because the dispute's state was judged before who asked."""
    me, partner = new_player("Me", deposit=50), new_player("Partner", deposit=50)
    outsider = new_player("Outsider", deposit=50)
    hand = settled_hand(client, me, partner)
    opened = client.post("/v1/disputes", json={"hand_id": hand, "reason": "why"}, headers=me.auth)
    assert opened.status_code == 201, opened.json
    path = f"/v1/disputes/{opened.json['id']}"
    assert client.post(f"{path}/rejection", json={"note": "no"}, headers=OPERATOR).status_code == 200
    for asked, body in (("evidence", {"note": "x"}), ("readjudications", {})):
        theirs = client.post(f"{path}/{asked}", json=body, headers=outsider.auth)
        assert theirs.status_code == 403 and theirs.json["code"] == "not_your_dispute", theirs.json
        assert "rejected" not in theirs.json["detail"]
        mine = client.post(f"{path}/{asked}", json=body, headers=me.auth)
        assert mine.status_code == 409 and mine.json["code"] == "dispute_closed", mine.json
