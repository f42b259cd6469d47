"""Traces across the API and the workers (service/runtime/tracing.py): a move's trace holds its
request, its statements to PostgreSQL and commands to Redis, the jobs it queued and their run in
a worker, linked by the context the job carried. Run in processes of their own: tracing, once
on, instruments its whole process."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any, ClassVar

import orjson
import pytest

from service.runtime import tracing
from service.runtime.config import Config
from service.streaming import relay
from tests.service.conftest import ROOT, banco_serve
from tests.service.test_fanout import open_streams, wait_until


def spans_of_a_hand(config: Config) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.service.traced_hand"], cwd=ROOT, capture_output=True,
        timeout=300, env={**os.environ, "DATABASE_URL": config.database_url,
                          "REDIS_URL": config.redis_url,
                          "BANCO_QUEUE": f"{config.queue_name}-traced"})
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    # The worker logs to stdout too: the spans are the JSON lines.
    return [orjson.loads(line) for line in done.stdout.splitlines() if line.startswith(b"{")]


def test_a_moves_trace_holds_its_statements_and_the_run_of_the_job_it_queued(config: Config):
    rows = spans_of_a_hand(config)
    spans = [r for r in rows if "name" in r]
    by_id = {s["id"]: s for s in spans}

    def children(span: dict[str, Any]) -> list[dict[str, Any]]:
        return [s for s in spans if s["parent"] == span["id"]]

    # The settlement's run, in the worker, continues the trace of the move that ended the hand.
    [run] = [s for s in spans if s["name"] == "job workers.settlement.settle_hand"]
    assert run["kind"] == "CONSUMER"
    queued = by_id[run["parent"]]
    assert (queued["name"], queued["kind"], queued["trace"]) == ("queue jobs", "PRODUCER",
                                                                  run["trace"])
    move = by_id[queued["parent"]]
    assert (move["name"], move["kind"]) == ("POST /v1/tables/<table_id>/actions", "SERVER")
    assert move["parent"] is None and move["trace"] == run["trace"]
    # The move's own round trips: its statements to PostgreSQL, its rate limit in Redis.
    systems = [s["attributes"].get("db.system") or s["attributes"].get("db.system.name")
               for s in children(move)]
    assert systems.count("postgresql") >= 3 and "redis" in systems, children(move)
    assert [s["name"] for s in children(move) if s["kind"] == "CLIENT"][-1] == "COMMIT"
    # And the job's: it read and settled the hand in PostgreSQL, and told RQ in Redis.
    run_systems = {s["attributes"].get("db.system") or s["attributes"].get("db.system.name")
                   for s in children(run)}
    assert run_systems == {"postgresql", "redis"}
    assert "COMMIT" in [s["name"] for s in children(run)]
    # Every request of the hand is a trace of its own, and every statement belongs to one.
    requests = [s for s in spans if s["kind"] == "SERVER"]
    assert len({s["trace"] for s in requests}) == len(requests) > 10
    assert all(s["parent"] is None for s in requests)


class Collector(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver that keeps what it was sent."""

    received: ClassVar[list[tuple[str, str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, self.headers["Content-Type"], body))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    Collector.received = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def exported() -> list[dict[str, Any]]:
    """Every span the collector was sent, with the name of the service that sent it."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    spans = []
    for path, content_type, body in Collector.received:
        assert (path, content_type) == ("/v1/traces", "application/x-protobuf")
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource in request.resource_spans:
            service = next(a.value.string_value for a in resource.resource.attributes
                           if a.key == "service.name")
            for scope in resource.scope_spans:
                for span in scope.spans:
                    spans.append({"service": service, "name": span.name,
                                  "trace": span.trace_id.hex(), "id": span.span_id.hex(),
                                  "parent": span.parent_span_id.hex() or None,
                                  "attributes": {a.key: a.value.string_value
                                                 for a in span.attributes}})
    return spans


def call(port: int, method: str, path: str, token: str, body: Any = None,
         **headers: str) -> Any:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", method=method,
        data=orjson.dumps(body) if body is not None else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 **headers})
    with urllib.request.urlopen(request, timeout=30) as r:
        return orjson.loads(r.read())


def waited_for_told(seconds: float) -> bool:
    """Whether a streamer's "streams told" span was exported within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(s["name"] == "streams told" for s in exported()):
            return True
        time.sleep(0.2)
    return False


def move(port: int, table_id: str, players: list[tuple[str, str]]) -> None:
    """The first legal action of whichever player has one, with the table's version."""
    for _, token in players:
        table = call(port, "GET", f"/v1/tables/{table_id}", token)
        if table["legal_actions"]:
            action = table["legal_actions"][0]
            body = {"type": action["type"], **({"amount": action["min"]} if "min" in action else {})}
            call(port, "POST", f"/v1/tables/{table_id}/actions", token, body,
                 **{"If-Match": f'"{table["version"]}"'})
            return


def test_spans_go_by_otlp_where_configured_and_a_deal_reaches_the_streamer_in_its_trace(
        config: Config, collector: str):
    assert tracing.configure("banco-test") is False  # this process has no endpoint set
    assert not tracing.enabled()
    key = config.operator_key
    with banco_serve(config, OTEL_EXPORTER_OTLP_ENDPOINT=collector,
                     OTEL_BSP_SCHEDULE_DELAY="100") as port:
        players = []
        for name in ("Ann", "Bob"):
            made = call(port, "POST", "/v1/players", key, {"name": name})
            players.append((made["player"]["id"], made["token"]))
            call(port, "POST", f"/v1/players/{players[-1][0]}/deposits", key,
                 {"amount": 100, "reason": "seed"})
        table = call(port, "POST", "/v1/tables", key, {"game": "sette-e-mezzo", "options": {}})
        for _, token in players:
            call(port, "POST", f"/v1/tables/{table['id']}/seats", token, {"buy_in": 50})
        # Bob follows the table over a stream, which the API hands to its streamer; opened, as
        # a browser's EventSource opens it, with a stream ticket in its query.
        ticket = call(port, "POST", "/v1/stream-tickets", players[1][1],
                      {"stream": "table", "table_id": table["id"]})["ticket"]
        stream = urllib.request.urlopen(urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/tables/{table['id']}/stream?timeout=20&ticket={ticket}"),
            timeout=30)
        try:
            assert stream.readline()  # open: its first line came
            # Handed over once the streamer counts it: a table offered before the streamer
            # follows it is dropped, and then read again. The deal may go to the other worker,
            # which offers its tables to the streamers it found when it last listed the node's
            # folder, and lists it again at its next offer `LOOK_S` after (none is made while
            # this waits): a streamer started since is known to it then.
            wait_until(lambda: open_streams(f"http://127.0.0.1:{port}") == 1, timeout=60)
            time.sleep(relay.LOOK_S)
            call(port, "POST", f"/v1/tables/{table['id']}/hands", key)
            # A table the streamer is offered before it follows the table is dropped, and read
            # again on the change's notice, outside any trace: then the next move is handed over.
            for _ in range(6):
                if waited_for_told(15):
                    break
                move(port, table["id"], players)
        finally:
            stream.close()
    spans = exported()
    [deal] = [s for s in spans if s["name"] == "POST /v1/tables/<table_id>/hands"]
    assert deal["service"] == "banco-api" and deal["parent"] is None
    # The streamer, a process of its own, took the table a write handed it (the deal's, or a
    # move's after it) in that write's trace, as the child of its request's span.
    writes = {(s["trace"], s["id"]) for s in spans if s["service"] == "banco-api"
              and s["name"] in ("POST /v1/tables/<table_id>/hands",
                                "POST /v1/tables/<table_id>/actions")}
    told = [s for s in spans if s["name"] == "streams told"]
    assert told and all(s["service"] == "banco-streamer" and (s["trace"], s["parent"]) in writes
                        for s in told), told
    assert {"BEGIN", "COMMIT"} <= {s["name"] for s in spans if s["parent"] == deal["id"]}
    # The ticket, a credential for a minute, stays out of the traces as out of the logs: no
    # query string in any span.
    [opened] = [s for s in spans if s["name"] == "GET /v1/tables/<table_id>/stream"]
    assert opened["attributes"]["http.target"] == f"/v1/tables/{table['id']}/stream"
    assert not [s for s in spans if any(ticket in v for v in s["attributes"].values())]
