"""A gunicorn worker for the benchmarks' `--in-thread` runs: Banco's own, without the hand-over,
so that every stream is served from its request's thread (as it is behind TLS in gunicorn or
under another server) and no streamer starts. Delivery measured this way is the in-thread path
the handed-over one is compared with."""

from __future__ import annotations

from gunicorn.workers.gthread import ThreadWorker

from service.http.gunicorn_worker import ProblemWorker


class InThreadWorker(ProblemWorker):
    """`--worker-class bench.in_thread.InThreadWorker`."""

    def load_wsgi(self) -> None:
        ThreadWorker.load_wsgi(self)  # no `HAND_OFF` offered, no relay started
