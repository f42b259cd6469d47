"""Logs are JSON lines that carry the request id."""

from __future__ import annotations

import io
import logging

import orjson

from service.runtime import logs


def test_request_logs_are_json_with_the_request_id(client):
    logs.configure()
    stream = io.StringIO()
    logging.getLogger("banco").handlers[0].setStream(stream)  # type: ignore[attr-defined]
    client.get("/healthz", headers={"X-Request-ID": "log-test-1"})
    entries = [orjson.loads(line) for line in stream.getvalue().splitlines()]
    [entry] = [e for e in entries if e.get("request_id") == "log-test-1"]
    assert entry["path"] == "/healthz" and entry["status"] == 200 and entry["level"] == "INFO"


def test_no_secret_or_seed_reaches_the_logs(app, config, new_player, monkeypatch):
    """Tokens, the operator key and server seeds never appear in the logs of a whole hand."""
    from tests.service.conftest import OPERATOR_KEY
    from tests.service.play import Session
    from workers import settlement

    logs.configure("DEBUG")
    stream = io.StringIO()
    handler = logging.getLogger("banco").handlers[0]
    handler.setStream(stream)  # type: ignore[attr-defined]
    app.logger.handlers[:] = [handler]
    client = app.test_client()
    session = Session(client, "pirate-pairs", [new_player(f"L{i}", deposit=30) for i in range(2)])
    session.open({"stake": 1}, 10)
    hand_id = session.deal()
    session.play_hand()
    client.post(f"/v1/tables/{session.table_id}/actions", json={"type": "nope"},
                headers={**session.players[0].auth, "If-Match": '"1"'})
    monkeypatch.setenv("DATABASE_URL", config.database_url)
    settlement._pool.cache_clear()
    assert settlement.settle_hand(session.table_id, hand_id)
    settlement._pool().close()
    settlement._pool.cache_clear()
    seed = client.get(f"/v1/hands/{hand_id}", headers={"Authorization": f"Bearer {OPERATOR_KEY}"}
                      ).json["server_seed"]
    written = stream.getvalue()
    assert '"path": "/v1/tables' in written or '"path":"/v1/tables' in written
    for secret in (OPERATOR_KEY, seed, *(p.token for p in session.players)):
        assert secret and secret not in written
