"""`banco worker`: an RQ worker with its scheduler and the sweeper, one process, no fork per job.

The worker outlives Redis: an outage is waited out (the sweeper goes on from PostgreSQL
meanwhile), and a Redis that comes back without the worker's registration gets it again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from redis import Redis
from redis.client import Pipeline
from redis.exceptions import ConnectionError
from rq import Queue, SimpleWorker, worker_registration
from rq.exceptions import StopRequested
from rq.executions import Execution
from rq.job import Job
from rq.timeouts import TimerDeathPenalty
from rq.utils import now

from service.runtime import tracing
from service.runtime.config import WorkerConfig
from workers import context, job_logs, sweeper
from workers.queues import REDIS_AWAY, connect, queue, webhook_lane
from workers.scheduler import Scheduler

log = logging.getLogger("banco.worker")

HEARTBEAT_S = 2.0  # how often a worker tells Redis it is alive, whatever job it runs
# How long Redis keeps a worker listed after its last heartbeat: a killed worker (which cannot
# register its death) is gone from `/readyz` and `banco jobs` this soon, not after RQ's minutes.
HEARTBEAT_TTL_S = 10
# RQ's loop asks for a heartbeat three times a job (before and after its wait for one, and after
# running it), each a round trip of five commands: a fifth of what RQ spends on a job that does
# nothing (bench/README.md). The heartbeat thread beats every HEARTBEAT_S whatever the loop does,
# so the loop's beats are sent only when none went for this long.
BEAT_AGAIN_S = HEARTBEAT_S / 2
WORKER_TTL_S = 30  # RQ's: its blocking wait for a job lasts this less 15 s
MAX_WAIT_S = 4.0  # the longest pause between two tries to reach Redis again
# How long a stopping worker waits for its scheduler process: RQ's join has no bound, and a
# scheduler forked while another thread held a lock (a log write) may never get to stop.
SCHEDULER_STOP_S = 5.0
# How often a worker without a scheduler asks for the scheduler's lock (RQ's lasts 61 s).
SCHEDULER_ASK_S = 15.0
SWEEP_STOP_S = 5.0  # how long a stopping worker lets a sweep under way finish


class Worker(SimpleWorker):
    """SimpleWorker that waits out a Redis outage instead of quitting, and registers again when
    Redis has forgotten it (restarted empty, flushed)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Between its birth and its death, and only then, heartbeats may register it again.
        self._registration = threading.Lock()
        self._registered = False
        self._beaten = float("-inf")  # time.monotonic() of the last heartbeat sent
        self._waiting = False  # in RQ's wait for a job, none taken yet
        self._schedules = False  # a long-running worker, which runs a scheduler when it may
        self._scheduler_asked = float("-inf")  # time.monotonic() of the last try for its lock

    def bootstrap(self, *args: Any, **kwargs: Any) -> None:
        # RQ registers, subscribes and sets its state here, outside its loop's handling of
        # Redis errors: an outage at that moment would end the worker.
        while True:
            try:
                super().bootstrap(*args, **kwargs)
                return
            except REDIS_AWAY as e:
                self.wait_for_redis(e)
                self._undo_bootstrap()

    def _undo_bootstrap(self) -> None:
        """Forget a half-made start so that it can be made again: our own registration (which RQ
        would take for another live worker of our name) and the subscription's thread."""
        if self.pubsub_thread is not None:
            self.pubsub_thread.stop()
            self.pubsub_thread = None
        with contextlib.suppress(*REDIS_AWAY):
            self.connection.delete(self.key)

    def _start_scheduler(self, burst: bool = False, *args: Any, **kwargs: Any) -> None:
        self._schedules = not burst  # a burst worker moves the due jobs once, in-process
        while True:  # its locks are taken in Redis, also outside RQ's loop
            try:
                self._scheduler_started(burst)
                return
            except REDIS_AWAY as e:
                if self._stop_requested:
                    return
                self.wait_for_redis(e)

    def _scheduler_started(self, burst: bool) -> None:
        """RQ's `_start_scheduler`, with the scheduler that an outage ends quietly."""
        self.scheduler = Scheduler(self.queues, connection=self.connection,
                                   logging_level=self.log.level, serializer=self.serializer)
        self.scheduler.acquire_locks()
        if not self.scheduler.acquired_locks:
            return
        if not burst:
            self.scheduler.start()
            return
        try:
            self.scheduler.register_birth()
            self.scheduler.enqueue_scheduled_jobs()
        finally:
            self.scheduler.release_locks()
            self.scheduler.register_death()

    def dequeue_job_and_maintain_ttl(self, timeout: int | None,
                                     max_idle_time: int | None = None) -> tuple[Job, Queue] | None:
        # RQ retries a failed dequeue but not its state's write before it, which ends its loop.
        while True:
            self._waiting = True
            try:
                return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
            except REDIS_AWAY as e:
                if self._stop_requested:
                    return None
                self.wait_for_redis(e)
            finally:
                self._waiting = False

    def reorder_queues(self, reference_queue: Queue) -> None:
        # RQ's wait calls this as soon as it has taken a job: from then on a stop waits for it.
        self._waiting = False
        super().reorder_queues(reference_queue)

    def request_stop(self, signum: int, frame: Any) -> None:
        # Idle, RQ stops by raising StopRequested from this signal handler; raised while a
        # finaliser (`__del__`) runs, Python drops it, and the worker would wait on. The flag
        # keeps the request for the wait's next heartbeat (`heartbeat`), a dequeue's timeout
        # at most later.
        self._stop_requested = True
        super().request_stop(signum, frame)

    def stop_scheduler(self) -> None:
        """Stop the scheduler process, killing it if it has not stopped in SCHEDULER_STOP_S."""
        process = self.scheduler._process if self.scheduler is not None else None
        if process is None or process.pid is None:
            return
        with contextlib.suppress(OSError):
            os.kill(process.pid, signal.SIGTERM)
        process.join(SCHEDULER_STOP_S)
        if process.is_alive():
            log.warning("Worker %s: the scheduler (PID %d) did not stop; killed", self.name,
                        process.pid)
            process.kill()
            process.join()

    def register_birth(self) -> None:
        """RQ's birth, but for the key's TTL: RQ's keeps a new worker's key for worker_ttl + 60
        s, and a worker killed before its first heartbeat stayed listed that long. The short TTL
        goes in the birth's own transaction; set after it, a worker killed in between kept 90 s."""
        with self._registration:
            key = self.key
            if self.connection.exists(key) and not self.connection.hexists(key, "death"):
                raise ValueError(f"There exists an active worker named {self.name!r} already")
            with self.connection.pipeline() as pipe:
                pipe.delete(key)
                self.birth_date = self.last_heartbeat = now()
                pipe.hset(key, mapping=self.serialize())
                worker_registration.register(self, pipe)
                pipe.expire(key, HEARTBEAT_TTL_S)
                pipe.execute()
            self._registered = True

    def register_death(self) -> None:
        with self._registration:
            self._registered = False
            super().register_death()

    def beat(self) -> None:
        """One heartbeat, which puts the worker back on Redis's lists if it is missing there."""
        with self._registration:
            if self._registered:
                self._beat()

    def _beat(self) -> None:
        with self.connection.pipeline() as pipe:
            super().heartbeat(HEARTBEAT_TTL_S, pipeline=pipe)
            worker_registration.register(self, pipe)
            created = pipe.execute()[0]
        self._beaten = time.monotonic()
        if created:  # the hash had no heartbeat: Redis had lost it, write the rest again
            with self.connection.pipeline() as pipe:
                pipe.hset(self.key, mapping={**self.serialize(), "state": self.get_state()})
                pipe.expire(self.key, HEARTBEAT_TTL_S)
                pipe.execute()
            log.info("Worker %s: registered again with Redis", self.name)

    def heartbeat(self, timeout: int | None = None, pipeline: Pipeline | None = None) -> None:
        # The worker's key lives HEARTBEAT_TTL_S past each heartbeat, whatever RQ asks: the
        # heartbeat thread keeps it alive through long jobs.
        if pipeline is not None:
            super().heartbeat(HEARTBEAT_TTL_S, pipeline=pipeline)
            return
        if self._stop_requested and self._waiting:  # a stop whose StopRequested was lost
            raise StopRequested()
        while True:
            try:
                if time.monotonic() - self._beaten >= BEAT_AGAIN_S:
                    self.beat()
                self.revive_scheduler()
                return
            except REDIS_AWAY as e:
                if self._stop_requested:
                    return
                self.wait_for_redis(e)

    def revive_scheduler(self) -> None:
        """Start this worker's scheduler if none runs here: again at once if it died (of a
        Redis outage), and every `SCHEDULER_ASK_S` if another worker held the lock when this
        one started. A worker killed outright keeps the lock for a minute after its death, so a
        worker started in its place ran no scheduler until RQ's maintenance, ten minutes on."""
        # Not while stopping: the scheduler was stopped on purpose, and one started again then
        # outlived the worker's shutdown (a job ending after SIGTERM beats once more).
        if self.scheduler is None or not self._schedules or self._stop_requested:
            return
        process = self.scheduler._process
        if process is not None and process.is_alive():
            return
        if process is None and time.monotonic() - self._scheduler_asked < SCHEDULER_ASK_S:
            return
        self._scheduler_asked = time.monotonic()
        self.scheduler.acquire_locks(auto_start=True)

    def perform_job(self, job: Job, queue: Queue, execution: Execution) -> bool:
        # The run continues the trace of whatever queued the job (service/runtime/tracing.py).
        with tracing.job_span(f"job {job.func_name}", job.meta.get("trace")):
            return bool(super().perform_job(job, queue, execution))

    def execute_job(self, job: Job, queue: Queue) -> None:
        try:
            super().execute_job(job, queue)
        except REDIS_AWAY as e:
            # The job's work is in PostgreSQL; only RQ's record of it is lost, and the sweeper
            # finishes whatever the job left (a deadline's follow-up, a settlement).
            self.executions.clear()
            self.wait_for_redis(e)

    def check_for_suspension(self, burst: bool) -> None:
        try:
            super().check_for_suspension(burst)
        except REDIS_AWAY as e:
            self.wait_for_redis(e)

    def run_maintenance_tasks(self) -> None:
        try:
            super().run_maintenance_tasks()
        except REDIS_AWAY as e:
            self.wait_for_redis(e)

    def teardown(self) -> None:
        try:
            super().teardown()
        except REDIS_AWAY:  # stopping while Redis is away: its key expires with the heartbeats
            log.warning("Worker %s: stopped without telling Redis, which is unreachable", self.name)

    def wait_for_redis(self, error: Exception) -> None:
        wait_for_redis(self.connection, error, lambda: self._stop_requested)

    def _pubsub_exception_handler(self, exc: Exception, pubsub: Any, pubsub_thread: Any) -> None:
        if not isinstance(exc, ConnectionError):
            super()._pubsub_exception_handler(exc, pubsub, pubsub_thread)
            return
        time.sleep(MAX_WAIT_S)  # the outage is logged by the job loop; redis-py resubscribes


