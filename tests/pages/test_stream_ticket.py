"""A real EventSource, on a page of an origin the operator allows (`BANCO_CORS_ORIGINS`), follows
a table's stream with a stream ticket: no token in its URL, and its own reconnections, with
`Last-Event-ID`, go on where it stood."""

from __future__ import annotations

import os
import secrets
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

from events.catalog import PAYLOADS
from games.cassino import events as cassino_events
from service.runtime.config import Config
from tests.pages.conftest import Api, Served, until
from tests.service.conftest import banco_serve
from tests.test_cli import free_port

# Every type a Cassino table's stream may send: an EventSource hears only the types it listens to.
TYPES = sorted({*PAYLOADS, *(v for k, v in vars(cassino_events).items()
                             if k.isupper() and isinstance(v, str))})

PAGE = """<!doctype html><meta charset="utf-8"><title>A table, followed</title>
<script>
window.received = []; window.opens = 0;
window.follow = async (api, token, table, types) => {
  const asked = await fetch(`${api}/v1/stream-tickets`, {method: "POST",
    headers: {Authorization: `Bearer ${token}`, "Content-Type": "application/json"},
    body: JSON.stringify({stream: "table", table_id: table})});
  const ticket = await asked.json();
  // Each stream lasts a second: the EventSource reconnects by itself, with Last-Event-ID.
  window.source = new EventSource(api + ticket.url + "&timeout=1");
  window.source.onopen = () => { window.opens += 1; };
  for (const type of types) {
    window.source.addEventListener(type, (e) => window.received.push(
      [Number(e.lastEventId), e.type, JSON.parse(e.data)]));
  }
  return ticket.url;
};
</script>"""


@contextmanager
def page_origin() -> Iterator[str]:
    """A web server of another origin than Banco's serving `PAGE`, on this machine (Chromium lets
    a page reach the loopback only from the loopback): its origin."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _stream(url: str, token: str) -> list[list[Any]]:
    """The whole stream as the token reads it: [id, type, data] of each event."""
    request = urllib.request.Request(url + "?timeout=0.5", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        text = r.read().decode()
    sent = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if "id" in fields:
            sent.append([int(fields["id"]), fields["event"], orjson.loads(fields["data"])])
    return sent


def _move(api: Api, table_id: str, players: list[Any]) -> None:
    """The first action offered, taken by whichever player has one."""
    for p in players:
        table = api.get(f"/v1/tables/{table_id}", token=p.token)
        if table["legal_actions"]:
            api.post(f"/v1/tables/{table_id}/actions", table["legal_actions"][0], token=p.token,
                     headers={"If-Match": f'"{table["version"]}"'})
            return
    raise AssertionError("nobody may move")


def test_an_eventsource_of_an_allowed_origin_follows_a_stream_with_a_ticket(
        browser: Any, pages_database_url: str, redis_url: str):
    config = Config(database_url=pages_database_url, redis_url=redis_url,
                    operator_key=secrets.token_urlsafe(24))
    queue = f"banco-tickets-{os.getpid()}"
    with page_origin() as origin, banco_serve(
            config, "--workers", "1", BANCO_CORS_ORIGINS=origin, BANCO_QUEUE=queue,
            BANCO_RATE_LIMIT="100000/minute") as port:
        base = f"http://127.0.0.1:{port}"
        api = Api(Served(base, config.operator_key, queue, redis_url))
        players = [api.new_player("Ann", deposit=10), api.new_player("Bob", deposit=10)]
        # Turns far longer than the test: the pages' worker sweeps this database for deadlines,
        # and a timeout would add events while the page and the token are compared.
        table_id = api.post("/v1/tables", {"game": "cassino", "options": {
            "variant": "classic", "turn_timeout_s": 3600}})["id"]
        for p in players:
            api.post(f"/v1/tables/{table_id}/seats", {"buy_in": 1}, token=p.token)
        api.post(f"/v1/tables/{table_id}/hands")
        ann = players[0]

        context = browser.new_context()
        page = context.new_page()
        try:
            page.goto(f"{origin}/")
            url = page.evaluate("([api, token, table, types]) => follow(api, token, table, types)",
                                [base, ann.token, table_id, TYPES])
            assert url.startswith(f"/v1/tables/{table_id}/stream?ticket=bst_")
            assert ann.token not in url
            dealt = _stream(f"{base}/v1/tables/{table_id}/stream", ann.token)
            until(page, "(n) => window.received.length >= n", len(dealt))
            # Once its first stream has ended and it has reconnected, the table moves on.
            until(page, "() => window.opens >= 2")
            for _ in range(2):
                _move(api, table_id, players)
            everything = _stream(f"{base}/v1/tables/{table_id}/stream", ann.token)
            assert len(everything) > len(dealt)
            until(page, "(n) => window.received.length >= n", len(everything))
            # Every event once, in order, across its reconnections, and each as the token sees it.
            assert page.evaluate("() => window.received") == everything
            # Cards are in it: hers, and none she may not see (the token's view, above).
            assert any(kind == "CardsDealt" and data["data"].get("cards")
                       for _, kind, data in everything)
        finally:
            page.evaluate("() => window.source && window.source.close()")
            context.close()
