"""The Redis connection and the queues Banco uses."""

from __future__ import annotations

from typing import Any

import redis
from redis.exceptions import ConnectionError, ReadOnlyError, ResponseError, TimeoutError
from redis.sentinel import Sentinel, SentinelManagedConnection
from rq import Queue

from service.runtime.redis_url import is_sentinel, parse_sentinel

# What Redis being away raises: the workers wait it out (workers/worker.py), and the scheduler's
# process ends on it quietly (workers/scheduler.py).
REDIS_AWAY = (ConnectionError, TimeoutError)

TIMEOUTS = {"socket_connect_timeout": 2, "socket_timeout": 5}


class SentinelConnection(SentinelManagedConnection):
    """A connection to the primary Sentinel names that lets go of a primary turned replica
    whatever it was doing. redis-py drops the connection on a command's READONLY, but a Lua
    script's (the rate limits', RQ's) comes back as a plain error, and so does a blocking wait
    (the worker's for its next job) that the change of role cuts short: the connection would stay
    on the old primary, every write refused, for as long as the process lives."""

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().read_response(*args, **kwargs)
        except ResponseError as e:
            message = str(e)
            if isinstance(e, ReadOnlyError) or not (
                    "-READONLY" in message or message.startswith("UNBLOCKED")):
                raise
            self.disconnect()
            # A connection error: redis-py's retries, and Banco's waits for Redis, take it.
            raise ConnectionError("the Redis primary became a replica; asking Sentinel again") from e


def connect(url: str) -> redis.Redis:
    """A Redis client for `url` (redis://, rediss://, unix:// or redis+sentinel://).

    Short timeouts: a Redis that is down must not hold an API request that does not need it.
    Through Sentinel, the client asks the sentinels for the primary whenever it connects, so
    after a failover its next connection reaches the new primary.
    """
    if not is_sentinel(url):
        return redis.Redis.from_url(url, **TIMEOUTS)
    found = parse_sentinel(url)
    auth = {"username": found.username, "password": found.password}
    sentinel = Sentinel(list(found.sentinels), sentinel_kwargs={**auth, **TIMEOUTS},
                        connection_class=SentinelConnection, **TIMEOUTS)
    client: redis.Redis = sentinel.master_for(found.service, db=found.db, **auth)
    return client


def queue(connection: redis.Redis, name: str = "banco") -> Queue:
    """The queue jobs are enqueued on and the worker listens to."""
    return Queue(name, connection=connection)


def webhook_lane(queue_name: str) -> str:
    """The queue of the webhook deliveries beside `queue_name`: a lane of their own, worked by
    threads or processes of their own (`workers.worker`), so that a receiver that never answers
    holds up no settlement and no deadline."""
    return f"{queue_name}-webhooks"


def served(queue_name: str) -> tuple[str, ...]:
    """Every queue the service runs beside `queue_name`, its own first: the queue and its
    webhooks' lane. The one list of them that `GET /metrics`, `/readyz`, `banco jobs` and
    `GET /v1/jobs` report, so that none leaves a queue out."""
    return (queue_name, webhook_lane(queue_name))
