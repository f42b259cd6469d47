"""Time at a table: deadlines that fire through real workers, whatever happens to Redis."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import IO

import psycopg
import pytest

from service.application import handlers
from service.http.app import create_app
from service.runtime.config import Config
from tests.service.conftest import OPERATOR, ROOT, jobs_on
from tests.service.play import Session
from workers import timeouts

FAST = {"turn_timeout_s": 1, "banker_timeout_s": 1}


@contextmanager
def worker_process(config: Config, *args: str, stderr: IO[bytes] | None = None,
                   **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """A real `banco worker` (with `args`) on `config`'s database, Redis and queue (its
    standard error to `stderr` when given)."""
    full = {**os.environ, "DATABASE_URL": config.database_url, "REDIS_URL": config.redis_url,
            "BANCO_QUEUE": config.queue_name, "BANCO_SWEEP_EVERY_S": "0.5", **env}
    # A session of its own: RQ's scheduler runs in a child process, which a worker killed
    # with SIGKILL leaves behind; the whole group is stopped at the end.
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker", *args], cwd=ROOT,
                            env=full, start_new_session=True, stderr=stderr)
    try:
        yield proc
    finally:
        stop_group(proc)


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop a worker and anything it started (its scheduler)."""
    try:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)  # a worker that does not stop on SIGTERM fails its test
    finally:  # and leaves nothing running into the next test
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextmanager
def app_on(config: Config) -> Iterator:
    app = create_app(config)
    try:
        yield app
    finally:
        app.extensions["banco.pool"].close()


@pytest.fixture
def own(config) -> Config:
    """The session's database with a queue of this test's own (no other worker listens)."""
    return replace(config, queue_name=f"{config.queue_name}-{os.urandom(4).hex()}")


@pytest.fixture
def use_db(config):
    """Let this process call the jobs' functions directly, on the session's database."""
    with jobs_on(config):
        yield


