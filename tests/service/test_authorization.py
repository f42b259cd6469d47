"""Who may call what: every endpoint for every kind of caller, from one table.

The table must name every route of the app: adding an endpoint without deciding who may call it
fails `test_every_route_has_a_row`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.service.conftest import OPERATOR, bearer

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
]


def make_world(client, new_player, deal: bool) -> World:
    me, partner, stranger = (new_player(n, deposit=50) for n in ("Me", "Partner", "Stranger"))
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
    for p in (me, partner):
        assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": 20},
                           headers=p.auth).status_code == 201
    hand = None
    if deal:
        hand = client.post(f"/v1/tables/{table}/hands", headers=OPERATOR).json["hand"]["id"]
    job = client.post("/v1/audit/ledger-checks", headers=OPERATOR).json["id"]
    auditor = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json
    # Paused at once: the session's workers have nothing to send it (but for the resume's row).
    hook = client.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/", "event_types":
                                             ["PlayerErased"]}, headers=OPERATOR).json
    hook_id = hook["subscription"]["id"]
    client.post(f"/v1/webhooks/{hook_id}/pause", headers=OPERATOR)
    return World(me, stranger, table, hand, job, auditor["token"], auditor["id"], hook_id)


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
        path = path.replace("<subscription_id>", "{hook}")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add((method, path))
    assert routes == rows


@pytest.mark.parametrize(("method", "route", "body", "deal", "expected"), MATRIX,
                         ids=[f"{m} {r}" for m, r, *_ in MATRIX])
def test_who_may_call_what(client, new_player, method, route, body, deal, expected):
    for caller, allowed in zip(CALLERS, expected.split(), strict=True):
        world = make_world(client, new_player, deal)
        path = route.format(me=world.me.id, table=world.table, hand=world.hand, job=world.job,
                            auditor=world.auditor_id, game="cassino", hook=world.hook)
        headers = world.headers(caller)
        if method == "POST" and "/actions" in path:
            version = client.get(f"/v1/tables/{world.table}", headers=OPERATOR).json["version"]
            headers = {**headers, "If-Match": f'"{version}"'}
        r = client.open(path, method=method, json=body, headers=headers)
        r.close()  # an asset is a file the response holds open
        assert str(r.status_code) in allowed.split("|"), (caller, r.status_code, r.get_json())
        if r.status_code >= 400:
            assert r.headers["Content-Type"] == "application/problem+json"
