"""A receiver of OTLP over HTTP that reads what it is sent and keeps only counts: where
`python -m bench http --traces` has the service export its spans, so that the run pays for
making and sending them, as a service with a collector would."""

from __future__ import annotations

import http.server
import threading
from typing import Any


class _Sink(http.server.BaseHTTPRequestHandler):
    requests = 0
    bytes = 0

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(size)
        type(self).requests += 1
        type(self).bytes += size
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: Any) -> None:
        pass


def start() -> tuple[str, type[_Sink]]:
    """The sink's URL, for OTEL_EXPORTER_OTLP_ENDPOINT, and its counts; it serves until the
    process ends."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=server.serve_forever, name="otlp-sink", daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", _Sink
