"""The bodies the API answers are those openapi.yaml describes, checked by a strict OpenAPI 3.0
validator (tests/service/responses.py) on every response the tests' clients receive; here, that
the check runs on a played hand of each game, and that it refuses what drifts."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from flask import Flask

from tests.service.conftest import OPERATOR, bearer
from tests.service.play import Session
from tests.service.responses import CheckedClient, message_problems, problems
from tests.service.test_authorization import settled_hand

PLAYED = [("sette-e-mezzo", {}, 50, 3), ("siete-y-media", {}, 50, 3), ("casino-pirate", {}, None, 3),
          ("pirate-pairs", {}, 40, 3), ("cassino", {"variant": "draw"}, 30, 2)]
TABLE = "/v1/tables/{table_id}"


class Counted(Session):
    """A session that counts the JSON bodies its players receive."""

    bodies: int = 0

    def call(self, *args: Any, **kwargs: Any) -> Any:
        r = super().call(*args, **kwargs)
        self.bodies += r.mimetype.endswith("json")
        return r


@pytest.mark.parametrize(("game", "options", "buy_in", "players"), PLAYED, ids=[g for g, *_ in PLAYED])
def test_every_body_a_played_hand_receives_is_checked(client, new_player, worker, game, options,
                                                      buy_in, players):
    """A hand played to its settlement, then read back and audited: each JSON body was held to
    the operation's schema (the count shows the check ran on every one)."""
    assert isinstance(client, CheckedClient)
    before = CheckedClient.checked
    session = Counted(client, game, [new_player(f"P{i}", deposit=100) for i in range(players)])
    session.open(options, buy_in)
    hand_id = session.deal()
    session.play_hand()
    hand = session.wait_settled(hand_id)
    assert hand["outcome"]["game"] == game and hand["postings"] is not None
    session.audit(hand_id)
    for p in session.players:
        session.call(p, "get", f"/v1/tables/{session.table_id}/hands")
    assert session.bodies > 10
    assert CheckedClient.checked - before >= session.bodies
    # The hand's stream, read from the start by each player and by the operator, and the
    # log's: each message was held to the stream's schema as it was read.
    streams = [(f"/v1/tables/{session.table_id}/stream", p.auth, {"turns": "true"})
               for p in session.players]
    streams += [(f"/v1/tables/{session.table_id}/stream", OPERATOR, {}), ("/v1/feed/stream", OPERATOR, {})]
    for path, auth, query in streams:
        before = CheckedClient.messages
        r = client.get(path, headers=auth, query_string={"timeout": 0.5, **query})
        sent = r.get_data().count(b"\ndata: ")
        assert sent > 10 and CheckedClient.messages - before == sent, path


@pytest.fixture(scope="module")
def shown(app, worker) -> dict[str, dict[str, Any]]:
    """A table of Sette e mezzo and one of Cassino as a seated player sees it mid-hand."""
    client = app.test_client()
    out = {}
    for game, options, buy_in in [("sette-e-mezzo", {}, 50), ("cassino", {"variant": "draw"}, 30)]:
        players = []
        for i in range(2):
            r = client.post("/v1/players", json={"name": f"S{i}"}, headers=OPERATOR)
            players.append((r.json["player"]["id"], {"Authorization": f"Bearer {r.json['token']}"}))
            client.post(f"/v1/players/{players[-1][0]}/deposits",
                        json={"amount": 100, "reason": "seed"}, headers=OPERATOR)
        table = client.post("/v1/tables", json={"game": game, "options": options},
                            headers=OPERATOR).json["id"]
        for _, auth in players:
            client.post(f"/v1/tables/{table}/seats", json={"buy_in": buy_in}, headers=auth)
        client.post(f"/v1/tables/{table}/hands", headers=OPERATOR)
        seen = [client.get(f"/v1/tables/{table}", headers=auth).json for _, auth in players]
        out[game] = next(t for t in seen if t["legal_actions"])
    return out


def _check(body: dict[str, Any]) -> list[str]:
    import orjson

    return problems("GET", TABLE, 200, "application/json", orjson.dumps(body))


