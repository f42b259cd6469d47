"""The benchmarks' quick paths with tiny counts, so that they cannot rot: no timing is asserted."""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from bench import (
    append,
    db,
    export,
    feed,
    http,
    http_clients,
    http_cpu,
    http_history,
    http_service,
    http_streams,
    large_log,
    pages,
    peer,
    rebuild,
    snapshots,
    validate,
    wal,
)
from events.catalog import default_types
from events.model import NewEvent, canonical_json, chain_hash
from events.postgres import PostgresEventStore, make_pool
from games import registry
from projections.snapshots import decode

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def bench_url(database_url: str) -> Iterator[str]:
    """A database of the benchmark's own, made on the test server the way a run makes it."""
    with db.fresh_database(database_url, prefix="banco_bench_smoke") as url:
        yield url


def test_append_measures_store_and_ceiling(bench_url: str):
    results = append.run(bench_url, batches=(1, 10), writers=(1, 2), seconds=0.2, rounds=1)

    assert [(r.case.batch, r.case.writers) for r in results] == [(1, 1), (1, 2), (10, 1), (10, 2)]
    # An append whose writer a busy machine starts late may end after a 0.2 s trial: no
    # per-case rate (the writers fail the run on any error; the log below shows what they wrote).
    assert all(len(r.store) == len(r.ceiling) == 1 for r in results)
    assert sum(r.store[0] for r in results) > 0 and sum(r.ceiling[0] for r in results) > 0
    assert any(r.ratio > 0 for r in results)
    with psycopg.connect(bench_url) as conn:
        stored = conn.execute("SELECT count(*), count(DISTINCT stream_id) FROM events").fetchone()
        raw = conn.execute("SELECT count(*) FROM events_ceiling").fetchone()
    assert stored is not None and stored[0] > 0 and stored[1] > 1
    assert raw is not None and raw[0] > 0
    assert "| 10 | 2 |" in append.markdown(results)


def test_rebuild_replays_the_seeded_log(bench_url: str):
    result = rebuild.run(bench_url, events=2_000, rounds=1, wallets=50)

    assert result.events == 2_000
    assert result.rebuild[0] > 0 and result.ceiling[0] > 0 and result.one_backend[0] > 0
    assert result.checks == {"legs": 4_000, "accounts": 51, "sum": 0, "overdrawn": 0}
    assert result.met is None  # too small a log to judge the target
    assert "| 2,000 |" in rebuild.markdown(result)


def test_seeded_streams_carry_the_store_hash_chain(bench_url: str):
    with psycopg.connect(bench_url, autocommit=True) as conn:
        rebuild.seed(conn, 120, wallets=10)
    with make_pool(bench_url, max_size=1) as pool:
        store = PostgresEventStore(pool, default_types())
        stream = "bench-table:1"
        events = store.read_stream(stream)
        assert [e.version for e in events] == list(range(1, rebuild.STREAM_LENGTH + 1))
        head = b""
        for e in events:
            head = chain_hash(head, canonical_json(stream, NewEvent(e.type, e.data, e.metadata)))
            assert e.hash == head
        # The stream row holds the same head, so the store appends after it as after its own.
        more = NewEvent("TreasurePosted", {"from": "house:issued", "to": "wallet:w1", "amount": 1,
                                           "reason": "deposit", "table": None, "hand": None})
        [appended] = store.append(stream, [more], rebuild.STREAM_LENGTH)
        assert appended.hash == chain_hash(head, canonical_json(stream, more))


def test_large_log_measures_a_seeded_log_against_a_small_one(database_url: str, redis_url: str):
    result = large_log.run(database_url, events=2_000, hands=2, rounds=2, appends=20)

    small, large = result.logs["small"], result.logs["large"]
    assert large.events > 2_000 > small.events and result.seeded == 2_000
    for log in (small, large):
        assert len(log.hands) == 2
        assert len(log.appends) == len(log.replays) == len(log.checkpoints) == 2
        assert min(log.appends) > 0 and min(log.replays) > 0
        assert log.folded == [20, 20]  # each checkpoint folded in only the round's appends
    assert result.met is None  # too small a log to judge the target
    assert result.migration_seconds is not None and result.migration_seconds > 0
    assert "| large | " in large_log.markdown(result)