def wait_for_redis(connection: Redis, error: Exception,
                   stopping: Callable[[], bool] = lambda: False) -> None:
    """Wait until Redis answers again, with a growing pause; the outage is logged once."""
    log.warning("Redis is unreachable (%s): jobs wait for it, the sweeper goes on from PostgreSQL",
                error)
    began, pause = time.monotonic(), 0.25
    while not stopping():
        time.sleep(pause)
        try:
            connection.ping()
            break
        except REDIS_AWAY:
            pause = min(pause * 2, MAX_WAIT_S)
    else:
        return  # stopped, Redis still away
    log.warning("Redis is back after %.0f s", time.monotonic() - began)


def keep_beating(worker: Worker, stop: threading.Event) -> None:
    """Heartbeats from a thread of their own, so a long job does not make the worker look dead."""
    while not stop.wait(HEARTBEAT_S):
        try:
            worker.beat()
        except REDIS_AWAY:
            pass  # the job loop waits for Redis and says so; the next beat registers again
        except Exception:  # the thread must outlive anything a heartbeat meets
            log.exception("heartbeat failed")


def run(config: WorkerConfig, burst: bool = False, webhooks_only: bool = False) -> bool:
    """The worker's composition root: its resources built from `config` and installed for its
    jobs and sweeps, then the queue worked (until it is empty with `burst`), with its webhook
    lane's threads beside it; or, `webhooks_only`, the lane alone. Returns whether any job ran."""
    config.check_servers()
    job_logs.configure()
    tracing.configure("banco-worker")
    with context.installed(config):
        if webhooks_only:
            return _work_lane(config.redis_url, config.queue_name, burst)
        return _work(config.redis_url, config.queue_name, burst, config.sweep_every_s,
                     config.webhooks.threads)


