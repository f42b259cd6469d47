"""The Redis connection and the queues Banco uses."""

from __future__ import annotations

import redis
from rq import Queue


def connect(url: str) -> redis.Redis:
    """A Redis client for `url` (redis://, rediss:// or unix://).

    Short timeouts: a Redis that is down must not hold an API request that does not need it.
    """
    return redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)


def queue(connection: redis.Redis, name: str = "banco") -> Queue:
    """The queue jobs are enqueued on and the worker listens to."""
    return Queue(name, connection=connection)
