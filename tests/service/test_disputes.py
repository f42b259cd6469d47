"""Disputes over HTTP, on a real hand: opened by its player, given evidence by an auditor,
re-adjudicated under the hand's rules version and under a newer one, resolved with corrective
postings, which the hand, the feed, webhooks and balance history show; treasure conserved and
`banco verify --all` passing after it.

The newer version is the tests' second version of Sette e mezzo (tests/service/test_rules_versions):
its registry is served in this module's app, on a database of the module's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from events.model import StoredEvent
from projections.check import differences
from service.application import webhooks
from service.application.principal import OPERATOR as OPERATOR_PRINCIPAL
from service.application.redaction import Redactor
from tests.conftest import fresh_database
from tests.service.conftest import OPERATOR, app_on, bearer
from tests.service.tamper import edit, log_copy
from tests.service.test_audit_cli import banco
from tests.service.test_rules_versions import new_table, play_hand, players, serve_version_2
from tests.service.test_timeouts import wait_for
from workers.jobs import DRIFT


@pytest.fixture(scope="module")
def own_url(database_url: str) -> Iterator[str]:
    with fresh_database(database_url, "banco_disputes") as url:
        yield url


@pytest.fixture(scope="module")
def own_app(config: Any, own_url: str) -> Iterator[Flask]:
    with app_on(replace(config, database_url=own_url,
                        queue_name=f"{config.queue_name}-disputes")) as app:
        yield app


@pytest.fixture
def own(own_app: Flask) -> FlaskClient:
    return own_app.test_client()


def problem(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, (r.status_code, r.json)
    assert r.mimetype == "application/problem+json" and r.json["code"] == code, r.json


def ledger_state(app: Flask) -> dict[str, Any]:
    with app.extensions["banco.pool"].connection() as conn:
        total, negatives = conn.execute(
            "SELECT coalesce(sum(balance), 0), count(*) FILTER (WHERE balance < 0"
            " AND account <> 'house:issued') FROM balances").fetchone()
        return {"total": int(total), "negatives": negatives,
                "drift": conn.execute(DRIFT).fetchall(), "projections": differences(conn)}


def test_a_dispute_on_a_real_hand_is_readjudicated_under_two_versions_and_resolved(
        own_app: Flask, own: FlaskClient, own_url: str, monkeypatch: pytest.MonkeyPatch):
    banker, bettor = players(own)
    table = new_table(own, banker, bettor)
    # Version 1 lets the bettor stake 50 against the banker's 20; version 2 would refuse it.
    hand_id = play_hand(own_app, own, table["id"], banker, bettor, bet=50)
    auditor = own.post("/v1/auditors", json={"name": "Audra"}, headers=OPERATOR).json
    audits = bearer(auditor["token"])

    opened = own.post("/v1/disputes", json={"hand_id": hand_id, "reason": "the banker could"
                                            " not cover a bet of 50"}, headers=bettor.auth)
    assert opened.status_code == 201, opened.json
    dispute = opened.json
    assert (dispute["status"], dispute["opened_by"], dispute["hand_id"]) == (
        "open", "player", hand_id)
    path = f"/v1/disputes/{dispute['id']}"
    r = own.post(f"{path}/evidence", json={"note": "his seat held 20"}, headers=audits)
    assert r.status_code == 201 and r.json["evidence"][0]["attached_by"] == "auditor"

    own_version = own.post(f"{path}/readjudications", json={}, headers=audits)
    assert own_version.status_code == 201, own_version.json
    assert own_version.json["matches"] and own_version.json["rules_version"] == 1
    assert own_version.json["events"] == [] and own_version.json["postings"] == []
    # As shipped, version 1 alone is served (docs/disputes.md shows this refusal).
    unserved = own.post(f"{path}/readjudications", json={"rules_version": 2}, headers=audits)
    problem(unserved, 422, "rules_version_not_served")
    assert unserved.json["served"] == [1]

    serve_version_2(monkeypatch)
    newer = own.post(f"{path}/readjudications", json={"rules_version": 2}, headers=OPERATOR)
    assert newer.status_code == 201, newer.json
    found = newer.json
    assert not found["matches"] and found["refused"] == "bet_out_of_range"
    assert found["events"] and found["events_differing"] == len(found["events"])
    assert all(d["replayed"] is None for d in found["events"])
    stake = next(p for p in found["postings"] if p["recorded"]["amount"] == 50)
    assert stake["replayed"] is None
    assert {n["account"]: n["difference"] for n in found["net"]}[
        f"seat:{table['id']}:{bettor.id}"] != 0

    # Each reader sees the differing events as he sees the hand's own: the operator as a
    # spectator, the bettor from his seat; the banker's hidden card is shown to neither.
    theirs = own.post(f"{path}/readjudications", json={"rules_version": 2}, headers=bettor.auth)
    assert theirs.status_code == 201 and theirs.json["refused"] == "bet_out_of_range"
    for headers, shown_to in ((OPERATOR, found), (bettor.auth, theirs.json)):
        seen = own.get(f"/v1/tables/{table['id']}/events?limit=1000", headers=headers).json
        events = [{"type": e["type"], "data": e["data"]} for e in seen["items"]
                  if e["kind"] == "game" and e["hand"] == hand_id]
        assert [d["recorded"] for d in shown_to["events"]] == [
            events[d["index"]] for d in shown_to["events"]]

    # A version not served, or older than the hand's, is refused, and nothing is recorded.
    problem(own.post(f"{path}/readjudications", json={"rules_version": 3}, headers=OPERATOR),
            422, "rules_version_not_served")
    assert len(own.get(path, headers=OPERATOR).json["readjudications"]) == 3

    # A correction the banker's wallet cannot pay is refused whole.
    wallet = own.get(f"/v1/players/{banker.id}/balance", headers=OPERATOR).json["balance"]
    before = ledger_state(own_app)
    problem(own.post(f"{path}/resolution", json={"note": "too much", "corrections": [
        {"from": "house", "to": bettor.id, "amount": 5},
        {"from": banker.id, "to": bettor.id, "amount": wallet + 1}]}, headers=OPERATOR),
        422, "correction_overdraws")
    assert own.get(path, headers=OPERATOR).json["status"] == "open"
    # Two that overdraw together: the refusal named what the wallet would hold between them
    # ("holds 1, cannot pay 2"), not what it holds and what they take from it in all.
    split = own.post(f"{path}/resolution", json={"note": "too much", "corrections": [
        {"from": banker.id, "to": bettor.id, "amount": wallet - 1},
        {"from": banker.id, "to": bettor.id, "amount": 2}]}, headers=OPERATOR)
    problem(split, 422, "correction_overdraws")
    assert (split.json["balance"], split.json["amount"]) == (wallet, wallet + 1)
    assert split.json["detail"].startswith(
        f"wallet:{banker.id} holds {wallet}, and the corrections take {wallet + 1} from it")
    assert ledger_state(own_app) == before

    resolved = own.post(f"{path}/resolution", json={
        "note": "the stake over the banker's 20 is returned", "corrections": [
            {"from": banker.id, "to": bettor.id, "amount": 30}]}, headers=OPERATOR)
    assert resolved.status_code == 200, resolved.json
    [correction] = resolved.json["corrections"]
    reason = f"dispute_correction:{dispute['id']}"
    assert (correction["from"], correction["to"], correction["amount"], correction["reason"]) == (
        f"wallet:{banker.id}", f"wallet:{bettor.id}", 30, reason)
    assert own.get(f"/v1/players/{banker.id}/balance", headers=OPERATOR).json["balance"] == \
        wallet - 30
    problem(own.post(f"{path}/rejection", json={"note": "no"}, headers=OPERATOR),
            409, "dispute_closed")

    # With the hand, to those who may read its disputes ...
    shown = own.get(f"/v1/hands/{hand_id}", headers=bettor.auth).json["disputes"]
    assert [(d["id"], d["status"]) for d in shown] == [(dispute["id"], "resolved")]
    assert shown[0]["corrections"][0]["position"] == correction["position"]
    for headers in (OPERATOR, audits):
        assert own.get(f"/v1/hands/{hand_id}", headers=headers).json["disputes"] == shown
    # (a player of another hand, and a key without disputes:read, read the hand but not its
    # disputes, as GET /v1/disputes/{id} refuses them)
    stranger = own.post("/v1/players", json={"name": "Stranger"}, headers=OPERATOR).json["token"]
    tables_only = own.post("/v1/keys", json={"name": "tables", "scopes": ["tables:read"]},
                           headers=OPERATOR).json["secret"]
    for secret in (stranger, tables_only):
        assert own.get(path, headers=bearer(secret)).status_code == 403
        hand = own.get(f"/v1/hands/{hand_id}", headers=bearer(secret))
        assert hand.status_code == 200 and hand.json["disputes"] == [], hand.json
    # ... in the feed ...
    # (once past the feed's watermark, which a transaction open in any database of the server
    # holds back)
    mine = wait_for(lambda: [e for e in own.get(
        "/v1/feed?types=DisputeResolved,TreasurePosted&limit=200", headers=OPERATOR
    ).json["items"] if e["stream"] == f"dispute-{dispute['id']}"], timeout=30)
    assert [e["type"] for e in mine] == ["DisputeResolved", "TreasurePosted"]
    assert mine[1]["data"]["hand"] == hand_id and mine[1]["data"]["reason"] == reason
    assert mine[0]["data"]["postings"] == [{k: correction[k] for k in
                                            ("from", "to", "amount", "reason")}]
    # ... in webhooks (a subscription takes the types; what it sends is the feed's) ...
    hook = own.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/", "event_types": [
        "Dispute*", "TreasurePosted"]}, headers=OPERATOR)
    assert hook.status_code == 201, hook.json
    own.delete(f"/v1/webhooks/{hook.json['subscription']['id']}", headers=OPERATOR)
    with own_app.extensions["banco.pool"].connection() as conn:
        stored = [e for e in own_app.extensions["banco.store"].read_stream(
            f"dispute-{dispute['id']}", 0, conn=conn, limit=100)]
        sent = [webhooks.outgoing(e, Redactor(conn, OPERATOR_PRINCIPAL)) for e in stored]
    assert all(isinstance(e, StoredEvent) for e in stored)
    assert [s.type for s in sent if webhooks.matches(["Dispute*", "TreasurePosted"], s.type)] \
        == ["DisputeOpened", "DisputeEvidenceAttached", "DisputeReadjudicated",
            "DisputeReadjudicated", "DisputeReadjudicated", "DisputeResolved", "TreasurePosted"]
    assert sent[-1].body["data"]["data"]["reason"] == reason
    # ... and in both players' balance history, naming the dispute.
    for who, amount in ((bettor, 30), (banker, -30)):
        history = own.get(f"/v1/players/{who.id}/balance-history", headers=OPERATOR).json
        [line] = [h for h in history["items"] if h["reason"] == reason]
        assert (line["amount"], line["hand"], line["table"]) == (amount, hand_id, table["id"])

    # Conserved, no wallet overdrawn, projections agree with the log, and the audit passes.
    after = ledger_state(own_app)
    assert after == {"total": 0, "negatives": 0, "drift": [], "projections": {}}
    assert before == after
    verified = banco("verify", "--all", url=own_url)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "1 of 1 disputes' corrections hold" in verified.stdout

    # The audit reads the corrections as such: one that is not what its resolution announced
    # (its chain forged to match) fails it, naming the dispute and the posting.
    stream = f"dispute-{dispute['id']}"
    with log_copy(own_url) as copy:
        version = copy.execute("SELECT version FROM events WHERE stream_id = %s"
                               " AND type = 'TreasurePosted'", (stream,)).fetchone()[0]
        edit(copy, stream, version, lambda d: d.update(amount=300))
        forged = banco("verify", "--all", url=copy.info.dsn)
    assert forged.returncode == 1, forged.stdout
    assert f"FAIL disputes.corrections: a correction differs from its resolution at {stream}" \
        f" v{version}" in forged.stdout


def test_who_may_read_and_decide_a_dispute(own_app: Flask, own: FlaskClient):
    banker, bettor = players(own)
    stranger, _ = players(own)
    table = new_table(own, banker, bettor)
    hand_id = play_hand(own_app, own, table["id"], banker, bettor, bet=10)
    problem(own.post("/v1/disputes", json={"hand_id": hand_id, "reason": "x"},
                     headers=stranger.auth), 403, "not_your_hand")
    problem(own.post("/v1/disputes", json={"hand_id": "hd_none", "reason": "x"},
                     headers=OPERATOR), 404, "hand_not_found")
    dispute = own.post("/v1/disputes", json={"hand_id": hand_id, "reason": "why"},
                       headers=OPERATOR).json
    path = f"/v1/disputes/{dispute['id']}"
    assert own.get(path, headers=banker.auth).status_code == 200
    problem(own.get(path, headers=stranger.auth), 403, "not_your_dispute")
    problem(own.post(f"{path}/readjudications", json={}, headers=stranger.auth), 403,
            "not_your_dispute")
    problem(own.post(f"{path}/resolution", json={"note": "x", "corrections": [
        {"from": "house", "to": bettor.id, "amount": 1}]}, headers=bettor.auth), 403, "forbidden")
    problem(own.post(f"{path}/resolution", json={"note": "x", "corrections": [
        {"from": "house", "to": stranger.id, "amount": 1}]}, headers=OPERATOR), 422,
        "not_of_the_hand")
    problem(own.get("/v1/disputes/dp_none", headers=OPERATOR), 404, "dispute_not_found")
    # A player lists the disputes about his hands only.
    listed = own.get(f"/v1/disputes?hand_id={hand_id}", headers=bettor.auth).json["items"]
    assert [d["id"] for d in listed] == [dispute["id"]]
    assert own.get("/v1/disputes", headers=stranger.auth).json["items"] == []
    assert own.get("/v1/disputes?status=open", headers=OPERATOR).json["items"][0]["id"] == \
        dispute["id"]
    assert own.post(f"{path}/rejection", json={"note": "as played"},
                    headers=OPERATOR).json["status"] == "rejected"
    assert dispute["id"] not in [d["id"] for d in own.get(
        "/v1/disputes?status=open", headers=OPERATOR).json["items"]]
    assert [d["id"] for d in own.get("/v1/disputes?status=rejected&limit=1",
                                     headers=OPERATOR).json["items"]] == [dispute["id"]]


def one_line_error(result: Any) -> str:
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    [error] = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    return str(error)


def test_banco_dispute_opens_readjudicates_and_resolves_from_the_command_line(
        own_app: Flask, own: FlaskClient, own_url: str):
    banker, bettor = players(own)
    table = new_table(own, banker, bettor)
    hand_id = play_hand(own_app, own, table["id"], banker, bettor, bet=10)

    opened = banco("dispute", "open", hand_id, "--reason", "a slow deal", "--json", url=own_url)
    assert opened.returncode == 0, opened.stderr
    dispute = orjson.loads(opened.stdout)
    assert (dispute["status"], dispute["opened_by"], dispute["hand_id"]) == (
        "open", "operator", hand_id)
    dispute_id = dispute["id"]
    assert banco("dispute", "evidence", dispute_id, "--note", "the log", url=own_url
                 ).returncode == 0
    again = banco("dispute", "readjudicate", dispute_id, url=own_url)
    assert again.returncode == 0 and "under rules version 1 the hand is as recorded" in \
        again.stdout, again.stdout + again.stderr
    listed = banco("dispute", "list", "--hand", hand_id, url=own_url)
    assert listed.stdout.split()[:2] == [dispute_id, "open"]

    # A user's mistakes: one line each, and nothing written.
    def events() -> int:
        with own_app.extensions["banco.pool"].connection() as conn:
            return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])

    before = events()
    for args, message in (
            (["readjudicate", dispute_id, "--rules-version", "9"], "rules_version_not_served"),
            (["resolve", dispute_id, "--note", "x", "--pay", "house-5"], "is not FROM:TO:AMOUNT"),
            (["resolve", dispute_id, "--note", "x", "--pay", f"{banker.id}:{bettor.id}:999999"],
             "correction_overdraws"),
            (["resolve", dispute_id, "--note", "x", "--pay", "house:pl_nobody:1"],
             "not_of_the_hand"),
            (["show", "dp_none"], "no dispute dp_none"),
            (["evidence", "dp_none", "--note", "x"], "dispute_not_found")):
        assert message in one_line_error(banco("dispute", *args, url=own_url)), args
    assert events() == before

    resolved = banco("dispute", "resolve", dispute_id, "--note", "a goodwill payment",
                     "--pay", f"house:{bettor.id}:5", url=own_url)
    assert resolved.returncode == 0, resolved.stderr
    assert f"correction: 5 from house:issued to wallet:{bettor.id}" in resolved.stdout
    shown = orjson.loads(banco("dispute", "show", dispute_id, "--json", url=own_url).stdout)
    assert shown["status"] == "resolved" and shown["corrections"][0]["amount"] == 5
    assert "dispute_closed" in one_line_error(
        banco("dispute", "reject", dispute_id, "--note", "no", url=own_url))
    assert ledger_state(own_app) == {"total": 0, "negatives": 0, "drift": [], "projections": {}}
    verified = banco("verify", "--all", url=own_url)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_banco_dispute_shows_what_players_wrote_with_its_control_characters_escaped(
        own_app: Flask, own: FlaskClient, own_url: str):
    """A reason or a note is its writer's text: `banco dispute show` and `list` print its
    newlines and escape sequences escaped (`\\n`, `\\x1b`), so it can neither forge a line of
    the output ("status: rejected") nor drive the terminal; --json gives the text as written."""
    banker, bettor = players(own)
    table = new_table(own, banker, bettor)
    hand_id = play_hand(own_app, own, table["id"], banker, bettor, bet=10)
    reason = "bad\nstatus: rejected\n\u001b[2J\u001b[32mcleared"
    # A typed backslash shows doubled, so an escape shown is never the writer's own text; a
    # right-to-left override, which reorders the rest of the line, shows escaped too.
    note = "tab\there, bell\a, DEL\x7f, CSI\x9b31m, CR\rover, typed \\n, RLO\u202edesrever"
    opened = own.post("/v1/disputes", json={"hand_id": hand_id, "reason": reason},
                      headers=bettor.auth)
    assert opened.status_code == 201, opened.json
    dispute_id = opened.json["id"]
    auditor = own.post("/v1/auditors", json={"name": "Audra"}, headers=OPERATOR).json
    r = own.post(f"/v1/disputes/{dispute_id}/evidence", json={"note": note},
                 headers=bearer(auditor["token"]))
    assert r.status_code == 201, r.json

    shown = banco("dispute", "show", dispute_id, url=own_url)
    listed = banco("dispute", "list", "--hand", hand_id, url=own_url)
    for run in (shown, listed):
        assert run.returncode == 0, run.stderr
        assert not [c for c in run.stdout if c != "\n" and (ord(c) < 32 or 0x7f <= ord(c) <= 0x9f)
                    ], run.stdout
        assert not [line for line in run.stdout.splitlines() if line.startswith("status")]
    assert "bad\\nstatus: rejected\\n\\x1b[2J\\x1b[32mcleared" in shown.stdout, shown.stdout
    assert ("tab\\there, bell\\x07, DEL\\x7f, CSI\\x9b31m, CR\\rover, typed \\\\n, RLO\\u202edesrever"
            in shown.stdout), shown.stdout
    assert len(listed.stdout.splitlines()) == 1 and "bad\\nstatus: rejected" in listed.stdout
    as_json = orjson.loads(banco("dispute", "show", dispute_id, "--json", url=own_url).stdout)
    assert (as_json["reason"], as_json["evidence"][0]["note"]) == (reason, note)


def test_bad_input_is_a_problem_that_writes_nothing(own_app: Flask, own: FlaskClient):
    banker, bettor = players(own)
    hand_id = play_hand(own_app, own, new_table(own, banker, bettor)["id"], banker, bettor,
                        bet=10)
    for body in ({"hand_id": "hd\x00x", "reason": "r"}, {"hand_id": hand_id, "reason": "r\x00"},
                 {"hand_id": hand_id, "reason": " "}, {"hand_id": hand_id},
                 {"hand_id": hand_id, "reason": "x" * 2001}):
        r = own.post("/v1/disputes", json=body, headers=OPERATOR)
        assert 400 <= r.status_code < 500 and r.mimetype == "application/problem+json", (body, r.json)
    r = own.get("/v1/disputes?hand_id=hd%00x", headers=OPERATOR)
    assert 400 <= r.status_code < 500 or r.json["items"] == [], r.json
    dispute = own.post("/v1/disputes", json={"hand_id": hand_id, "reason": "r"},
                       headers=OPERATOR).json["id"]
    for body in ({"note": "n", "corrections": [{"from": "house", "to": bettor.id,
                                                "amount": 1.5}]},
                 {"note": "n", "corrections": [{"from": "house", "to": bettor.id, "amount": 0}]},
                 {"note": "n", "corrections": []},
                 {"note": "n", "corrections": [{"from": "house\x00", "to": bettor.id,
                                                "amount": 1}]},
                 {"note": "n", "corrections": [{"from": bettor.id, "to": bettor.id,
                                                "amount": 1}]}):
        r = own.post(f"/v1/disputes/{dispute}/resolution", json=body, headers=OPERATOR)
        assert r.status_code == 422 and r.mimetype == "application/problem+json", (body, r.json)
    problem(own.post(f"/v1/disputes/{dispute}/readjudications", json={"rules_version": 0},
                     headers=OPERATOR), 422, "invalid_input")
    shown = own.get(f"/v1/disputes/{dispute}", headers=OPERATOR).json
    assert (shown["status"], shown["readjudications"], shown["corrections"]) == ("open", [], [])


def test_a_hand_is_disputed_once_it_is_settled(own_app: Flask, own: FlaskClient):
    """A dispute opened while its hand was played was decided again on half a hand ("matches")
    and could be resolved with money before the hand was settled, while the hand's replay and
    evidence were still kept from its players."""
    banker, bettor = players(own)
    table = new_table(own, banker, bettor)["id"]
    hand_id = own.post(f"/v1/tables/{table}/hands", headers=OPERATOR).json["hand"]["id"]
    before = own.get("/v1/disputes", headers=OPERATOR).json["items"]
    for headers in (bettor.auth, OPERATOR):
        problem(own.post("/v1/disputes", json={"hand_id": hand_id, "reason": "too early"},
                         headers=headers), 409, "hand_in_play")
    assert own.get("/v1/disputes", headers=OPERATOR).json["items"] == before


def test_disputes_page_with_cursor_as_every_list_does(own_app: Flask, own: FlaskClient):
    """GET /v1/disputes answered `next_cursor` and took it only as `before`: a client paging it
    as the README says every list pages (`cursor=<next_cursor>`) got a 422 "Unknown field".
    Both names go on from the same place; both at once is refused."""
    banker, bettor = players(own)
    table = new_table(own, banker, bettor)
    hand_id = play_hand(own_app, own, table["id"], banker, bettor, bet=10)
    opened = [own.post("/v1/disputes", json={"hand_id": hand_id, "reason": f"r{i}"},
                       headers=OPERATOR).json["id"] for i in range(3)]
    path = f"/v1/disputes?hand_id={hand_id}&limit=2"
    first = own.get(path, headers=OPERATOR).json
    assert [d["id"] for d in first["items"]] == opened[:0:-1]  # newest first
    for place in ("cursor", "before"):
        rest = own.get(f"{path}&{place}={first['next_cursor']}", headers=OPERATOR)
        assert rest.status_code == 200, rest.json
        assert [d["id"] for d in rest.json["items"]] == opened[:1]
        assert rest.json["next_cursor"] is None
    both = own.get(f"{path}&cursor={first['next_cursor']}&before={first['next_cursor']}",
                   headers=OPERATOR)
    problem(both, 422, "invalid_input")
    assert "cursor" in both.json["errors"]["query"]
