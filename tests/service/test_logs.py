"""Logs are JSON lines that carry the request id."""

from __future__ import annotations

import io
import logging

import orjson

from service import logs


def test_request_logs_are_json_with_the_request_id(client):
    logs.configure()
    stream = io.StringIO()
    logging.getLogger("banco").handlers[0].setStream(stream)  # type: ignore[attr-defined]
    client.get("/healthz", headers={"X-Request-ID": "log-test-1"})
    entries = [orjson.loads(line) for line in stream.getvalue().splitlines()]
    [entry] = [e for e in entries if e.get("request_id") == "log-test-1"]
    assert entry["path"] == "/healthz" and entry["status"] == 200 and entry["level"] == "INFO"