class LaneWorker(Worker):
    """A worker of the webhooks' lane in a thread of the worker's process: the process's own
    worker, in its main thread, takes the signals and stops it; a job's time limit is kept by a
    timer, since only the main thread may take SIGALRM."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        pass


def _lane(redis_url: str, queue_name: str, stop: threading.Event) -> LaneWorker:
    connection = connect(redis_url)
    worker = LaneWorker([queue(connection, webhook_lane(queue_name))], connection=connection,
                        worker_ttl=WORKER_TTL_S)
    threading.Thread(target=keep_beating, args=(worker, stop), name="lane-heartbeat",
                     daemon=True).start()
    # Daemon threads: a delivery under way when the process stops is cut, its lease runs out
    # and the next sweep queues it again (at least once, with the same webhook-id).
    threading.Thread(target=_work_logged, args=(worker,), name="webhook-lane",
                     daemon=True).start()
    return worker


def _work_logged(worker: Worker) -> None:
    try:
        worker.work(with_scheduler=False)
    except Exception:  # the main worker goes on; deliveries wait for the next start
        log.exception("the webhook lane's worker %s stopped", worker.name)


def _work_lane(redis_url: str, queue_name: str, burst: bool) -> bool:
    """A process of the webhooks' lane alone (`banco worker --webhooks`)."""
    connection = connect(redis_url)
    worker = Worker([queue(connection, webhook_lane(queue_name))], connection=connection,
                    worker_ttl=WORKER_TTL_S)
    if burst:
        return worker.work(burst=True)
    stop = threading.Event()
    threading.Thread(target=keep_beating, args=(worker, stop), name="heartbeat", daemon=True).start()
    try:
        return worker.work()
    finally:
        stop.set()


