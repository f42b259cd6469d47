"""Webhooks to a real receiver on loopback that fails, is slow, is away, and a worker killed while
sending: every event arrives, in the log's order, a duplicate only with its `webhook-id`, signed."""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families
from rq import SimpleWorker
from standardwebhooks.webhooks import Webhook

from service.runtime.config import Config, WebhookSettings
from tests.conftest import fresh_database
from tests.service.conftest import OPERATOR, Player, app_on, bearer, jobs_on
from tests.service.play import DECKS, Session, knowledge, strings
from tests.service.receiver import Drip, Received, Receiver, failing, slow_once
from tests.service.responses import validator
from tests.service.test_response_contract import PLAYED
from tests.service.test_rules_versions import new_table, play_hand, players
from tests.service.test_timeouts import worker_process
from tests.service.test_webhook_addresses import fake_resolver
from workers import context, settlement, sweeper, webhooks
from workers.queues import connect, queue, webhook_lane

FAST_ENV = {"BANCO_WEBHOOK_BACKOFF_S": "0.05", "BANCO_WEBHOOK_BACKOFF_MAX_S": "0.2",
            "BANCO_WEBHOOK_ALLOW_NETWORKS": "127.0.0.1/32",  # the receivers are on loopback
            "BANCO_WEBHOOK_TIMEOUT_S": "0.5", "BANCO_WEBHOOK_MAX_FAILURES": "4"}
FAST = WebhookSettings.from_env(FAST_ENV)


@pytest.fixture(scope="module")
def hooks_config(servers, config: Config) -> Iterator[Config]:
    """A database of the module's own: its subscriptions would send every other test's events,
    and other tests' workers would try its receivers once they are gone."""
    with fresh_database(servers.database_url, "banco_hooks") as url:
        yield replace(config, database_url=url, queue_name=f"{config.queue_name}-hooks")


@pytest.fixture(scope="module")
def hooks_app(hooks_config: Config) -> Iterator[Flask]:
    with app_on(hooks_config) as app:
        yield app


@pytest.fixture
def client(hooks_app: Flask) -> FlaskClient:
    return hooks_app.test_client()


@pytest.fixture(autouse=True)
def jobs_here(hooks_config: Config) -> Iterator[None]:
    """Run the delivery job in this process, on the module's database, with short waits."""
    with jobs_on(hooks_config, webhooks=FAST):
        yield


def allow(*networks: str) -> None:
    """The workers of this process allowed to reach `networks` (and no other private range)
    from now on, as a worker started with that `BANCO_WEBHOOK_ALLOW_NETWORKS` is."""
    resources = context.current()
    settings = replace(resources.config.webhooks,
                       allow_networks=tuple(ipaddress.ip_network(n) for n in networks))
    context.install(replace(resources, config=replace(resources.config, webhooks=settings)))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    got = Receiver().up()
    yield got
    got.down()


def subscribe(client: FlaskClient, url: str, types: tuple[str, ...] = ("TreasurePosted",),
              **extra: Any) -> tuple[str, str]:
    r = client.post("/v1/webhooks", json={"url": url, "event_types": list(types), **extra},
                    headers=OPERATOR)
    assert r.status_code == 201, r.json
    return r.json["subscription"]["id"], r.json["secret"]


def deposits(client: FlaskClient, player: Player, count: int) -> list[int]:
    positions = []
    for i in range(count):
        r = client.post(f"/v1/players/{player.id}/deposits", json={"amount": i + 1, "reason": "hook"},
                        headers=OPERATOR)
        assert r.status_code == 201, r.json
        positions.append(r.json["posting"]["position"])
    return positions