# Each a drift of a field's type, value or shape that a client generated from the spec would
# trip over.
SPOILS = {
    "version as text": lambda t: t.update(version=str(t["version"])),
    "an unknown status": lambda t: t.update(status="closed"),
    "another game's name": lambda t: t.update(game="siete-y-media"),
    "a game not served": lambda t: t.update(game="poker"),
    "a field more": lambda t: t.update(secret=1),
    "a field less": lambda t: t.pop("turn"),
    "the view's stake as text": lambda t: t["view"].update(stake="1"),
    "a field more in the view": lambda t: t["view"].update(deck_seed="x"),
    "a turn waiting for nothing the game waits for": lambda t: t["turn"].update(waiting_for="nap"),
    "a turn's seat as text": lambda t: t["turn"].update(seat="0"),
    "a hand of an unknown status": lambda t: t["hand"].update(status="done"),
    "an option of the wrong type": lambda t: t["options"].update(max_bet="20"),
    "another game's action": lambda t: t.update(legal_actions=[
        {"type": "trail", "card": "7H"}]),
    "an action of no game": lambda t: t.update(legal_actions=[{"type": "fold"}]),
}


@pytest.mark.parametrize("spoil", list(SPOILS))
def test_the_check_refuses_a_table_that_drifts(shown, spoil):
    table = shown["sette-e-mezzo"]
    assert _check(table) == []
    wrong = copy.deepcopy(table)
    SPOILS[spoil](wrong)
    assert _check(wrong), spoil


def test_a_table_is_checked_as_its_games(shown):
    """The table is told apart by `game`: a Cassino view, offer or options in a Sette e mezzo
    table is refused (and the other way), and each table passes as its own game's."""
    sette, cassino = shown["sette-e-mezzo"], shown["cassino"]
    assert _check(cassino) == []
    for field in ("view", "legal_actions", "options"):
        assert _check({**sette, field: cassino[field]}), field
        assert _check({**cassino, field: sette[field]}), field


def test_a_table_between_hands_has_null_where_the_spec_says_nullable(shown):
    """`hand`, `turn` and `view` are null on a table never dealt: OpenAPI 3.0.3 lets `nullable`
    add null to the `type` beside it alone (not to an `allOf` or `oneOf` beside it), so each is
    `oneOf` its reference and `Null`."""
    table = {**shown["cassino"], "hand": None, "turn": None, "view": None, "you": None,
             "legal_actions": [], "status": "open"}
    assert _check(table) == []
    assert _check({**table, "view": {}}), "an empty object is not a null view"


def test_the_nulls_the_api_sends_pass_the_strict_validator(client, new_player):
    """The nulls in place of an object the API sends, each in a real response held to the
    document as written (tests/service/responses.py, no reading of `nullable` wider than
    OpenAPI 3.0.3's): an open table's `turn`, `hand` and `view`, a replay's state before the
    engine's first event, a verification's check that names no event, a ledger check not yet run,
    an open dispute's resolution. openapi-schema-validator's OAS30Validator refused each of them
    when the spec wrote a nullable reference `allOf` it beside `nullable: true`."""
    assert isinstance(client, CheckedClient)
    before = CheckedClient.checked

    def ok(r: Any, status: int = 200) -> Any:  # the checked client has held the body already
        assert r.status_code == status, r.json
        return r.json

    table = ok(client.post("/v1/tables", json={"game": "cassino"}, headers=OPERATOR), 201)["id"]
    shown = ok(client.get(f"/v1/tables/{table}", headers=OPERATOR))
    assert (shown["turn"], shown["hand"], shown["view"]) == (None, None, None)

    me, partner = new_player("A", deposit=100), new_player("B", deposit=100)
    hand = settled_hand(client, me, partner)
    auditor = bearer(ok(client.post("/v1/auditors", json={"name": "Eve"}, headers=OPERATOR),
                        201)["token"])
    steps = ok(client.get(f"/v1/hands/{hand}/replay", headers=auditor))["steps"]
    assert steps[0]["type"] == "HandBegan" and steps[0]["state"] is None
    checks = ok(client.get(f"/v1/hands/{hand}/verification", headers=auditor))["checks"]
    assert [c for c in checks if c["event"] is None]
    check = ok(client.post("/v1/audit/ledger-checks", headers=OPERATOR), 202)
    assert check["result"] is None or check["status"] == "finished"  # a worker may be quicker
    ok(client.post("/v1/disputes", json={"hand_id": hand, "reason": "r"}, headers=me.auth), 201)
    disputes = ok(client.get("/v1/disputes", headers=OPERATOR))["items"]
    assert [d for d in disputes if d["resolution"] is None]
    assert CheckedClient.checked - before >= 8


def test_a_checked_client_fails_the_test_that_receives_a_drifting_body():
    """The hook itself: a response unlike the document fails at the request (a stand-in app
    that answers GET /v1/tables/{table_id} with a table of the wrong shape)."""
    app = Flask(__name__)
    app.test_client_class = CheckedClient

    @app.get("/v1/tables/<table_id>")
    def table(table_id: str) -> Any:
        return {"id": table_id, "game": "cassino", "version": "1"}

    @app.get("/v1/games")
    def games() -> Any:
        return [{"name": "cassino"}], 418

    with pytest.raises(AssertionError, match="version"):
        app.test_client().get("/v1/tables/tb_1")
    with pytest.raises(AssertionError, match="status not listed"):
        app.test_client().get("/v1/games")


