"""A hand of Sette e mezzo played with tracing on, its settlement run by a worker in this
process, and every span printed as a JSON line: run by tests/service/test_traces.py in a
process of its own, since tracing, once on, instruments the whole process for good.

Reads DATABASE_URL, REDIS_URL and BANCO_QUEUE."""

from __future__ import annotations

import os
import sys

import orjson
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from service.runtime import tracing
from service.runtime.config import Config, WorkerConfig
from tests.service.conftest import OPERATOR_KEY, app_on, register
from tests.service.play import Session


def main() -> None:
    exporter = InMemorySpanExporter()
    assert tracing.configure("banco-test", exporter=exporter)
    config = Config(database_url=os.environ["DATABASE_URL"], redis_url=os.environ["REDIS_URL"],
                    operator_key=OPERATOR_KEY, queue_name=os.environ["BANCO_QUEUE"],
                    rate_limit="1000000/minute")
    with app_on(config) as app:
        client = app.test_client()
        players = [register(client, name, 500) for name in ("Ann", "Bob")]
        session = Session(client, "sette-e-mezzo", players)
        session.open({}, 50)
        hand_id = session.deal()
        session.play_hand()
        app.extensions["banco.jobs"].flush()  # the jobs batched for the next quarter second

    from workers import context
    from workers.queues import connect, queue
    from workers.worker import Worker

    with context.installed(WorkerConfig.of(config)):
        connection = connect(config.redis_url)
        Worker([queue(connection, config.queue_name)], connection=connection).work(
            burst=True, with_scheduler=False)
    for span in exporter.get_finished_spans():
        parent = span.parent.span_id if span.parent is not None else None
        sys.stdout.buffer.write(orjson.dumps({
            "name": span.name, "kind": span.kind.name,
            "trace": format(span.context.trace_id, "032x"),
            "id": format(span.context.span_id, "016x"),
            "parent": format(parent, "016x") if parent is not None else None,
            "attributes": {k: v for k, v in (span.attributes or {}).items()
                           if isinstance(v, (str, int, float, bool))},
        }) + b"\n")
    sys.stdout.buffer.write(orjson.dumps({"hand": hand_id}) + b"\n")


if __name__ == "__main__":
    main()