def wait_for(check: Callable[[], Any], tick: Callable[[], Any] = lambda: None,
             timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tick()
        if value := check():
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def accepted(receiver: Receiver, positions: list[int]) -> list[int]:
    """The positions the receiver answered 2xx to, with duplicates, in arrival order."""
    return [r.event["data"]["position"] for r in receiver.delivered(lambda r: r.status == 200)
            if r.event["data"]["position"] in positions]


def drain(subscription_id: str, receiver: Receiver, positions: list[int]) -> None:
    """Run delivery jobs (their waits elapsing) until every position was accepted."""
    wait_for(lambda: set(accepted(receiver, positions)) >= set(positions),
             lambda: webhooks.deliver(subscription_id))


def check_arrivals(receiver: Receiver, subscription_id: str, secret: str,
                   positions: list[int]) -> list[Received]:
    """Every event accepted, in order; every request signed; a repeat only with its own id."""
    got = [r for r in receiver.delivered() if r.event["data"]["position"] in positions]
    signer = Webhook(secret)
    key = base64.b64decode(secret.removeprefix("whsec_"))
    for r in got:
        assert signer.verify(r.body, r.headers) == r.event
        # And by hand, as the specification says: HMAC-SHA256 of "{id}.{timestamp}.{body}".
        signed = f"{r.webhook_id}.{r.headers['webhook-timestamp']}.".encode() + r.body
        digest = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        assert r.headers["webhook-signature"] == f"v1,{digest}"
        assert r.webhook_id == f"{subscription_id}_{r.event['data']['position']}"
    bodies: dict[str, bytes] = {}
    for r in got:
        assert bodies.setdefault(r.webhook_id, r.body) == r.body, "a repeat sends the same event"
    order = [r.event["data"]["position"] for r in got]
    assert order == sorted(order), "no event is sent before the one before it was accepted"
    assert sorted(set(accepted(receiver, positions))) == positions
    return got


def test_a_receiver_answering_500_gets_every_event_in_order_signed(client, new_player, receiver):
    receiver.answer = failing(3)
    subscription_id, secret = subscribe(client, receiver.url)
    positions = deposits(client, new_player("Hook"), 4)
    drain(subscription_id, receiver, positions)
    got = check_arrivals(receiver, subscription_id, secret, positions)
    assert [r.status for r in got[:4]] == [500, 500, 500, 200]
    assert got[0].event["type"] == "TreasurePosted" and got[0].event["data"]["data"]["amount"] == 1

    page = client.get(f"/v1/webhooks/{subscription_id}/deliveries", headers=OPERATOR).json
    assert [d["position"] for d in page["items"]] == positions[::-1]
    first = page["items"][-1]
    assert first["status"] == "delivered" and first["attempt_count"] == 4
    assert [a["status_code"] for a in first["attempts"]] == [500, 500, 500, 200]
    assert first["attempts"][0]["error"] == "HTTP 500"
    shown = client.get(f"/v1/webhooks/{subscription_id}", headers=OPERATOR).json
    assert shown["cursor"]["position"] == positions[-1] and shown["failures"] == 0


def test_a_slow_receiver_gets_the_event_again_with_the_same_id(client, new_player, receiver):
    receiver.answer = slow_once(1.5)  # beyond the 0.5 s the sender waits
    subscription_id, secret = subscribe(client, receiver.url)
    positions = deposits(client, new_player("Slow"), 3)
    drain(subscription_id, receiver, positions)
    got = check_arrivals(receiver, subscription_id, secret, positions)
    assert got[0].webhook_id == got[1].webhook_id, "the timed-out event was sent again"
    [*_, first] = client.get(f"/v1/webhooks/{subscription_id}/deliveries", headers=OPERATOR).json["items"]
    assert first["attempts"][0]["status_code"] is None
    assert "timed out" in first["attempts"][0]["error"]


def test_a_disputes_events_and_its_correction_reach_a_subscriber_signed(client, hooks_app,
                                                                        receiver):
    """A dispute opened on a real hand and resolved with a corrective posting: the delivery job
    sends its events and the posting, in the log's order, signed, the posting naming the
    dispute and the hand."""
    banker, bettor = players(client)
    table = new_table(client, banker, bettor)
    hand_id = play_hand(hooks_app, client, table["id"], banker, bettor, bet=5)
    subscription_id, secret = subscribe(client, receiver.url, ("Dispute*", "TreasurePosted"))
    opened = client.post("/v1/disputes", json={"hand_id": hand_id, "reason": "a misdeal"},
                         headers=bettor.auth)
    assert opened.status_code == 201, opened.json
    dispute = opened.json["id"]
    resolved = client.post(f"/v1/disputes/{dispute}/resolution", json={
        "note": "one back", "corrections": [{"from": banker.id, "to": bettor.id, "amount": 1}]},
        headers=OPERATOR)
    assert resolved.status_code == 200, resolved.json
    with hooks_app.extensions["banco.pool"].connection() as conn:
        positions = [e.position for e in hooks_app.extensions["banco.store"].read_stream(
            f"dispute-{dispute}", 0, conn=conn, limit=100)]
    assert len(positions) == 3
    drain(subscription_id, receiver, positions)
    got = check_arrivals(receiver, subscription_id, secret, positions)
    sent = {r.event["data"]["position"]: r.event["data"] for r in got}
    assert [sent[p]["type"] for p in positions] == ["DisputeOpened", "DisputeResolved",
                                                    "TreasurePosted"]
    correction = sent[positions[-1]]["data"]
    assert (correction["amount"], correction["reason"], correction["hand"]) == (
        1, f"dispute_correction:{dispute}", hand_id)


def test_a_receiver_dripping_its_answer_fails_the_attempt_at_the_deadline(client, new_player,
                                                                        receiver):
    """A byte every 0.1 s, never the 0.5 s without one that a timeout on each read waits for:
    the attempt ends at its deadline all the same, and is a failure like any other."""
    receiver.answer = lambda n, got: Drip(40, 0.1) if n == 0 else 200  # 4 s in all
    other = Receiver().up()
    try:
        dripping, secret = subscribe(client, receiver.url)
        other_id, _ = subscribe(client, other.url)
        positions = deposits(client, new_player("Drip"), 2)
        wait_for(lambda: receiver.received, lambda: webhooks.deliver(dripping))
        first = receiver.received[0]
        assert first.dripped < 40, "the job ended before the receiver finished its answer"
        wait_for(lambda: first.hung_up or first.status)
        assert first.hung_up and first.status is None, "the sender closed the connection"
        [*_, delivery] = client.get(f"/v1/webhooks/{dripping}/deliveries",
                                    headers=OPERATOR).json["items"]
        assert delivery["status"] == "pending"
        assert [(a["status_code"], a["error"]) for a in delivery["attempts"]] == \
            [(None, "timed out after 0.5 s")]
        shown = client.get(f"/v1/webhooks/{dripping}", headers=OPERATOR).json
        assert shown["status"] == "active" and shown["failures"] == 1, "backoff, as any failure"
        drain(other_id, other, positions)  # another subscription goes on meanwhile
        drain(dripping, receiver, positions)  # and this one once its receiver answers
        check_arrivals(receiver, dripping, secret, positions)
    finally:
        other.down()


def test_a_name_is_checked_again_at_each_connection_and_its_checked_address_used(
        client, new_player, receiver, monkeypatch):
    """A name public when subscribed that resolves to loopback later (DNS rebinding) is not
    connected to; once the operator allows that range, the worker connects to the address it
    checked, with the name in the Host header."""
    names = {"hooks.banco.test": ["93.184.216.34"]}  # public: nothing connects to it here
    asked = fake_resolver(monkeypatch, names)
    url = f"http://hooks.banco.test:{receiver.port}/hooks"
    subscription_id, secret = subscribe(client, url)
    names["hooks.banco.test"] = ["127.0.0.1"]
    allow("10.0.0.0/8")  # loopback no longer
    positions = deposits(client, new_player("Rebound"), 1)
    [delivery] = wait_for(lambda: client.get(f"/v1/webhooks/{subscription_id}/deliveries",
                                             headers=OPERATOR).json["items"],
                          lambda: webhooks.deliver(subscription_id))
    assert [(a["status_code"], a["error"]) for a in delivery["attempts"]] == \
        [(None, "could not connect")]
    assert asked == ["hooks.banco.test"] * 2, "looked up when subscribed and when connecting"
    assert receiver.connections == 0, "nothing connected to the address refused"

    allow("127.0.0.1/32")
    drain(subscription_id, receiver, positions)
    check_arrivals(receiver, subscription_id, secret, positions)
    assert receiver.received[0].headers["host"] == f"hooks.banco.test:{receiver.port}"


def test_a_failure_to_connect_reads_the_same_for_any_port_or_address(receiver, monkeypatch):
    """A closed port, a filtered one (its queue full: the connection waits for the deadline), an
    address not allowed and a name with no address: one reason, no errno, no port."""
    fake_resolver(monkeypatch, {})
    with socket.socket() as closed, socket.socket() as filtered, socket.socket() as queued:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        filtered.bind(("127.0.0.1", 0))
        filtered.listen(0)
        queued.connect(filtered.getsockname())  # fills its queue: the next SYN is dropped
        body = b"{}"
        answers = {
            "closed": webhooks.post(f"http://127.0.0.1:{closed.getsockname()[1]}/", body, {}),
            "filtered": webhooks.post(f"http://127.0.0.1:{filtered.getsockname()[1]}/", body, {}),
            "no address": webhooks.post("http://nowhere.banco.test/", body, {}),
        }
        allow()
        answers["not allowed"] = webhooks.post(receiver.url, body, {})
    assert answers == dict.fromkeys(answers, (None, "could not connect"))
    assert receiver.connections == 0


def test_a_receiver_away_for_a_while_gets_everything_when_back(client, new_player, receiver):
    subscription_id, secret = subscribe(client, receiver.url)
    receiver.down()
    positions = deposits(client, new_player("Away"), 3)
    # The watermark may trail a moment behind (a transaction open anywhere on the server).
    [delivery] = wait_for(lambda: client.get(f"/v1/webhooks/{subscription_id}/deliveries",
                                             headers=OPERATOR).json["items"],
                          lambda: webhooks.deliver(subscription_id))
    assert delivery["status"] == "pending" and delivery["attempts"][0]["status_code"] is None
    receiver.up()
    drain(subscription_id, receiver, positions)
    check_arrivals(receiver, subscription_id, secret, positions)


def test_a_subscription_pauses_after_its_failures_and_resumes_where_it_stopped(
        client, new_player, receiver):
    receiver.answer = failing(10**6)
    subscription_id, secret = subscribe(client, receiver.url)
    positions = deposits(client, new_player("Pause"), 3)
    shown = wait_for(lambda: (s := client.get(f"/v1/webhooks/{subscription_id}",
                                              headers=OPERATOR).json)["status"] == "paused" and s,
                     lambda: webhooks.deliver(subscription_id))
    assert shown["paused_reason"] == "4 failed attempts in a row; the last: HTTP 500"
    assert shown["next_attempt_at"] is None
    tries = len(receiver.received)
    assert tries == 4
    time.sleep(0.3)  # past any backoff: a paused subscription is neither due nor sent
    assert webhooks.deliver(subscription_id) == 0 and len(receiver.received) == tries
    with psycopg.connect(context.config().database_url) as conn:
        assert subscription_id not in webhooks.due(conn)

    receiver.answer = lambda n, r: 200
    r = client.post(f"/v1/webhooks/{subscription_id}/resume", headers=OPERATOR)
    assert r.status_code == 200 and r.json["status"] == "active" and r.json["paused_reason"] is None
    drain(subscription_id, receiver, positions)
    check_arrivals(receiver, subscription_id, secret, positions)


def test_the_operator_pauses_and_replays_from_a_position(client, new_player, receiver):
    subscription_id, secret = subscribe(client, receiver.url)
    player = new_player("Replay")
    positions = deposits(client, player, 3)
    drain(subscription_id, receiver, positions)
    r = client.post(f"/v1/webhooks/{subscription_id}/pause", headers=OPERATOR)
    assert r.json["status"] == "paused" and r.json["paused_reason"] == "paused by the operator"
    later = deposits(client, player, 1)
    assert webhooks.deliver(subscription_id) == 0 and len(receiver.received) == 3

    r = client.post(f"/v1/webhooks/{subscription_id}/replay", json={"position": positions[1]},
                    headers=OPERATOR)
    assert r.status_code == 200 and r.json["status"] == "paused"
    client.post(f"/v1/webhooks/{subscription_id}/resume", headers=OPERATOR)
    wait_for(lambda: len(receiver.received) == 6, lambda: webhooks.deliver(subscription_id))
    again = [r.event["data"]["position"] for r in receiver.received[3:]]
    assert again == [positions[1], positions[2], later[0]]
    assert receiver.received[1].webhook_id == receiver.received[3].webhook_id
    signer = Webhook(secret)
    assert all(signer.verify(r.body, r.headers) for r in receiver.received)


def test_only_the_types_asked_for_are_sent(client, new_player, receiver):
    subscription_id, _ = subscribe(client, receiver.url, ("PlayerReg*",))
    player = new_player("Types")
    deposits(client, player, 2)
    with psycopg.connect(context.config().database_url) as conn:
        [position] = conn.execute("SELECT position FROM events WHERE type = 'PlayerRegistered'"
                                  " AND data->>'player_id' = %s", (player.id,)).fetchone() or []
    # The cursor moves past the deposits, which are skipped, not sent.
    wait_for(lambda: client.get(f"/v1/webhooks/{subscription_id}", headers=OPERATOR)
             .json["cursor"]["position"] > position, lambda: webhooks.deliver(subscription_id))
    assert [r.event["type"] for r in receiver.received] == ["PlayerRegistered"]
    assert receiver.received[0].event["data"]["position"] == position


def test_no_hidden_card_leaves_in_a_webhook(client, new_player, receiver):
    subscription_id, _ = subscribe(client, receiver.url, ("game.*", "HandBegan"))
    players = [new_player(f"Card{i}", deposit=100) for i in range(3)]
    session = Session(client, "sette-e-mezzo", players)
    session.open({}, 50)
    session.deal()
    stored = client.application.extensions["banco.store"].read_stream(f"table-{session.table_id}")
    private = [e for e in stored if e.type.startswith("game.") and e.data["visible_to"] is not None]
    cards = set(DECKS["sette-e-mezzo"])
    hidden = set().union(*(strings(e.data["data"]) & cards for e in private))
    assert hidden, "the hand dealt cards only some seats may see"
    games = sum(e.type.startswith("game.") for e in stored)
    wait_for(lambda: len(receiver.received) >= games, lambda: webhooks.deliver(subscription_id))
    spectator_knows = knowledge(stored, "nobody", cards)[-1][1]
    sent = set().union(*(strings(r.event) & cards for r in receiver.received))
    assert sent <= spectator_knows
    assert hidden - spectator_knows, "some card stayed hidden from a spectator"


@pytest.mark.parametrize(("game", "options", "buy_in", "players"), PLAYED, ids=[g for g, *_ in PLAYED])
def test_every_body_a_webhook_sends_is_as_the_contract_says(client, new_player, receiver, game,
                                                            options, buy_in, players):
    """A hand of each game played and settled, every event of it sent to a subscription to `*`:
    each body the receiver took is held to openapi.yaml's `WebhookEvent` (the body of the
    subscription's callback) by the strict validator the responses are held to."""
    subscription_id, _ = subscribe(client, receiver.url, ("*",))
    session = Session(client, game, [new_player(f"Hook{i}", deposit=100) for i in range(players)])
    session.open(options, buy_in)
    hand_id = session.deal()
    session.play_hand()
    assert settlement.settle_hand(session.table_id, hand_id)
    store = client.application.extensions["banco.store"]
    stored = store.read_stream(f"table-{session.table_id}")
    last = stored[-1].position
    wait_for(lambda: any(r.event["data"]["position"] >= last for r in receiver.delivered()),
             lambda: webhooks.deliver(subscription_id))
    bodies = [r.event for r in receiver.delivered()]
    check = validator('{"$ref":"#/components/schemas/WebhookEvent"}')
    wrong = [f"{b['type']} at {'/'.join(map(str, e.absolute_path))}: {e.message}"
             for b in bodies for e in check.iter_errors(b)]
    assert not wrong, wrong
    # Every type the hand recorded was among them, the engine's (`game.*`) and the table's.
    sent = {b["type"] for b in bodies}
    assert {e.type for e in stored} <= sent
    assert {"TableCreated", "HandSettled", "PlayerRegistered", "TreasurePosted"} <= sent
    # The check is no formality: a member of a type the contract does not say is refused.
    dealt = next(b for b in bodies if b["type"].startswith("game."))
    assert list(check.iter_errors({**dealt, "data": {**dealt["data"], "data": {**dealt["data"]["data"],
                                                                                 "seat": "0"}}}))


def test_bad_subscriptions_are_refused_and_change_nothing(client, new_player, receiver):
    before = client.get("/v1/webhooks", headers=OPERATOR).json["items"]
    bad = [
        {"url": "ftp://127.0.0.1/x", "event_types": ["TreasurePosted"]},
        {"url": "http:///nohost", "event_types": ["TreasurePosted"]},
        {"url": "http://127.0.0.1:99999/x", "event_types": ["TreasurePosted"]},
        {"url": receiver.url, "event_types": ["NoSuchEvent"]},
        {"url": receiver.url, "event_types": ["TreasurePosted", "Nothing*"]},
        # An engine's type is one the engines write: a misspelt one would never match.
        {"url": receiver.url, "event_types": ["game.CardDelt"]},
        {"url": receiver.url, "event_types": ["game.Nothing*"]},
        {"url": receiver.url, "event_types": []},
        {"url": receiver.url, "event_types": ["", "x" * 51]},  # errors named by index: were a 500
        {"url": receiver.url, "event_types": ["TreasurePosted"], "secret": "whsec_short"},
        {"url": receiver.url, "event_types": ["TreasurePosted"], "secret": "not base64 at all!"},
        {"url": receiver.url},
    ]
    for body in bad:
        r = client.post("/v1/webhooks", json=body, headers=OPERATOR)
        assert r.status_code == 422, (body, r.json)
        assert r.mimetype == "application/problem+json"
    player = new_player("NotOperator")
    assert client.post("/v1/webhooks", json={"url": receiver.url, "event_types": ["*"]},
                       headers=player.auth).status_code == 403
    assert client.get("/v1/webhooks", headers=player.auth).status_code == 403
    assert client.get("/v1/webhooks", headers=OPERATOR).json["items"] == before
    assert client.get("/v1/webhooks/wh_nope", headers=OPERATOR).status_code == 404
    assert client.post("/v1/webhooks/wh_nope/pause", headers=OPERATOR).status_code == 404
    assert client.get("/v1/webhooks/wh_nope/deliveries", headers=OPERATOR).status_code == 404
    subscription_id, _ = subscribe(client, receiver.url)
    cursor = client.get(f"/v1/webhooks/{subscription_id}", headers=OPERATOR).json["cursor"]
    for position in (-1, "x", 10**12):
        r = client.post(f"/v1/webhooks/{subscription_id}/replay", json={"position": position},
                        headers=OPERATOR)
        assert r.status_code == 422 and r.mimetype == "application/problem+json", r.json
    assert client.get(f"/v1/webhooks/{subscription_id}", headers=OPERATOR).json["cursor"] == cursor


def test_the_secret_is_shown_once_and_never_stored_or_logged_in_clear(client, receiver, new_player,
                                                                      caplog):
    caplog.set_level(logging.DEBUG)
    secret = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    headers = {**OPERATOR, "Idempotency-Key": "hook-secret-1"}
    body = {"url": receiver.url, "event_types": ["*"], "secret": secret}
    first = client.post("/v1/webhooks", json=body, headers=headers)
    assert first.status_code == 201 and first.json["secret"] == secret
    replayed = client.post("/v1/webhooks", json=body, headers=headers)
    assert replayed.headers["Idempotent-Replayed"] == "true" and replayed.json == first.json
    subscription_id = first.json["subscription"]["id"]
    assert "secret" not in client.get(f"/v1/webhooks/{subscription_id}", headers=OPERATOR).json
    with psycopg.connect(context.config().database_url) as conn:
        dump = conn.execute(
            "SELECT (SELECT string_agg(t::text, ' ') FROM webhook_subscriptions t)"
            " || (SELECT string_agg(convert_from(body, 'UTF8'), ' ') FROM idempotency_keys)"
        ).fetchone()
    assert dump is not None and secret not in dump[0] and secret[6:] not in dump[0]
    made = client.post("/v1/webhooks", json={"url": receiver.url, "event_types": ["*"]},
                       headers=OPERATOR).json["secret"]
    assert made.startswith("whsec_") and Webhook(made)
    receiver.answer = failing(1)  # a failed attempt is logged: with no secret in it either
    deposits(client, new_player("Logged"), 1)
    wait_for(lambda: any(r.status == 200 for r in receiver.received),
             lambda: webhooks.deliver(subscription_id))
    assert "failed: HTTP 500" in caplog.text
    for text in (secret, secret[6:], made, made[6:]):
        assert text not in caplog.text


def test_every_event_arrives_when_the_worker_is_killed_mid_delivery(
        hooks_config, client, new_player, receiver):
    """A real `banco worker`, killed while its receiver holds a request; a second one goes on."""
    positions: list[int] = []
    holding = []

    def answer(n: int, got: Received) -> int:
        if len(positions) == 4 and got.event["data"]["position"] == positions[2] and not holding:
            holding.append(got)
            time.sleep(3)  # the worker is killed meanwhile
        return 200

    receiver.answer = answer
    subscription_id, secret = subscribe(client, receiver.url)
    positions.extend(deposits(client, new_player("Killed"), 4))
    env = {**FAST_ENV, "BANCO_WEBHOOK_LEASE_S": "1", "BANCO_WEBHOOK_TIMEOUT_S": "10"}
    with worker_process(hooks_config, **env) as first:
        wait_for(lambda: holding, timeout=60)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
    with worker_process(hooks_config, **env):
        wait_for(lambda: set(accepted(receiver, positions)) >= set(positions), timeout=60)
    got = check_arrivals(receiver, subscription_id, secret, positions)
    ids = [r.webhook_id for r in got]
    assert ids.count(f"{subscription_id}_{positions[2]}") == 2, "the one in flight went again"


def test_deliveries_wait_out_redis_and_go_on_when_it_is_back(hooks_config, client, new_player, receiver):
    """The sweeper queues the delivery; with Redis away it queues nothing and fails nothing, and
    the subscription, still due in PostgreSQL, is queued and delivered by the sweep after."""
    subscription_id, secret = subscribe(client, receiver.url)
    positions = deposits(client, new_player("Redis"), 2)
    away = connect("redis://127.0.0.1:1/0")  # nothing listens there
    assert sweeper.sweep(away, hooks_config.queue_name).webhooks == 0
    assert receiver.received == []
    redis = connect(hooks_config.redis_url)
    queue_name = f"{hooks_config.queue_name}-{os.urandom(4).hex()}"
    queued = f"banco:{webhook_lane(queue_name)}:webhook-queued:{subscription_id}"
    # The watermark may trail a moment; the earlier tests' subscriptions are queued too.
    wait_for(lambda: redis.exists(queued), lambda: sweeper.sweep(redis, queue_name))
    SimpleWorker([queue(redis, webhook_lane(queue_name))], connection=redis).work(burst=True)
    assert not redis.exists(queued), "the job let the next sweep queue the subscription again"
    drain(subscription_id, receiver, positions)
    check_arrivals(receiver, subscription_id, secret, positions)
    assert [d["status"] for d in client.get(f"/v1/webhooks/{subscription_id}/deliveries",
                                            headers=OPERATOR).json["items"]] == ["delivered"] * 2


def test_two_jobs_at_once_send_a_subscription_once_in_order(client, new_player, receiver):
    """Two workers may run a subscription's job at the same moment (a lease ran out, a duplicate
    job): one sends, the other finds the subscription taken and sends nothing."""
    receiver.answer = slow_once(0.3)  # long enough for the second job to find it taken
    subscription_id, secret = subscribe(client, receiver.url)
    positions = deposits(client, new_player("Twice"), 3)
    with psycopg.connect(context.config().database_url, autocommit=True) as conn:
        wait_for(lambda: subscription_id in webhooks.due(conn))  # the watermark may trail
    jobs = [threading.Thread(target=webhooks.deliver, args=(subscription_id,)) for _ in range(2)]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join()
    drain(subscription_id, receiver, positions)
    got = check_arrivals(receiver, subscription_id, secret, positions)
    assert [r.event["data"]["position"] for r in got] == positions, "each once, in order"


def metric(client: FlaskClient, name: str, subscription_id: str) -> float | None:
    """The value of `name` for the subscription in a scrape of /metrics, or None."""
    text = client.get("/metrics", headers=OPERATOR).get_data(as_text=True)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels.get("subscription") == subscription_id:
                return float(sample.value)
    return None


def test_each_subscription_shows_its_lag_failures_and_pause_in_the_metrics(
        client, new_player, receiver):
    receiver.answer = failing(10**6)
    subscription_id, _ = subscribe(client, receiver.url)
    assert metric(client, "banco_webhook_paused", subscription_id) == 0
    assert metric(client, "banco_webhook_failures", subscription_id) == 0
    deposits(client, new_player("Lag"), 2)
    assert metric(client, "banco_webhook_lag_events", subscription_id) >= 2
    wait_for(lambda: client.get(f"/v1/webhooks/{subscription_id}",
                                headers=OPERATOR).json["status"] == "paused",
             lambda: webhooks.deliver(subscription_id))
    assert metric(client, "banco_webhook_paused", subscription_id) == 1
    assert metric(client, "banco_webhook_failures", subscription_id) == 4
    receiver.answer = lambda n, r: 200
    client.post(f"/v1/webhooks/{subscription_id}/resume", headers=OPERATOR)
    wait_for(lambda: metric(client, "banco_webhook_lag_events", subscription_id) == 0,
             lambda: webhooks.deliver(subscription_id))
    assert metric(client, "banco_webhook_paused", subscription_id) == 0
    assert metric(client, "banco_webhook_failures", subscription_id) == 0


def test_a_deleted_subscription_is_sent_nothing_more_and_leaves_nothing(
        hooks_config, client, new_player, receiver):
    subscription_id, _ = subscribe(client, receiver.url)
    player = new_player("Gone")
    drain(subscription_id, receiver, deposits(client, player, 1))
    r = client.delete(f"/v1/webhooks/{subscription_id}", headers=OPERATOR)
    assert r.status_code == 204
    assert client.get(f"/v1/webhooks/{subscription_id}", headers=OPERATOR).status_code == 404
    again = client.delete(f"/v1/webhooks/{subscription_id}", headers=OPERATOR)
    assert again.status_code == 404 and again.json["code"] == "subscription_not_found"
    assert subscription_id not in {s["id"] for s in client.get(
        "/v1/webhooks", headers=OPERATOR).json["items"]}
    sent = len(receiver.received)
    deposits(client, player, 2)
    assert webhooks.deliver(subscription_id) == 0 and len(receiver.received) == sent
    assert metric(client, "banco_webhook_lag_events", subscription_id) is None
    with psycopg.connect(hooks_config.database_url) as conn:
        assert subscription_id not in webhooks.due(conn)
        for table in ("webhook_subscriptions", "webhook_keys", "webhook_deliveries",
                      "webhook_attempts"):
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE subscription_id = %s",
                                (subscription_id,)).fetchone() == (0,), table


