"""Webhook deliveries in their own lane (workers/queues.py `webhook_lane`, workers/worker.py): a
receiver that takes a delivery and never answers holds up no deadline and no settlement of the
worker whose thread is sending to it."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest

from service.runtime.config import Config, webhook_allow_networks
from tests.conftest import fresh_database
from tests.service.conftest import OPERATOR, register
from tests.service.play import Session
from tests.service.receiver import Received, Receiver
from tests.service.test_timeouts import (
    FAST,
    app_on,
    finish_after_a_timeout,
    hand_status,
    timed_out,
    wait_for,
    worker_process,
)
from workers.queues import connect, queue, webhook_lane

LOOPBACK = "127.0.0.1/32"  # where the receiver is


@pytest.fixture
def own(servers, config: Config) -> Iterator[Config]:
    """A database of its own (its subscription must not be sent the other tests' events), a
    queue of its own, and webhooks allowed to the loopback receiver."""
    with fresh_database(servers.database_url, "banco_lane") as url:
        yield replace(config, database_url=url,
                      queue_name=f"{config.queue_name}-{secrets.token_hex(4)}",
                      webhook_allow_networks=webhook_allow_networks(
                          {"BANCO_WEBHOOK_ALLOW_NETWORKS": LOOPBACK}))


def test_a_receiver_that_never_answers_holds_up_no_deadline_and_no_settlement(own: Config):
    release = threading.Event()

    def hang(n: int, got: Received) -> int:
        release.wait(300)
        return 200

    receiver = Receiver(answer=hang).up()
    env = {"BANCO_WEBHOOK_ALLOW_NETWORKS": LOOPBACK, "BANCO_WEBHOOK_TIMEOUT_S": "300"}
    try:
        with app_on(own) as app, worker_process(own, **env):
            client = app.test_client()
            r = client.post("/v1/webhooks", json={"url": receiver.url, "event_types": ["TreasurePosted"]},
                            headers=OPERATOR)
            assert r.status_code == 201, r.json
            players = [register(client, name, 50) for name in ("Ann", "Bob", "Cy")]
            # The worker's lane takes the first event to the receiver, which holds on to it.
            wait_for(lambda: receiver.received)
            session = Session(client, "sette-e-mezzo", players)
            session.open(FAST, 20)
            hand_id = session.deal()
            # Nobody moves: the deadline job fires on the worker, then the players finish.
            finish_after_a_timeout(client, app, session)
            wait_for(lambda: hand_status(client, hand_id) == "settled")
            assert timed_out(app, session)
            # All of it while the one delivery still waited for its answer.
            assert [got.status for got in receiver.received] == [None]
            assert not release.is_set()
    finally:
        release.set()
        receiver.down()


def test_with_no_lane_threads_deliveries_wait_for_a_webhooks_worker(own: Config):
    receiver = Receiver().up()
    env = {"BANCO_WEBHOOK_ALLOW_NETWORKS": LOOPBACK, "BANCO_WEBHOOK_THREADS": "0"}
    try:
        with app_on(own) as app, worker_process(own, **env):
            client = app.test_client()
            r = client.post("/v1/webhooks", json={"url": receiver.url,
                                                  "event_types": ["TreasurePosted"]},
                            headers=OPERATOR)
            subscription_id = r.json["subscription"]["id"]
            r = client.post("/v1/players", json={"name": "Ann"}, headers=OPERATOR)
            client.post(f"/v1/players/{r.json['player']['id']}/deposits",
                        json={"amount": 5, "reason": "seed"}, headers=OPERATOR)
            redis = connect(own.redis_url)
            queued = f"banco:{webhook_lane(own.queue_name)}:webhook-queued:{subscription_id}"
            # Queued on the lane by the worker's sweeper, and left there: no thread of it
            # works the lane.
            # The sweeper marks the subscription queued, then queues its job: wait for both.
            wait_for(lambda: redis.exists(queued))
            wait_for(lambda: queue(redis, webhook_lane(own.queue_name)).count == 1)
            assert receiver.received == []
            with worker_process(own, "--webhooks", **env):
                wait_for(lambda: receiver.delivered(lambda got: got.status == 200))
    finally:
        receiver.down()