def wait_for(check, timeout: float = 60, every: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("timed out waiting")


def events_of(app, table_id: str):
    return app.extensions["banco.store"].read_stream(handlers.stream(table_id))


def hand_status(client, hand_id: str) -> str:
    return str(client.get(f"/v1/hands/{hand_id}", headers=OPERATOR).json["status"])


def test_deadlines_are_recorded_and_shown(own, new_player):
    with app_on(own) as app:
        client = app.test_client()
        session = Session(client, "sette-e-mezzo", [new_player(f"D{i}", deposit=50) for i in range(3)])
        session.open({"turn_timeout_s": 30, "banker_timeout_s": 90}, 20)
        before = time.time()
        session.deal()
        table = client.get(f"/v1/tables/{session.table_id}", headers=OPERATOR).json
        [deadline] = [e for e in events_of(app, session.table_id) if e.type == "DeadlineSet"]
        assert deadline.data["seat"] == table["turn"]["seat"]
        limit = 90 if table["turn"]["role"] == "banker" else 30
        assert before + limit <= deadline.data["deadline"] <= time.time() + limit
        assert table["turn"]["deadline"].startswith(time.strftime("%Y-%m-%d", time.gmtime()))


def test_a_banker_who_never_acts_still_finishes_and_settles(own, new_player):
    """RULES.md 1a: a timed-out banker draws while under `banker_stand_at`, then stands."""
    with app_on(own) as app, worker_process(own):
        client = app.test_client()
        session = Session(client, "sette-e-mezzo", [new_player(f"B{i}", deposit=50) for i in range(3)])
        session.open(FAST, 20)
        hand_id = session.deal()
        banker_seat = None
        # The players bet and stand at once; the banker's seat never sends anything.
        while client.get(f"/v1/tables/{session.table_id}", headers=OPERATOR).json["status"] == "playing":
            for p in session.players:
                view = client.get(f"/v1/tables/{session.table_id}", headers=p.auth).json
                turn = view["turn"]
                if turn and turn["role"] == "banker" and turn["seat"] == view["you"]:
                    banker_seat = view["you"]
                    continue
                if view["legal_actions"] and view["you"] != banker_seat:
                    offered = view["legal_actions"]
                    action = session.payload(next((a for a in offered if a["type"] == "stand"),
                                                  offered[0]))
                    client.post(f"/v1/tables/{session.table_id}/actions", json=action,
                                headers={**p.auth, "If-Match": f'"{view["version"]}"'})
            time.sleep(0.2)
        wait_for(lambda: hand_status(client, hand_id) == "settled")
        timed_out = [e for e in events_of(app, session.table_id)
                     if e.type.startswith("game.") and e.data["data"].get("timeout")]
        assert timed_out, "the banker's turn was played by the timeout policy"
        assert all(e.metadata["command"]["name"] == "TimeOut" for e in timed_out)


def race(app, session: Session, view: dict) -> dict[str, object]:
    """The seat to move acts while the timeout of the same turn fires, both released at once."""
    actor = session.players[view["you"]]
    version = view["version"]
    results: dict[str, object] = {}
    barrier = threading.Barrier(2)

    def act() -> None:
        client = app.test_client()
        barrier.wait()
        results["action"] = client.post(
            f"/v1/tables/{session.table_id}/actions", json=view["legal_actions"][0],
            headers={**actor.auth, "If-Match": f'"{version}"'}).status_code

    def fire() -> None:
        barrier.wait()
        results["timeout"] = timeouts.fire(session.table_id, version)

    threads = [threading.Thread(target=act), threading.Thread(target=fire)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_an_action_racing_its_timeout_takes_effect_once(own, new_player, use_db):
    with app_on(own) as app:
        client = app.test_client()
        for attempt in range(4):
            session = Session(client, "pirate-pairs", [new_player(f"R{attempt}{i}", deposit=30)
                                                       for i in range(2)])
            session.open({"turn_timeout_s": 30}, 10)
            session.deal()
            view = next(v for v in (client.get(f"/v1/tables/{session.table_id}", headers=p.auth).json
                                    for p in session.players) if v["legal_actions"])
            results = race(app, session, view)
            action_won = results["action"] == 200
            timeout_won = results["timeout"] is not None
            assert action_won != timeout_won, results
            after = [e for e in events_of(app, session.table_id) if e.version > view["version"]]
            names = {e.metadata["command"]["name"] for e in after
                     if isinstance(e.metadata.get("command"), dict)}
            assert names == ({"Act"} if action_won else {"TimeOut"})
            now = client.get(f"/v1/tables/{session.table_id}", headers=OPERATOR).json
            assert now["version"] == after[-1].version


def test_a_worker_killed_mid_settlement_settles_exactly_once_after_restart(own, new_player):
    with app_on(own) as app:
        client = app.test_client()
        session = Session(client, "pirate-pairs", [new_player(f"K{i}", deposit=40) for i in range(3)])
        session.open({"stake": 5, "turn_timeout_s": 30}, 20)
        hand_id = session.deal()
        session.play_hand()
        with worker_process(own, BANCO_TEST_CRASH_POINT="settlement") as doomed:
            assert doomed.wait(timeout=60) == -9  # SIGKILL, inside the settlement transaction
        assert hand_status(client, hand_id) == "settling"
        with worker_process(own, BANCO_SETTLE_GRACE_S="0"):
            wait_for(lambda: hand_status(client, hand_id) == "settled")
        stored = events_of(app, session.table_id)
        assert [e.type for e in stored].count("HandSettled") == 1
        claims = app.extensions["banco.store"].read_stream(f"settlement-{hand_id}")
        assert len(claims) == 1
        with app.extensions["banco.pool"].connection() as c:
            assert c.execute("SELECT sum(balance) FROM balances").fetchone()[0] == 0
        wallets = sum(client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"]
                      for p in session.players)
        assert wallets == 120  # the table is over: everything is back in the wallets


def timed_out(app, session: Session) -> bool:
    return any(e.data["data"].get("timeout") for e in events_of(app, session.table_id)
               if e.type.startswith("game."))


def finish_after_a_timeout(client, app, session: Session) -> None:
    """Once a deadline has fired, the players end the hand themselves: played by timeouts alone,
    a turn a second, a hand takes a minute. A move that meets a deadline firing at the same
    moment is refused on its version (409/412) and tried again on the new one."""
    wait_for(lambda: timed_out(app, session), timeout=60)
    for _ in range(500):
        views = [(p, client.get(f"/v1/tables/{session.table_id}", headers=p.auth).json)
                 for p in session.players]
        if views[0][1]["status"] != "playing":
            return
        mover = next(((p, v) for p, v in views if v["legal_actions"]), None)
        if mover is None:
            continue  # between a hand's end and its table's
        p, view = mover
        r = client.post(f"/v1/tables/{session.table_id}/actions",
                        json=session.payload(view["legal_actions"][0]),
                        headers={**p.auth, "If-Match": f'"{view["version"]}"'})
        assert r.status_code in (200, 409, 412), r.json
    raise AssertionError("the hand did not end")


def test_flushing_redis_loses_the_jobs_but_not_the_deadlines(own, new_player, lone_redis):
    config = replace(own, redis_url=lone_redis)
    with app_on(config) as app:
        client = app.test_client()
        session = Session(client, "pirate-pairs", [new_player(f"F{i}", deposit=30) for i in range(3)])
        session.open({"turn_timeout_s": 1}, 10)
        hand_id = session.deal()
        app.extensions["banco.jobs"].flush()  # what the request left to send, sent now
        redis = app.extensions["banco.redis"]
        assert redis.keys("rq:*"), "the deadline was scheduled in Redis"
        redis.flushall()
        with worker_process(config):
            finish_after_a_timeout(client, app, session)
            wait_for(lambda: hand_status(client, hand_id) == "settled", timeout=120)
        stored = events_of(app, session.table_id)
        deadlines = [e.version for e in stored if e.type == "DeadlineSet"]
        fired = [e for e in stored if e.type.startswith("game.") and e.data["data"].get("timeout")]
        assert fired and len(deadlines) >= 2
        # Exactly once: each timeout answers the deadline the batch just before it set.
        batches: list[list] = []
        for e in stored:
            command = e.metadata.get("command")
            key = (command.get("name"), command.get("now")) if isinstance(command, dict) else None
            if not batches or batches[-1][0] != key:
                batches.append([key, []])
            batches[-1][1].append(e.type)
        for before, batch in itertools.pairwise(batches):
            if batch[0] and batch[0][0] == "TimeOut":
                assert "DeadlineSet" in before[1]


def test_redis_down_actions_go_on_and_deadlines_fire_when_it_returns(own, new_player):
    down = replace(own, redis_url="redis://127.0.0.1:1/0")
    with app_on(down) as app:
        client = app.test_client()
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json["checks"]["redis"].startswith("down")
        session = Session(client, "pirate-pairs", [new_player(f"N{i}", deposit=30) for i in range(2)])
        session.open({"turn_timeout_s": 1}, 10)
        hand_id = session.deal()
        view = next(v for v in (client.get(f"/v1/tables/{session.table_id}", headers=p.auth).json
                                for p in session.players) if v["legal_actions"])
        r = client.post(f"/v1/tables/{session.table_id}/actions", json=view["legal_actions"][0],
                        headers={**session.players[view["you"]].auth,
                                 "If-Match": f'"{view["version"]}"'})
        assert r.status_code == 200 and r.json["turn"]["deadline"]
        time.sleep(1.2)  # the deadline passes while Redis is away
        with worker_process(own):  # Redis is back: the worker's sweeper finds the deadline
            finish_after_a_timeout(client, app, session)
            wait_for(lambda: hand_status(client, hand_id) == "settled", timeout=120)
        assert timed_out(app, session)


def test_casino_pirate_tables_end_when_their_duration_runs_out(own, new_player):
    """RULES.md 1c (000_1414b0b0fea70c86.txt): the table ends after its duration, after the hand
    in play; the seats are cashed out."""
    with app_on(own) as app, worker_process(own):
        client = app.test_client()
        idle = Session(client, "casino-pirate", [new_player(f"I{i}", deposit=20) for i in range(2)])
        idle.open({"duration_s": 1}, None)
        playing = Session(client, "casino-pirate", [new_player(f"J{i}", deposit=20) for i in range(3)])
        playing.open({"duration_s": 2}, None)
        hand_id = playing.deal()
        wait_for(lambda: client.get(f"/v1/tables/{idle.table_id}", headers=OPERATOR)
                 .json["status"] == "over")
        assert client.get(f"/v1/tables/{playing.table_id}", headers=OPERATOR).json["status"] == "playing"
        time.sleep(2)
        playing.play_hand()
        wait_for(lambda: hand_status(client, hand_id) == "settled")
        over = client.get(f"/v1/tables/{playing.table_id}", headers=OPERATOR).json
        assert over["status"] == "over" and over["seats"] == []
        for p in idle.players + playing.players:
            assert client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"] > 0
        total = sum(client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"]
                    for p in playing.players)
        assert total == 60


def test_workers_record_periodic_checkpoints(own):
    with app_on(own) as app:
        client = app.test_client()

        def ids() -> set[int]:
            r = client.get("/v1/audit/checkpoints", headers=OPERATOR)
            assert r.status_code == 200, r.json
            return {c["id"] for c in r.json["items"]}

        before = ids()
        with worker_process(own, BANCO_CHECKPOINT_EVERY_S="1"):
            wait_for(lambda: len(ids() - before) >= 2, timeout=60)


def test_a_turn_played_in_time_cancels_its_timeout_job(own, new_player):
    """Seed: ../shared/seeds/003_37d90c873e067319.txt (Cassino: players move in turn). Each turn
    schedules its timeout; the move that ends the turn in time cancels it, so no moot job is
    left to fire later."""
    from rq.job import Job
    from rq.registry import ScheduledJobRegistry

    from workers.queues import queue

    with app_on(own) as app:
        client = app.test_client()
        session = Session(client, "cassino", [new_player(f"C{i}", deposit=5) for i in range(2)])
        session.open({"variant": "classic"}, 1)
        session.deal()
        redis = app.extensions["banco.redis"]
        jobs = app.extensions["banco.jobs"]
        jobs.flush()  # sent now rather than after the batching delay
        scheduled = ScheduledJobRegistry(queue=queue(redis, own.queue_name))
        first = client.get(f"/v1/tables/{session.table_id}", headers=OPERATOR).json["version"]
        assert scheduled.get_job_ids() == [timeouts.job_id(session.table_id, first)]
        mover = next(p for p in session.players
                     if client.get(f"/v1/tables/{session.table_id}", headers=p.auth).json["legal_actions"])
        table = client.get(f"/v1/tables/{session.table_id}", headers=mover.auth).json
        r = client.post(f"/v1/tables/{session.table_id}/actions", json=table["legal_actions"][0],
                        headers={**mover.auth, "If-Match": f'"{first}"'})
        assert r.status_code == 200, r.json
        jobs.flush()
        assert scheduled.get_job_ids() == [timeouts.job_id(session.table_id, r.json["version"])]
        assert not redis.exists(Job.key_for(timeouts.job_id(session.table_id, first)))


@pytest.mark.parametrize("status", ["playing", "settling"])
def test_what_follows_a_move_is_queued_and_its_turns_job_cancelled_together(own, status):
    from datetime import UTC, datetime, timedelta

    from rq.job import Job
    from rq.registry import ScheduledJobRegistry

    from projections.tables import TableRow
    from workers.queues import connect, queue

    redis = connect(own.redis_url)
    q = queue(redis, own.queue_name)
    at = datetime.now(UTC) + timedelta(seconds=60)
    timeouts.schedule(redis, own.queue_name, "tb_follow", 4, at)
    table = TableRow(table_id="tb_follow", game="cassino", options={}, status=status, version=5,
                     hand_id="hd_follow", deadline=at if status == "playing" else None)
    timeouts.after(redis, own.queue_name, table, ended=4)
    scheduled = ScheduledJobRegistry(queue=q).get_job_ids()
    assert timeouts.job_id("tb_follow", 4) not in scheduled
    assert not redis.exists(Job.key_for(timeouts.job_id("tb_follow", 4)))
    if status == "playing":
        assert scheduled == [timeouts.job_id("tb_follow", 5)]
    else:
        assert q.job_ids == ["settle-hd_follow"]
    timeouts.cancel(redis, own.queue_name, "tb_follow", 5)
    q.delete(delete_jobs=True)


def test_a_table_whose_row_cannot_be_read_holds_up_no_other_deadline(own, new_player,
                                                                     lone_redis):
    """A table whose snapshot cannot be read, overdue before any other, is logged and left by
    each sweep: the next table's deadline still fires. The worker listens on a Redis of its
    own, where no timeout job was scheduled: only its sweeps can fire the deadline."""
    with app_on(own) as app:
        client = app.test_client()
        bad, good = (Session(client, "sette-e-mezzo", [new_player(f"{n}{i}", deposit=40)
                                                       for i in range(2)]) for n in ("B", "G"))
        for session in (bad, good):
            session.open({"turn_timeout_s": 1, "banker_timeout_s": 1}, 20)
            session.deal()
        with app.extensions["banco.pool"].connection() as c:
            state = c.execute("SELECT state FROM tables WHERE table_id = %s",
                              (bad.table_id,)).fetchone()[0]
            c.execute("UPDATE tables SET state = '\\x00'::bytea,"
                      " deadline = now() - interval '1 hour' WHERE table_id = %s", (bad.table_id,))
        try:
            with worker_process(own, REDIS_URL=lone_redis):
                wait_for(lambda: timed_out(app, good), timeout=30)
            assert not timed_out(app, bad)
        finally:
            with app.extensions["banco.pool"].connection() as c:
                c.execute("UPDATE tables SET state = %s WHERE table_id = %s",
                          (state, bad.table_id))


def test_a_turns_job_is_never_due_before_its_deadline(own):
    """RQ files a job under whole seconds: a deadline at .7 s was due 0.7 s early, the engine
    refused the timeout as `too_early`, and the turn waited for the sweeper."""
    from datetime import UTC, datetime, timedelta

    from rq.registry import ScheduledJobRegistry

    from workers.queues import connect, queue

    redis = connect(own.redis_url)
    q = queue(redis, own.queue_name)
    registry = ScheduledJobRegistry(queue=q)
    whole = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=60)
    for version, at in enumerate((whole + timedelta(microseconds=700_000), whole)):
        timeouts.schedule(redis, own.queue_name, "tb_early", version, at)
        due = registry.get_scheduled_time(timeouts.job_id("tb_early", version))
        assert at <= due < at + timedelta(seconds=1), (at, due)
    q.delete(delete_jobs=True)
    registry.remove(timeouts.job_id("tb_early", 0))
    registry.remove(timeouts.job_id("tb_early", 1))


def test_a_move_at_or_after_its_turns_deadline_is_refused_and_changes_nothing(own, new_player):
    """The deadline was enforced only when the timeout fired: a bet 0.3 s after it was taken,
    recorded after the deadline the log gives its turn. No worker runs here, so nothing fires."""
    with app_on(own) as app:
        client = app.test_client()
        session = Session(client, "sette-e-mezzo", [new_player(f"L{i}", deposit=50) for i in range(2)])
        session.open(FAST, 20)
        session.deal()
        view = next(v for v in (client.get(f"/v1/tables/{session.table_id}", headers=p.auth).json
                                for p in session.players) if v["legal_actions"])
        player = session.players[view["you"]]
        [deadline] = [e.data["deadline"] for e in events_of(app, session.table_id)
                      if e.type == "DeadlineSet"]
        time.sleep(max(0.0, deadline - time.time()) + 0.05)
        events = len(events_of(app, session.table_id))
        r = client.post(f"/v1/tables/{session.table_id}/actions",
                        json=session.payload(view["legal_actions"][0]),
                        headers={**player.auth, "If-Match": f'"{view["version"]}"'})
        assert (r.status_code, r.json["code"]) == (409, "turn_timed_out"), r.json
        assert r.headers["Content-Type"] == "application/problem+json"
        assert len(events_of(app, session.table_id)) == events
        after = client.get(f"/v1/tables/{session.table_id}", headers=player.auth).json
        assert after["version"] == view["version"] and after["legal_actions"]


def test_a_table_held_by_a_stuck_transaction_holds_up_no_other_deadline(own, new_player):
    """A transaction left open on one table's stream (a node hung, or cut off, in the middle of
    a move) stalled every deadline in the house: the worker's job for that table, and each
    sweep, which begins with the oldest deadline, waited on its lock for as long as it was held.
    The jobs now give up a lock after `JOB_SESSION`'s lock_timeout: the other table's deadline
    fires while the first is held, and the first's once it is released."""
    with app_on(own) as app:
        client = app.test_client()
        held, free = (Session(client, "sette-e-mezzo", [new_player(f"{n}{i}", deposit=40)
                                                        for i in range(2)]) for n in ("H", "F"))
        held.open({"turn_timeout_s": 1, "banker_timeout_s": 1}, 20)
        held.deal()
        with psycopg.connect(own.database_url, autocommit=True) as stuck, \
                worker_process(own):
            stuck.execute("BEGIN")
            stuck.execute("SELECT version FROM streams WHERE stream_id = %s FOR UPDATE",
                          (handlers.stream(held.table_id),))

            def waiting_on_it() -> bool:  # the worker has taken the held table's deadline
                # (Asked outside the stuck transaction, whose view of the activity is frozen.)
                with app.extensions["banco.pool"].connection() as c:
                    return bool(c.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        " AND wait_event_type = 'Lock'").fetchone()[0])

            wait_for(waiting_on_it, timeout=30, every=0.05)
            free.open({"turn_timeout_s": 1, "banker_timeout_s": 1}, 20)
            free.deal()
            wait_for(lambda: timed_out(app, free), timeout=20)
            assert not timed_out(app, held)
            stuck.execute("ROLLBACK")
            wait_for(lambda: timed_out(app, held), timeout=20)


def test_the_api_and_the_workers_sessions_give_up_locks_and_idle_transactions(own):
    """What the test above rests on, as PostgreSQL reads the sessions back: the workers', and
    the API's (whose requests answer 503 `locked` past theirs: tests/service/test_bad_input.py)."""
    with app_on(own) as app, app.extensions["banco.pool"].connection() as c:
        assert c.execute("SHOW lock_timeout").fetchone()[0] == "10s"
        assert c.execute("SHOW idle_in_transaction_session_timeout").fetchone()[0] == "1min"
    with jobs_on(own) as resources, resources.pool.connection() as c:
        assert c.execute("SHOW lock_timeout").fetchone()[0] == "2s"
        assert c.execute("SHOW idle_in_transaction_session_timeout").fetchone()[0] == "1min"
