"""gunicorn's gthread worker, answering what gunicorn refuses itself in problem+json.

gunicorn reads the request line and headers before the app sees anything, and refuses some
requests there: 400 for a control character in a header, 414 for a request line over
`--limit-request-line` (4094 bytes), 431 for more than `--limit-request-fields` headers (100)
or one over `--limit-request-field_size` (8190 bytes). Its `handle_error` picks the status,
logs, and writes the answer with `gunicorn.util.write_error`, an HTML page: this worker
replaces that writer in its own process, so those answers are problem+json like every other.
"""

from __future__ import annotations

import resource
import socket

import orjson
from gunicorn import util
from gunicorn.workers.gthread import ThreadWorker

from service.http.problems import PROBLEM, document


def write_problem(sock: socket.socket, status: int, reason: str, message: str) -> None:
    body = orjson.dumps(document(status, reason, message or reason))
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: {PROBLEM}\r\n"
            f"Content-Length: {len(body)}\r\nX-Content-Type-Options: nosniff\r\n"
            "Cache-Control: no-store\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)


class ProblemWorker(ThreadWorker):
    """`--worker-class service.http.gunicorn_worker.ProblemWorker`."""

    def init_process(self) -> None:
        util.write_error = write_problem  # read at each call by gunicorn's handle_error
        # Every open stream is a socket: the common soft limit of 1,024 files would refuse
        # connections long before the threads run out.
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = self.cfg.worker_connections + 256
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (
                wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard))
        super().init_process()