POSTED = {"position": 3, "stream": "player-pl_1", "version": 1, "type": "TreasurePosted",
          "recorded_at": "2026-11-27T16:00:00+00:00", "hand": None,
          "data": {"from": "house:issued", "to": "wallet:pl_1", "amount": 100, "reason": "seed"}}
DEALT = {**POSTED, "stream": "table-tb_1", "type": "game.CardDealt", "hand": "hd_1",
         "data": {"seat": 0, "index": 0, "face_up": False, "timeout": False}}
# An event's drift from its type's payload: each caught now that `data` is typed by `type`.
EVENT_SPOILS = {
    "an amount as text": lambda e: e["data"].update(amount="100"),
    "a member the payload has not": lambda e: e["data"].update(note="x"),
    "a member missing": lambda e: e["data"].pop("reason"),
    "an account of no form": lambda e: e["data"].update(to="bank"),
    "another type's payload": lambda e: e.update(type="TokenIssued"),
    "a type of no event": lambda e: e.update(type="Posted"),
    "a registration with its sealed name": lambda e: e.update(
        type="PlayerRegistered", data={"player_id": "pl_1", "name_enc": "x"}),
    "an engine's event without its prefix": lambda e: e.update(DEALT, type="CardDealt"),
}


def _feed(*items: dict[str, Any]) -> list[str]:
    import orjson

    return problems("GET", "/v1/feed", 200, "application/json",
                    orjson.dumps({"items": list(items), "next_after": 3}))


@pytest.mark.parametrize("spoil", list(EVENT_SPOILS))
def test_a_feed_event_is_checked_as_its_type(spoil):
    assert _feed(POSTED, DEALT, {**POSTED, "type": "PlayerRegistered", "data": {"player_id": "pl_1"}}) == []
    wrong = copy.deepcopy(POSTED)
    EVENT_SPOILS[spoil](wrong)
    assert _feed(wrong), spoil


CHECK = {"name": "deck.order", "passed": True, "evidence": {"cards": 2, "recomputed": ["1C", "2C"]},
         "event": None}
CHECK_SPOILS = {
    "a count as text": lambda c: c["evidence"].update(cards="2"),
    "another check's evidence": lambda c: c["evidence"].update(cards_checked=2),
    "a check of no name": lambda c: c.update(name="deck.cut"),
    "an event named by nothing": lambda c: c.update(event={}),
}


def _verification(check: dict[str, Any]) -> list[str]:
    import orjson

    body = {"hand_id": "hd_1", "table_id": "tb_1", "game": "cassino", "rules_version": 1,
            "settled": True, "passed": True, "checks": [check]}
    return problems("GET", "/v1/hands/{hand_id}/verification", 200, "application/json",
                    orjson.dumps(body))


@pytest.mark.parametrize("spoil", list(CHECK_SPOILS))
def test_a_checks_evidence_is_checked_as_its_name(spoil):
    assert _verification(CHECK) == []
    assert _verification({**CHECK, "passed": False, "evidence": {"reason": "differs", "position": 1,
                                                                   "recorded": ["1C"]},
                          "event": {"stream": "table-tb_1", "version": 2}}) == []
    wrong = copy.deepcopy(CHECK)
    CHECK_SPOILS[spoil](wrong)
    assert _verification(wrong), spoil


def test_a_streams_message_is_checked_as_its_event_says():
    """The `data:` of a table's stream is its `TableStreamMessage`, and its `event:` the type
    of what it holds; the log's stream's, its `FeedStreamMessage`."""
    import orjson

    def message(event: str, data: dict[str, Any], route: str = TABLE + "/stream") -> list[str]:
        return message_problems(route, f"id: 3\nevent: {event}\ndata: {orjson.dumps(data).decode()}")

    event = {**{k: v for k, v in POSTED.items() if k not in ("position", "stream")}, "kind": "ledger"}
    assert message("TreasurePosted", event) == []
    assert message("TreasurePosted", POSTED, "/v1/feed/stream") == []
    assert message_problems("/v1/feed/stream", ": keep-alive") == []
    assert message("TreasurePosted", {**event, "kind": "table"})  # a posting is of the ledger
    assert message("TreasurePosted", POSTED)  # a feed's event in a table's stream
    assert message("TreasurePosted", {**POSTED, "type": "Posted"}, "/v1/feed/stream")
    assert message("table", event)
    assert message("TokenIssued", event)
