"""Configuration from the environment, checked at start-up so a bad value fails fast."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass

from service.runtime.redis_url import RedisUrlError, is_sentinel, parse_sentinel


class ConfigError(Exception):
    """A setting is missing or malformed."""


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
    return value


def _rate(value: str) -> str:
    from limits import parse

    try:
        parse(value)
    except ValueError:
        raise ConfigError(f"BANCO_RATE_LIMIT must read like '1200/minute', got {value!r}") from None
    return value


def _redis_url(value: str) -> str:
    if is_sentinel(value):
        try:
            parse_sentinel(value)
        except RedisUrlError as e:
            raise ConfigError(f"REDIS_URL: {e}") from None
    return value


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "")
    if raw not in ("", "0", "1"):
        raise ConfigError(f"{name} must be 0 or 1, got {raw!r}")
    return raw == "1"


def idempotency_retention_s(env: Mapping[str, str] | None = None) -> int:
    """How long an Idempotency-Key's record holds: read by the API and by the workers' purge."""
    return _int(os.environ if env is None else env, "BANCO_IDEMPOTENCY_RETENTION_S",
                24 * 3600, 60, 366 * 24 * 3600)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def webhook_allow_networks(env: Mapping[str, str] | None = None) -> tuple[Network, ...]:
    """The private ranges webhooks may go to (`BANCO_WEBHOOK_ALLOW_NETWORKS`, comma-separated
    CIDRs): read by the API, which refuses subscriptions elsewhere, and by the workers, which
    check every connection again."""
    raw = (os.environ if env is None else env).get("BANCO_WEBHOOK_ALLOW_NETWORKS", "")
    networks = []
    for item in filter(None, (part.strip() for part in raw.split(","))):
        try:
            networks.append(ipaddress.ip_network(item))
        except ValueError as e:
            raise ConfigError(f"BANCO_WEBHOOK_ALLOW_NETWORKS: {e}") from None
    return tuple(networks)


# Open streams per API process: each costs the process a socket and ~10 KB, and a change of its
# table one `send`; two of gunicorn's default workers hold 2,000 even when one gets them all.
STREAMS = 2048
# How long a client may take to send a request's head, and then its body, before the API answers
# 408 and closes the connection (`service.http.heads`): a slow client holds a socket that long,
# never a thread, while its head comes; a body is read by a thread, so it is bounded too.
HEAD_TIMEOUT_S = 10
BODY_TIMEOUT_S = 30

@dataclass(frozen=True)
class Config:
    """Everything the service reads from its environment."""

    database_url: str
    redis_url: str
    operator_key: str
    max_body_bytes: int = 64 * 1024
    pool_size: int = 10
    queue_name: str = "banco"
    page_limit: int = 500
    rate_limit: str = "1200/minute"
    bench_endpoints: bool = False  # the benchmark's ceiling endpoint (service/http/bench_endpoint.py)
    threads: int | None = None  # gunicorn threads per worker, when known (service/http/slots.py)
    # Streams a gunicorn worker passes on to its streamer, at most (service/http/relay.py).
    streams: int = STREAMS
    head_timeout_s: int = HEAD_TIMEOUT_S
    body_timeout_s: int = BODY_TIMEOUT_S
    idempotency_retention_s: int = 24 * 3600
    # A streaming replica for the reads that may lag (service/http/replica.py); None: all on
    # `database_url`.
    replica_url: str | None = None
    replica_wait_ms: int = 200  # how long a caller's read waits for the replica to have his writes
    # Private ranges that webhook subscriptions may name (service/commands/webhook_addresses.py).
    webhook_allow_networks: tuple[Network, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read `DATABASE_URL`, `REDIS_URL`, `BANCO_OPERATOR_KEY`, the optional replica and limits."""
        env = os.environ if env is None else env
        missing = [n for n in ("DATABASE_URL", "REDIS_URL", "BANCO_OPERATOR_KEY") if not env.get(n)]
        if missing:
            raise ConfigError(f"missing setting(s): {', '.join(missing)}")
        key = env["BANCO_OPERATOR_KEY"]
        if len(key) < 16:
            raise ConfigError("BANCO_OPERATOR_KEY must be at least 16 characters")
        return cls(
            database_url=env["DATABASE_URL"],
            redis_url=_redis_url(env["REDIS_URL"]),
            operator_key=key,
            max_body_bytes=_int(env, "BANCO_MAX_BODY_BYTES", 64 * 1024, 1024, 16 * 1024 * 1024),
            pool_size=_int(env, "BANCO_POOL_SIZE", 10, 1, 200),
            queue_name=env.get("BANCO_QUEUE", "banco") or "banco",
            rate_limit=_rate(env.get("BANCO_RATE_LIMIT") or "1200/minute"),
            bench_endpoints=_flag(env, "BANCO_BENCH_ENDPOINTS"),
            threads=_int(env, "BANCO_THREADS", 0, 0, 10_000) or None,
            streams=_int(env, "BANCO_STREAMS", STREAMS, 1, 100_000),
            head_timeout_s=_int(env, "BANCO_HEAD_TIMEOUT_S", HEAD_TIMEOUT_S, 1, 3600),
            body_timeout_s=_int(env, "BANCO_BODY_TIMEOUT_S", BODY_TIMEOUT_S, 1, 3600),
            idempotency_retention_s=idempotency_retention_s(env),
            replica_url=env.get("DATABASE_REPLICA_URL") or None,
            replica_wait_ms=_int(env, "BANCO_REPLICA_WAIT_MS", 200, 0, 60_000),
            webhook_allow_networks=webhook_allow_networks(env),
        )
