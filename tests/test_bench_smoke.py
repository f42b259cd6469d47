"""The benchmarks' quick paths with tiny counts, so that they cannot rot: no timing is asserted."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from bench import (
    append,
    db,
    export,
    http,
    http_cpu,
    http_history,
    http_service,
    http_streams,
    rebuild,
    validate,
)
from events.catalog import default_types
from events.model import NewEvent, canonical_json, chain_hash
from events.postgres import PostgresEventStore, make_pool


@pytest.fixture
def bench_url(database_url: str) -> Iterator[str]:
    """A database of the benchmark's own, made on the test server the way a run makes it."""
    with db.fresh_database(database_url, prefix="banco_bench_smoke") as url:
        yield url


def test_append_measures_store_and_ceiling(bench_url: str):
    results = append.run(bench_url, batches=(1, 10), writers=(1, 2), seconds=0.2, rounds=1)

    assert [(r.case.batch, r.case.writers) for r in results] == [(1, 1), (1, 2), (10, 1), (10, 2)]
    for r in results:
        assert len(r.store) == len(r.ceiling) == 1
        assert r.store[0] > 0 and r.ceiling[0] > 0
        assert r.ratio > 0
    with psycopg.connect(bench_url) as conn:
        stored = conn.execute("SELECT count(*), count(DISTINCT stream_id) FROM events").fetchone()
        raw = conn.execute("SELECT count(*) FROM events_ceiling").fetchone()
    assert stored is not None and stored[0] > 0 and stored[1] > 1
    assert raw is not None and raw[0] > 0
    assert "| 10 | 2 |" in append.markdown(results)


def test_rebuild_replays_the_seeded_log(bench_url: str):
    result = rebuild.run(bench_url, events=2_000, rounds=1, wallets=50)

    assert result.events == 2_000
    assert result.rebuild[0] > 0 and result.ceiling[0] > 0
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


def test_http_plays_hands_against_the_ceiling(bench_url: str, redis_url: str):
    """Both games at 1 and 2 tables under gunicorn with a worker, and a tiny history."""
    http_service.prepare(bench_url)
    with http_service.service(bench_url, redis_url) as svc:
        results = http.run_throughput(svc, ("sette-e-mezzo", "cassino"), (1, 2), seconds=0.2,
                                      rounds=1, mode="threads", warm=False)
        history = http_history.run_history(svc, bench_url, hands=3, young=1, rounds=1, per_round=1,
                                   warm=False)

    assert [(r.case.game, r.case.tables) for r in results] == [
        ("sette-e-mezzo", 1), ("cassino", 1), ("sette-e-mezzo", 2), ("cassino", 2)]
    # A trial this short may fall wholly on a hand waiting for its settlement: no per-case rate.
    assert all(len(r.tables.rates) == len(r.ceiling.rates) == 1 for r in results)
    assert sum(r.tables.rates[0] for r in results) > 0 and sum(r.ceiling.rates[0] for r in results) > 0
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
    assert settled is not None and settled[0] >= settled[1] - 4  # at most one in play per table
    assert inserted is not None and inserted[0] > 0


def test_streams_holds_followers_up_to_the_bound_and_plays_at_a_followed_table(
        bench_url: str, redis_url: str):
    """20 streams asked of 2 workers of 8 threads, each holding 6 (three quarters): the rest are
    refused with a 503; then moves at a table unfollowed and followed by 3 streams."""
    http_service.prepare(bench_url)
    with http_service.service(bench_url, redis_url, threads=8) as svc:
        # Followers whose client left hold their thread until the next keep-alive finds it gone:
        # held last, so that the watched table's followers find a free thread.
        watched = http_streams.run_watched(svc, (3,), seconds=0.3, rounds=1)
        held = http_streams.run_held(svc, 20)
    assert held.asked == held.held + held.refused == 20
    assert 0 < held.held <= 12
    assert watched.held == {0: 0, 3: 3} and set(watched.latencies) == {0, 3}
    assert "| 3 | 3 |" in http_streams.markdown(held, watched)


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


def test_http_cpu_splits_each_trial_into_its_parts(bench_url: str, redis_url: str):
    """gunicorn's workers report their requests' CPU on demand; each trial gets its parts."""
    http_service.prepare(bench_url)
    with http_service.service(bench_url, redis_url, cpu=True) as svc:
        results = http.run_throughput(svc, ("cassino",), (1,), seconds=0.5, rounds=1,
                                      mode="threads", warm=False)

    [res] = results
    [tables], [ceiling] = res.tables.parts, res.ceiling.parts
    assert set(tables) == set(ceiling) == set(http_cpu.PARTS)
    assert tables["the request"] > 0 and ceiling["the request"] > 0
    assert tables["streams"] > 0 and ceiling["streams"] == 0  # the ceiling's clients hold none
    if http_cpu.named_cpu(["postgres"]) > 0:  # a server on this machine, seen in /proc
        assert tables["PostgreSQL"] > 0 and ceiling["PostgreSQL"] > 0
    assert "| cassino | 1 | tables |" in http.cpu_markdown(results)


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


def test_webhooks_delivers_every_event_to_its_receiver(database_url: str, redis_url: str):
    from bench import webhooks

    rows = webhooks.run(database_url, redis_url, events=20, subscriptions=[2], workers=[])

    assert [(r.way, r.subscriptions, r.deliveries) for r in rows] == [("ceiling", 2, 40),
                                                                      ("job", 2, 40)]
    assert all(r.rate > 0 for r in rows)
    assert "| job | 2 | 40 |" in webhooks.markdown(rows)