def _redis_answers(connection: Redis, stop: threading.Event) -> bool:
    """Wait for Redis, which RQ's worker needs from its start; False if told to stop first.
    Until RQ installs its own, SIGINT and SIGTERM stop the wait: a worker started in the
    background (SIGINT ignored, as a shell leaves it) could not be stopped by Ctrl-C's signal,
    and one in the foreground ended on a KeyboardInterrupt."""
    try:
        connection.ping()
        return True
    except REDIS_AWAY as e:  # started while Redis is away
        previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            wait_for_redis(connection, e, stop.is_set)
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
    if stop.is_set():
        log.info("stopped while waiting for Redis")
    return not stop.is_set()


def _work(redis_url: str, queue_name: str, burst: bool, sweep_every_s: float,
          lane_threads: int = 1) -> bool:
    connection = connect(redis_url)
    if burst:
        lane_queues = [queue(connection, webhook_lane(queue_name))] if lane_threads else []
        worker = Worker([queue(connection, queue_name), *lane_queues], connection=connection)
        sweeper.sweep_logged(connection, queue_name)
        return worker.work(burst=True, with_scheduler=True)
    stop = threading.Event()
    # The sweeper has a connection of its own: RQ lengthens its worker's socket timeout to
    # cover a blocking wait for a job, which a sweep must not spend on a Redis that hangs.
    sweeping = threading.Thread(target=sweeper.loop, name="sweeper", daemon=True,
                                args=(connect(redis_url), queue_name, sweep_every_s, stop))
    sweeping.start()
    if not _redis_answers(connection, stop):  # stopped before Redis came
        sweeping.join(SWEEP_STOP_S)
        return False
    lanes = [_lane(redis_url, queue_name, stop) for _ in range(lane_threads)]
    # SimpleWorker runs jobs in-process: a fork per job caps RQ near 100 jobs/s on two cores,
    # and Banco's jobs are short and load all they need from PostgreSQL.
    worker = Worker([queue(connection, queue_name)], connection=connection, worker_ttl=WORKER_TTL_S)
    threading.Thread(target=keep_beating, args=(worker, stop), name="heartbeat", daemon=True).start()
    try:
        return worker.work(with_scheduler=True)
    finally:
        stop.set()
        for lane in lanes:
            lane._stop_requested = True  # its wait for a job ends it, or the process's exit
        sweeping.join(SWEEP_STOP_S)
