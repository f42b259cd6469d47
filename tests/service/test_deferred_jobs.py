"""The jobs a table change needs, sent after the request: batched, a turn over before its job was
written never written, settlements never dropped nor delayed. Against a Redis of the module's
own, whose command counts are the test's alone."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from redis import Redis
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from projections.tables import TableRow
from tests.service.conftest import OPERATOR
from workers import timeouts
from workers.deferred_jobs import DeferredJobs
from workers.queues import connect, queue

QUEUE = "banco-deferred-test"
LATER = datetime.now(UTC) + timedelta(hours=1)


@pytest.fixture
def redis(lone_redis: str) -> Iterator[Redis]:
    connection = connect(lone_redis)
    connection.flushall()
    connection.config_resetstat()
    yield connection
    connection.flushall()


def turn(table_id: str, version: int) -> TableRow:
    return TableRow(table_id=table_id, game="cassino", options={}, status="playing",
                    version=version, hand_id="hd_1", deadline=LATER)


def settling(table_id: str, version: int, hand_id: str) -> TableRow:
    return TableRow(table_id=table_id, game="cassino", options={}, status="settling",
                    version=version, hand_id=hand_id)


def scheduled(redis: Redis) -> list[str]:
    return sorted(ScheduledJobRegistry(queue=queue(redis, QUEUE)).get_job_ids())


def calls(redis: Redis, command: str) -> int:
    return int(redis.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))


def test_a_turn_that_ends_before_its_job_is_sent_never_reaches_redis(redis):
    """Seed: ../shared/seeds/003_37d90c873e067319.txt (Cassino: players move in turn). Three
    moves in quick succession: only the turn still open is scheduled, in one ZADD, and nothing
    is cancelled because nothing stale was written."""
    jobs = DeferredJobs(redis, QUEUE, delay_s=30)
    jobs.after(turn("tb_a", 1))
    jobs.after(turn("tb_a", 2), ended=1)
    jobs.after(turn("tb_a", 3), ended=2)
    assert scheduled(redis) == [], "sent before its delay"
    jobs.flush()
    assert scheduled(redis) == [timeouts.job_id("tb_a", 3)]
    assert calls(redis, "zadd") == 1 and calls(redis, "zrem") == 0
    assert not redis.exists(Job.key_for(timeouts.job_id("tb_a", 1)))


def test_a_turn_already_sent_is_cancelled_when_it_ends(redis):
    jobs = DeferredJobs(redis, QUEUE, delay_s=30)
    jobs.after(turn("tb_b", 4))
    jobs.flush()
    assert scheduled(redis) == [timeouts.job_id("tb_b", 4)]
    jobs.after(turn("tb_b", 5), ended=4)
    jobs.flush()
    assert scheduled(redis) == [timeouts.job_id("tb_b", 5)]
    assert not redis.exists(Job.key_for(timeouts.job_id("tb_b", 4)))


def test_a_change_recorded_after_a_newer_one_does_not_replace_it(redis):
    """Two requests of one process may record their changes in the other order than they
    committed them: the older turn is over, the newer one is what must fire."""
    jobs = DeferredJobs(redis, QUEUE, delay_s=30)
    jobs.after(turn("tb_c", 7), ended=6)
    jobs.after(turn("tb_c", 6), ended=5)
    jobs.flush()
    assert scheduled(redis) == [timeouts.job_id("tb_c", 7)]


def test_settlements_are_sent_at_once_and_never_dropped(redis):
    """A hand's end must not wait for the batching delay: its players wait for the payout."""
    jobs = DeferredJobs(redis, QUEUE, delay_s=30)
    jobs.after(turn("tb_d", 1))
    jobs.after(settling("tb_d", 2, "hd_d1"), ended=1)
    jobs.after(settling("tb_e", 9, "hd_e1"))
    q = queue(redis, QUEUE)
    deadline = time.monotonic() + 10
    while sorted(q.job_ids) != ["settle-hd_d1", "settle-hd_e1"] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(q.job_ids) == ["settle-hd_d1", "settle-hd_e1"]
    assert scheduled(redis) == []  # the turn ended before it was sent


def test_the_thread_sends_after_its_delay(redis):
    jobs = DeferredJobs(redis, QUEUE, delay_s=0.05)
    jobs.after(turn("tb_f", 2))
    deadline = time.monotonic() + 10
    while not scheduled(redis) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert scheduled(redis) == [timeouts.job_id("tb_f", 2)]


def test_redis_down_loses_nothing_the_sweeper_cannot_find(caplog):
    """The request has long been answered: a failed send is logged, and the deadline stays in
    PostgreSQL for the sweeper (tests/service/test_timeouts.py covers that part)."""
    jobs = DeferredJobs(connect("redis://127.0.0.1:1/0"), QUEUE, delay_s=30)
    jobs.after(turn("tb_g", 3))
    with caplog.at_level(logging.WARNING, logger="banco.jobs"):
        jobs.flush()
    assert "the sweeper will" in caplog.text


def test_a_turn_its_table_has_moved_past_is_not_sent(redis):
    """The move that ended the turn was served by another process: this one learns it from the
    table projection before it sends, and drops the turn instead of leaving a job to fire for
    nothing. A table the projection does not know is sent as it is."""
    current = {"tb_h": 9, "tb_i": 3}
    jobs = DeferredJobs(redis, QUEUE, delay_s=30, versions=lambda ids: {
        t: current[t] for t in ids if t in current})
    jobs.after(turn("tb_h", 8))
    jobs.after(turn("tb_i", 3))
    jobs.after(turn("tb_j", 5))
    jobs.flush()
    assert scheduled(redis) == [timeouts.job_id("tb_i", 3), timeouts.job_id("tb_j", 5)]


def test_turns_are_sent_when_the_versions_cannot_be_read(redis):
    def unreadable(ids):
        raise OSError("PostgreSQL is away")

    jobs = DeferredJobs(redis, QUEUE, delay_s=30, versions=unreadable)
    jobs.after(turn("tb_k", 2))
    jobs.flush()
    assert scheduled(redis) == [timeouts.job_id("tb_k", 2)]


def test_the_app_reads_the_versions_from_the_table_projection(app, client):
    r = client.post("/v1/tables", json={"game": "cassino", "options": {"variant": "classic"}},
                    headers=OPERATOR)
    assert r.status_code == 201, r.json
    versions = app.extensions["banco.jobs"].versions
    assert versions([r.json["id"], "tb_no_such_table"]) == {r.json["id"]: r.json["version"]}
