"""Traces with OpenTelemetry, across the API and the workers: off unless configured.

Set `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and each API
process and worker exports its spans there by OTLP over HTTP, named by `OTEL_SERVICE_NAME`
(`banco-api`, `banco-worker` by default); the SDK's other `OTEL_*` settings (headers, sampler)
apply. A move's trace then holds its request (Flask's instrumentation), each statement it sent
to PostgreSQL (psycopg's, on every connection of the process's pools), its Redis commands, the
jobs it queued, and their runs in a worker: the jobs carry the context of the span that queued
them (`queued`), and the worker's run of each continues it (`job_span`). Off, nothing is
instrumented and these functions cost one test of a flag.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from events import postgres
from service.runtime import config

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter

_on = False


def enabled() -> bool:
    return _on


def configure(service_name: str, exporter: SpanExporter | None = None) -> bool:
    """Turn tracing on for this process, once, if an OTLP endpoint is set or an `exporter` is
    given (the tests' in-memory one, exported as each span ends); whether it is on."""
    global _on
    if _on:
        return True
    if exporter is None and config.otlp_endpoint() is None:
        return False
    from opentelemetry import trace
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create(
        {"service.name": config.otlp_service_name(service_name)}))
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        # Batched, from a thread of its own: a request never waits for the collector.
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    RedisInstrumentor().instrument()
    # On each connection's cursors, not by wrapping `psycopg.connect`: the pools keep their
    # connections as they are, pipelines included.
    postgres.ON_CONNECT.append(PsycopgInstrumentor.instrument_connection)
    _on = True
    return True


def queued(what: str) -> dict[str, str] | None:
    """A span, ended at once, that says the current one queued `what`; its context, for the job
    to carry. None when tracing is off."""
    if not _on:
        return None
    from opentelemetry import propagate, trace

    tracer = trace.get_tracer("banco.jobs")
    with tracer.start_as_current_span(f"queue {what}", kind=trace.SpanKind.PRODUCER):
        carrier: dict[str, str] = {}
        propagate.inject(carrier)
    return carrier or None


@contextmanager
def job_span(name: str, carried: dict[str, str] | None) -> Iterator[None]:
    """A job's run, as a span that continues the context its job carried (if any)."""
    if not _on:
        yield
        return
    from opentelemetry import propagate, trace

    tracer = trace.get_tracer("banco.jobs")
    with tracer.start_as_current_span(name, context=propagate.extract(carried or {}),
                                      kind=trace.SpanKind.CONSUMER):
        yield


def trace_id() -> str | None:
    """The current trace's id, in hex, for the request's log line; None when off or none."""
    if not _on:
        return None
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None


def traceparent() -> bytes:
    """The current span's context as a W3C `traceparent` value, for a table handed to another
    process (`service.streaming.relay`); `-` when tracing is off or no span is current."""
    if not _on:
        return b"-"
    from opentelemetry import propagate

    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier.get("traceparent", "-").encode()


def mark(name: str, parent: bytes, attributes: dict[str, str | int]) -> None:
    """A span of no length, now, in the trace `parent` (a `traceparent` value) names: where a
    process took over what another began. Nothing when tracing is off or `parent` is `-`."""
    if not _on or parent == b"-":
        return
    from opentelemetry import propagate, trace

    context = propagate.extract({"traceparent": parent.decode()})
    tracer = trace.get_tracer("banco.streams")
    tracer.start_span(name, context=context, kind=trace.SpanKind.CONSUMER,
                      attributes=attributes).end()