def test_large_log_seed_spreads_over_partitions_with_the_store_chain(bench_url: str):
    with psycopg.connect(bench_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE events ALTER COLUMN position RESTART WITH 999000")
        assert large_log.seed(conn, 2_000) == 2_000
        placed = conn.execute("SELECT tableoid::regclass::text, count(*) FROM events"
                              " GROUP BY 1 ORDER BY 1").fetchall()
    assert placed == [("events_p000000000000", 1_000), ("events_p000001000000", 1_000)]
    with make_pool(bench_url, max_size=1) as pool:
        events = PostgresEventStore(pool, default_types()).read_stream("bench-log:0")
    assert [e.type for e in events[:2]] == ["HandBegan", "TreasurePosted"]
    head = b""
    for e in events:
        head = chain_hash(head, canonical_json("bench-log:0", NewEvent(e.type, e.data, e.metadata)))
        assert e.hash == head


def test_export_measures_export_and_ceiling_in_fresh_processes(bench_url: str):
    results = export.run(bench_url, sizes=[300, 1_000], rounds=1)

    assert [r.rows for r in results] == [300, 1_000]
    for r in results:
        assert r.rate("export") > 0 and r.rate("ceiling") > 0
        assert 0 < r.rss("export") < 1000 and 0 < r.rss("ceiling") < 1000
    assert "| 1,000 |" in export.markdown(results)


def test_http_shows_the_rounds_range_of_actions_per_ceiling():
    """The median of the rounds' own ratios, with their range: one round whose ceiling ran slow
    must show as the noise it is, not pass for the tables' rate."""
    res = http.Result(http.Case("cassino", 4))
    res.tables.rates, res.ceiling.rates = [300.0, 400.0, 350.0], [1000.0, 1000.0, 700.0]
    assert http.spread(res) == "40% (30-50%)"
    res.tables.rates, res.ceiling.rates = [300.0], [1000.0]
    assert http.spread(res) == "30%"


def test_http_judges_each_game_against_the_minimal_move():
    """The rate targets are shares of the minimal move's rate, one per game, and the p99's is
    three times the minimal move's p99; the one-INSERT ceiling is reported, not judged."""
    cassino, sette = http.Result(http.Case("cassino", 1)), http.Result(http.Case("sette-e-mezzo", 1))
    for res in (cassino, sette):
        res.tables.rates, res.move.rates, res.ceiling.rates = [50.0], [100.0], [1000.0]
        res.tables.latencies, res.move.latencies = [0.030] * 10, [0.010] * 10
    assert cassino.met == (False, True) and sette.met == (True, True)
    assert http.spread(sette, "move") == "50%" and http.spread(sette) == "5%"
    sette.tables.latencies = [0.031] * 10
    assert sette.met == (True, False)


def test_a_client_sends_again_what_an_idle_connection_closed_under_it():
    """A keep-alive connection closed by the server as a request went out on it (gunicorn keeps
    one 2 s) ended the benchmark in `RemoteDisconnected`: the request goes again, once, on a
    new connection. A new connection's failure is not hidden."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"

    def serve() -> None:
        first, _ = listener.accept()
        first.recv(65536)
        first.sendall(answer)  # kept alive...
        first.recv(65536)
        first.close()  # ...and closed as the next request arrives, unanswered
        second, _ = listener.accept()
        second.recv(65536)
        second.sendall(answer)
        second.close()

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    client = http_clients.Client(port)
    try:
        assert client.call("GET", "/a", None)[0] == 200
        assert client.call("GET", "/b", None)[0] == 200
    finally:
        client.close()
        server.join(timeout=10)
        listener.close()
    closed = http_clients.Client(port)  # nothing listens there now
    with pytest.raises(ConnectionRefusedError):
        closed.call("GET", "/c", None)


def test_a_response_lost_on_a_new_connection_is_said_and_the_request_not_sent_again():
    """A new connection the server closed before it answered (once, under a loaded CI run) ended
    the benchmark in `RemoteDisconnected`. Sending the request again could deal twice: the
    client raises `ResponseLost`, having sent it once, and `follow` reads the table instead."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    received: list[bytes] = []

    def serve() -> None:
        conn, _ = listener.accept()
        received.append(conn.recv(65536))
        conn.close()  # unanswered
        listener.settimeout(1.0)
        with contextlib.suppress(TimeoutError):
            again, _ = listener.accept()  # a second sending would come here
            received.append(again.recv(65536))
            again.close()

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    client = http_clients.Client(port)
    try:
        with pytest.raises(http_clients.ResponseLost, match="POST /v1/tables/tb_1/hands"):
            client.call("POST", "/v1/tables/tb_1/hands", "token")
    finally:
        server.join(timeout=10)
        client.close()
        listener.close()
    assert len(received) == 1 and received[0].startswith(b"POST /v1/tables/tb_1/hands")


def test_http_delivery_is_timed_from_a_move_at_the_same_table_only():
    """A Cassino client opens a new table when one ends, whose versions start again from 1. A
    move of the old table that no stream brought (its player moved again at once) must not be
    taken for the new table's move of the same version: that counted a delivery of the time
    between the two, up to a second in the reported maximum."""
    acknowledged = http_clients.Acknowledged()
    acknowledged.moved("old", 7, 10.0)
    assert acknowledged.delivered("new", 7, 11.2) is None
    acknowledged.moved("new", 7, 11.0)
    assert acknowledged.delivered("new", 7, 11.003) == pytest.approx(0.003)
    assert acknowledged.delivered("new", 7, 11.5) is None  # counted once


def test_http_plays_hands_against_the_ceiling(bench_url: str, redis_url: str):
    """Both games at 1 and 2 tables under gunicorn with a worker, and a tiny history."""
    http_service.prepare(bench_url)
    with http_service.service(bench_url, redis_url) as svc:
        results = http.run_throughput(svc, ("sette-e-mezzo", "cassino"), (1, 2), seconds=1.0,
                                      rounds=1, mode="threads", warm=False)
        history = http_history.run_history(svc, bench_url, hands=3, young=1, rounds=1, per_round=1,
                                   warm=False)

    assert [(r.case.game, r.case.tables) for r in results] == [
        ("sette-e-mezzo", 1), ("cassino", 1), ("sette-e-mezzo", 2), ("cassino", 2)]
    # A trial this short may fall wholly on a hand waiting for its settlement, or, on a busy
    # machine, on one cold first request that ends after it: no per-case rate. That both tables'
    # callers made minimal moves is checked in the scratch log below.
    assert all(len(r.tables.rates) == len(r.move.rates) == len(r.ceiling.rates) == 1
               for r in results)
    assert all(sum(getattr(r, side).rates[0] for r in results) > 0
               for side in ("tables", "move", "ceiling"))
    assert any(r.tables.latencies for r in results)
    assert "| cassino | 2 |" in http.markdown(results)
    assert history.hands == {"young": 1, "old": 3, "twin": 1}
    assert history.events["old"] > history.events["young"]
    assert all(history.latencies[k] for k in http_history.LABELS) and history.ratio() > 0
    assert "| old | 3 |" in http_history.history_markdown(history)
    with psycopg.connect(bench_url) as conn:
        settled = conn.execute("SELECT count(*) FILTER (WHERE status = 'settled'), count(*)"
                               " FROM hands").fetchone()
        inserted = conn.execute("SELECT count(*) FROM bench_ceiling").fetchone()
        moved = conn.execute("SELECT count(*), count(DISTINCT stream_id) FROM bench_move_events"
                             ).fetchone()
    assert settled is not None and settled[0] >= settled[1] - 4  # at most one in play per table
    assert inserted is not None and inserted[0] > 0
    assert moved is not None and moved[0] > 0 and moved[0] % 2 == 0 and moved[1] == 2


def test_http_client_opens_a_new_connection_when_the_server_closed_its_idle_one(
        bench_url: str, redis_url: str):
    """A client that waits for its turn longer than gunicorn keeps a connection alive (2 s)
    sends its next move on a new connection, not on the closed one (`RemoteDisconnected`)."""
    with http_service.service(bench_url, redis_url, workers=1) as svc:
        client = http_clients.Client(svc.port)
        assert client.call("GET", "/healthz", None)[0] == 200
        idle = client.conn.sock
        assert idle is not None
        deadline = time.monotonic() + 30
        while not select.select([idle], [], [], 0.1)[0]:  # until the server closes it
            assert time.monotonic() < deadline, "the server kept the idle connection"
        assert client.call("GET", "/healthz", None)[0] == 200
        assert client.conn.sock is not idle
        client.close()


def test_streams_holds_followers_up_to_the_bound_and_plays_at_a_followed_table(
        bench_url: str, redis_url: str):
    """20 streams asked of 2 workers of 4 threads, each holding 6 streams: the rest are
    refused with a 503; then moves at a table unfollowed and followed by 3 streams."""
    http_service.prepare(bench_url)
    with http_service.service(bench_url, redis_url, threads=4, streams=6) as svc:
        watched = http_streams.run_watched(svc, (3,), seconds=0.3, rounds=1)
        held = http_streams.run_held(svc, 20)
    assert held.asked == held.held + held.refused == 20
    assert 0 < held.held <= 12
    assert watched.held == {0: 0, 3: 3} and set(watched.latencies) == {0, 3}
    assert "| 3 | 3 |" in http_streams.markdown(held, watched)


def test_pages_times_each_move_to_every_players_page_and_to_a_plain_stream(
        bench_url: str, redis_url: str):
    """Six moves at a table of four, each shown on the four players' pages in Chromium and
    told to a plain stream client: every (page, move) pair timed, none missed."""
    http_service.prepare(bench_url)
    with http_service.service(bench_url, redis_url, threads=8) as svc:
        spec = http_clients.tables_for(svc, http_clients.GAMES["sette-e-mezzo"], 1)[0]
        shown = pages.run(svc.port, spec, moves=6, interval=0.1)
    assert shown.missed == 0
    assert len(shown.next_mover) + len(shown.others) == 6 * 4 and len(shown.stream) == 6
    assert shown.next_mover and shown.others  # a deal or an action leaves someone to act
    assert all(d >= 0 for d in shown.next_mover + shown.others + shown.stream)


def test_http_cpu_counts_requests_by_route_and_streamed_chunks_as_made():
    counts = http_cpu.Counts()
    route = "POST /v1/tables/{id}/actions"

    def app(environ, start_response):
        start_response("200 OK", [])

        def body():
            yield b"a"
            sum(range(200_000))  # work done while the body is made, as a stream's render is
            yield b"b"

        return body()

    wrapped = http_cpu.counting(app, counts)
    for path in ("/v1/tables/tb_0123456789abcdef/actions", "/v1/tables/tb_fedcba9876543210/actions"):
        body = wrapped({"REQUEST_METHOD": "POST", "PATH_INFO": path}, lambda *a: None)
        called = counts.by_route[route][1]
        assert list(body) == [b"a", b"b"]
        assert counts.by_route[route][1] > called  # the chunks' CPU, counted as they were made
    assert list(counts.by_route) == [route] and counts.by_route[route][0] == 2


def test_http_cpu_asks_a_worker_for_its_counts_only_once_it_can_answer(tmp_path):
    """gunicorn resets SIGUSR2 to its default, which ends the process, in each worker it starts;
    `post_worker_init` sets the handler only once the app is loaded, and the service may answer
    through another worker before that. A worker still loading is asked once it has said it can
    answer, and lives on."""
    loading = subprocess.Popen(
        [sys.executable, "-c",
         "import signal, time, types\n"
         "time.sleep(1)  # loading the app, SIGUSR2 at its default\n"
         "from bench import http_cpu\n"
         "http_cpu.post_worker_init(types.SimpleNamespace(wsgi=lambda environ, start: []))\n"
         "while True: signal.pause()\n"],
        cwd=ROOT, env={**os.environ, http_cpu.DIR_ENV: str(tmp_path)})
    try:
        shot = http_cpu.snapshot(tmp_path, [loading.pid], {})
        assert shot.routes == {} and shot.threads, shot
        assert loading.poll() is None
    finally:
        loading.kill()
        loading.wait()


def test_http_cpu_splits_each_trial_into_its_parts(bench_url: str, redis_url: str):
    """gunicorn's workers report their requests' CPU on demand; each trial gets its parts."""
    http_service.prepare(bench_url)
    with http_service.service(bench_url, redis_url, cpu=True) as svc:
        # Warmed first, as the benchmark runs: a cold trial on a busy machine may spend its
        # half second opening the table's stream and complete no action, which has no parts.
        results = http.run_throughput(svc, ("cassino",), (1,), seconds=1.0, rounds=1,
                                      mode="threads", warm=True)

    [res] = results
    [tables], [moves], [ceiling] = res.tables.parts, res.move.parts, res.ceiling.parts
    assert set(tables) == set(moves) == set(ceiling) == set(http_cpu.PARTS)
    assert tables["the request"] > 0 and moves["the request"] > 0 and ceiling["the request"] > 0
    assert tables["streams"] > 0 and ceiling["streams"] == 0  # the ceiling's clients hold none
    if http_cpu.named_cpu(["postgres"]) > 0:  # a server on this machine, seen in /proc
        assert tables["PostgreSQL"] > 0 and ceiling["PostgreSQL"] > 0
    assert "| cassino | 1 | tables |" in http.cpu_markdown(results)
    assert "| cassino | 1 | move |" in http.cpu_markdown(results)


def test_validate_times_every_way_on_every_payload(bench_url: str):
    rows = validate.run(rounds=2, seconds=0.002)

    assert [r.label for r in rows] == [label for label, _, _ in validate.CASES]
    for r in rows:
        assert set(r.micros) == set(validate.WAYS)
        assert all(len(times) == 2 and min(times) > 0 for times in r.micros.values())
    assert "| hot mix (the first six, each once) |" in validate.markdown(rows)
    result = validate.run_appends(bench_url, rounds=1, seconds=0.05)
    assert all(len(rates) == 1 and rates[0] > 0 for rates in result.rates.values())
    assert "| registry |" in validate.appends_markdown(result)


def test_peer_runs_the_same_command_through_banco_and_the_eventsourcing_library(bench_url: str):
    # A trial of one second, not the appends' 0.2 s: a case's ratio needs a command of each side
    # to end within its trial, and on a busy machine (CI's six workers) a process the pool starts
    # late, whose command takes a tenth of a second or more, ended none of either in 0.2 s in
    # both cases (seen in a run of the whole suite).
    results = peer.run(bench_url, processes=(1, 2), seconds=1.0, rounds=1)

    assert [r.processes for r in results] == [1, 2]
    # As for appends, a command a busy machine starts late may end after its trial; what each
    # side writes is checked below.
    assert all(len(r.banco) == len(r.peer) == 1 for r in results)
    assert sum(r.banco[0] for r in results) > 0 and sum(r.peer[0] for r in results) > 0
    assert any(r.ratio > 0 for r in results)
    assert "| 2 |" in peer.markdown(results)
    # Five commands at each table of a side, in this process: what each side writes.
    banco, other = peer.BancoSide(bench_url), peer.PeerSide(bench_url)
    try:
        for turn in range(5 * peer.TABLES_PER_PROCESS):
            banco.command(turn)
            other.command(turn)
        library_moves = [other.app.repository.get(t).moves for t in other.tables]
    finally:
        banco.close()
        other.close()
    with psycopg.connect(bench_url) as conn:
        # Banco: every table's row is at its stream's version and holds as many moves as the
        # stream holds move events, a move and a deadline a command.
        rows = conn.execute(
            "SELECT t.table_id, t.version, s.version, t.state, (SELECT count(*) FROM events e"
            " WHERE e.stream_id = s.stream_id AND e.type = 'game.Moved') FROM tables t"
            " JOIN streams s ON s.stream_id = 'table-' || t.table_id").fetchall()
        # The library: a snapshot at every table's tenth event, the fifth command's first.
        snapshots = conn.execute("SELECT count(DISTINCT originator_id) FROM peertables_snapshots"
                                 " WHERE originator_version = 10").fetchone()
    assert all(table == stream and decode(peer.Count, state) == peer.Count(moves)
               for _, table, stream, state, moves in rows)
    mine = {table_id: (version, moves) for table_id, version, _, _, moves in rows
            if table_id in banco.tables}
    assert mine == {t: (11, 5) for t in banco.tables}
    assert library_moves == [5] * peer.TABLES_PER_PROCESS
    assert snapshots is not None and snapshots[0] >= peer.TABLES_PER_PROCESS
def test_feed_reads_the_whole_seeded_log_and_its_ceiling(bench_url: str):
    result = feed.run(bench_url, events=600, rounds=2)

    assert result.events == 600
    assert len(result.feed) == len(result.ceiling) == 2
    assert min(result.feed) > 0 and min(result.ceiling) > 0 and result.ratio > 0
    assert "| 600 |" in feed.markdown([result])
def test_wal_counts_a_hand_s_writes_on_a_private_server(redis_url: str):
    found = wal.measure(3, redis_url)
    # A hand of 4 at Sette e mezzo: a deal and at least one move for each of them.
    assert found["hands"] == 3 and found["writes"] >= 3 * 5
    assert found["wal_bytes"] > 0 and found["per_write"] == found["wal_bytes"] / found["writes"]
def test_webhooks_delivers_every_event_to_its_receiver(database_url: str, redis_url: str):
    from bench import webhooks

    rows = webhooks.run(database_url, redis_url, events=20, subscriptions=[2], workers=[])

    assert [(r.way, r.subscriptions, r.deliveries) for r in rows] == [("ceiling", 2, 40),
                                                                      ("job", 2, 40)]
    assert all(r.rate > 0 for r in rows)
    assert "| job | 2 | 40 |" in webhooks.markdown(rows)


def test_snapshots_times_the_codec_and_pickle_on_states_of_every_game():
    for engine in registry.current().values():
        found = snapshots.states(engine, hands=1, seed=1)
        assert len(found) > 1 and {type(s) for s in found} == {engine.state_type}
        times = snapshots.measure(found, rounds=2)
        assert {way: len(t) for way, t in times.items()} == {"codec": 2, "pickle": 2}
