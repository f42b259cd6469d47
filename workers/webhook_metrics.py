"""Each webhook subscription as Prometheus metrics, read from PostgreSQL at each scrape: how far
behind the log it is, its failures in a row, and whether it is paused, so that an operator can
alert on a subscription that stopped or lags."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from psycopg_pool import ConnectionPool, PoolTimeout

# The log's head position once, each subscription against it.
SUBSCRIPTIONS = """
SELECT s.subscription_id, greatest(h.head - s.cursor_position, 0), s.failures,
       s.status = 'paused'
FROM webhook_subscriptions s, (SELECT coalesce(max(position), 0) AS head FROM events) h
ORDER BY s.subscription_id
"""


class WebhookCollector(Collector):
    """`banco_webhook_lag_events{subscription}`, `banco_webhook_failures{subscription}` and
    `banco_webhook_paused{subscription}`."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool

    def collect(self) -> Iterator[GaugeMetricFamily]:
        lag = GaugeMetricFamily(
            "banco_webhook_lag_events", "Events recorded in the log after the last one the"
            " subscription sent or skipped (of every type, asked for or not)",
            labels=["subscription"])
        failures = GaugeMetricFamily("banco_webhook_failures",
                                     "Failed delivery attempts in a row", labels=["subscription"])
        paused = GaugeMetricFamily("banco_webhook_paused", "1 while the subscription is paused",
                                   labels=["subscription"])
        try:
            with self.pool.connection(timeout=2) as conn:
                rows = conn.execute(SUBSCRIPTIONS).fetchall()
        except (psycopg.OperationalError, PoolTimeout):
            return  # the database away: the rest of the scrape still answers
        for subscription_id, behind, failed, is_paused in rows:
            lag.add_metric([subscription_id], behind)
            failures.add_metric([subscription_id], failed)
            paused.add_metric([subscription_id], 1 if is_paused else 0)
        yield from (lag, failures, paused)
