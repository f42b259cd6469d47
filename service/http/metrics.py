"""`GET /metrics`: the service's Prometheus metrics, for the operator, and the request timing.

Whichever gunicorn process answers the scrape adds up the files every process (the worker's too,
on the same machine) writes to `PROMETHEUS_MULTIPROC_DIR` (see `service.runtime.metrics`); the
queue's numbers are read from Redis then (`workers.queue_metrics`).
"""

from __future__ import annotations

import time

from flask import Flask, Response, current_app, g, request
from flask.views import MethodView
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from service.http.auth import require
from service.http.blueprint import TEXT, Blueprint
from service.runtime import metrics
from workers.queue_metrics import QueueCollector
from workers.queues import served
from workers.webhook_metrics import WebhookCollector

blp = Blueprint("metrics", __name__, description="The service's metrics, for Prometheus.")

# The methods labelled by name; any other a client makes up is `other`, as any path no rule
# matches is `unmatched`: each label value is a series kept for good, so none is the client's.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def scrape() -> bytes:
    """Every metric in Prometheus's text format: of all processes when they share a folder."""
    registry = CollectorRegistry()
    config = current_app.config["BANCO"]
    if config.metrics_dir is not None:
        multiprocess.MultiProcessCollector(registry, str(config.metrics_dir))
        body = generate_latest(registry)
    else:
        body = generate_latest(REGISTRY)
    read = CollectorRegistry()
    read.register(QueueCollector(current_app.extensions["banco.redis"],
                                 *served(config.queue_name)))
    read.register(WebhookCollector(current_app.extensions["banco.pool"]))
    return body + generate_latest(read)


@blp.route("/metrics")
class Metrics(MethodView):
    @require("operator", scope="metrics:read")
    @blp.operation("getMetrics")
    @blp.response(200, TEXT, content_type="text/plain",
                  description="Prometheus's text format (version 0.0.4): request latencies by"
                  " route and status, actions, hands dealt and settled, settlement lag, deadline"
                  " lateness, the queue's jobs, the database pool and open streams")
    def get(self) -> Response:
        """The service's metrics, in Prometheus's text format"""
        return Response(scrape(), content_type=CONTENT_TYPE_PLAIN_0_0_4,
                        headers={"Cache-Control": "no-store"})


def _start() -> None:
    g.metrics_started = time.perf_counter()


def _done(response: Response) -> Response:
    started = g.get("metrics_started")
    if started is not None:
        # The URL rule, not the path: one series per route, whatever ids a client sends.
        route = request.url_rule.rule if request.url_rule is not None else "unmatched"
        method = request.method if request.method in METHODS else "other"
        metrics.labelled(metrics.REQUEST_SECONDS, method, route,
                         str(response.status_code)).observe(time.perf_counter() - started)
    return response


def init_app(app: Flask) -> None:
    """Time every request."""
    app.before_request(_start)
    app.after_request(_done)