def test_a_webhook_that_sends_the_log_needs_the_key_that_reads_it(client, new_player, receiver):
    """A key holding only `webhooks:admin` could subscribe a receiver of its own to every event
    and replay it from position 0: the whole feed (every posting, every dispute's note), which
    the feed itself (`audit:read`) refused it. Subscribing and replaying, which choose what is
    sent, need `audit:read` too (403 `missing_scope` naming it), and change nothing without it;
    the key's other webhook routes stay its own."""
    hooks = client.post("/v1/keys", json={"name": "on call", "scopes": ["webhooks:admin"]},
                        headers=OPERATOR).json["secret"]
    both = client.post("/v1/keys", json={"name": "compliance hooks",
                                         "scopes": ["webhooks:admin", "audit:read"]},
                       headers=OPERATOR).json["secret"]
    assert client.get("/v1/feed", headers=bearer(hooks)).status_code == 403
    listed = len(client.get("/v1/webhooks", headers=OPERATOR).json["items"])
    r = client.post("/v1/webhooks", json={"url": receiver.url, "event_types": ["TreasurePosted"]},
                    headers=bearer(hooks))
    assert (r.status_code, r.json["code"], r.json["scope"]) == (403, "missing_scope", "audit:read")
    assert len(client.get("/v1/webhooks", headers=OPERATOR).json["items"]) == listed
    subscription_id, _ = subscribe(client, receiver.url)
    positions = deposits(client, new_player("Scoped"), 2)
    drain(subscription_id, receiver, positions)
    before = client.get(f"/v1/webhooks/{subscription_id}", headers=OPERATOR).json
    r = client.post(f"/v1/webhooks/{subscription_id}/replay", json={"position": 0},
                    headers=bearer(hooks))
    assert (r.status_code, r.json["code"], r.json["scope"]) == (403, "missing_scope", "audit:read")
    assert client.get(f"/v1/webhooks/{subscription_id}", headers=OPERATOR).json == before
    # What does not choose what is sent is the webhooks key's alone.
    assert client.get(f"/v1/webhooks/{subscription_id}", headers=bearer(hooks)).status_code == 200
    assert client.post(f"/v1/webhooks/{subscription_id}/pause", headers=bearer(hooks)).status_code == 200
    assert client.post(f"/v1/webhooks/{subscription_id}/replay", json={"position": positions[0]},
                       headers=bearer(both)).status_code == 200
    r = client.post("/v1/webhooks", json={"url": receiver.url, "event_types": ["TreasurePosted"]},
                    headers=bearer(both))
    assert r.status_code == 201, r.json
