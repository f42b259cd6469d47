"""Configuration from the environment, checked at start-up so a bad value fails fast.

The one module that reads the environment. Each process's composition root builds the settings
it needs here and hands them down: the API `Config` (`service/http/app.py`), the worker's
`WorkerConfig` (`workers/worker.py`), and the command line's `Local` (`service/cli/`). A process
tells the processes it starts their settings through their environment (`child_environment`).
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import redis
from psycopg.conninfo import conninfo_to_dict

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


def _database_url(value: str) -> str:
    """`value` if libpq can read it (a `postgresql://` URL or `key=value` pairs): else the
    mistake is said here, not in a traceback from the first connection."""
    if value:
        try:
            conninfo_to_dict(value)
        except psycopg.ProgrammingError:
            # Neither the value nor libpq's words, which quote a part of it: it may hold a password.
            raise ConfigError("DATABASE_URL is not a PostgreSQL URL"
                              " (postgresql://USER@HOST:PORT/DATABASE) nor key=value pairs") from None
    return value


def _redis_url(value: str) -> str:
    if is_sentinel(value):
        try:
            parse_sentinel(value)
        except RedisUrlError as e:
            raise ConfigError(f"REDIS_URL: {e}") from None
    elif value:
        try:
            redis.connection.parse_url(value)
        except ValueError as e:
            raise ConfigError(f"REDIS_URL is not a Redis URL: {e}") from None  # one line, no URL
        parts = urlsplit(value)
        db = parts.path.strip("/")
        # redis-py reads a path that is no number as database 0, without a word.
        if parts.scheme in ("redis", "rediss") and db and not (db.isascii() and db.isdigit()):
            raise ConfigError(f"REDIS_URL's database must be a number, got {db!r}")
    return value


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "")
    if raw not in ("", "0", "1"):
        raise ConfigError(f"{name} must be 0 or 1, got {raw!r}")
    return raw == "1"


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not 0 <= value < math.inf:  # also refuses nan
        raise ConfigError(f"{name} must be a number of seconds from 0 up, got {raw!r}")
    return value


def _path(env: Mapping[str, str], name: str) -> Path | None:
    raw = env.get(name)
    return Path(raw) if raw else None


def _writable_journal(env: Mapping[str, str]) -> Path | None:
    """`BANCO_ERASURE_JOURNAL` for the API, created (empty) if it is not there yet, so that one
    the API cannot write is refused at start rather than failing every erasure."""
    path = _path(env, ERASURE_JOURNAL)
    if path is None:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600))
    except OSError as e:
        raise ConfigError(f"{ERASURE_JOURNAL}: cannot write {path} ({e.strerror})") from None
    return path


def tsa_url(env: Mapping[str, str] | None = None) -> str | None:
    """`BANCO_TSA_URL` (of this process's environment unless `env`): the RFC 3161
    time-stamping authority that stamps every checkpoint."""
    env = os.environ if env is None else env
    url = env.get("BANCO_TSA_URL") or None
    if url is not None and not url.startswith(("http://", "https://")):
        raise ConfigError(f"BANCO_TSA_URL: {url!r} is not an http(s) URL")
    return url


def metrics_folder(env: Mapping[str, str] | None = None) -> Path | None:
    """`PROMETHEUS_MULTIPROC_DIR` (of this process's environment unless `env`): where the
    processes of a node write their metrics, if they do."""
    return _path(os.environ if env is None else env, METRICS_DIR)


def idempotency_retention_s(env: Mapping[str, str]) -> int:
    """How long an Idempotency-Key's record holds: read by the API and by the workers' purge."""
    return _int(env, "BANCO_IDEMPOTENCY_RETENTION_S", 24 * 3600, 60, 366 * 24 * 3600)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def webhook_allow_networks(env: Mapping[str, str]) -> tuple[Network, ...]:
    """The private ranges webhooks may go to (`BANCO_WEBHOOK_ALLOW_NETWORKS`, comma-separated
    CIDRs): read by the API, which refuses subscriptions elsewhere, and by the workers, which
    check every connection again."""
    raw = env.get("BANCO_WEBHOOK_ALLOW_NETWORKS", "")
    networks = []
    for item in filter(None, (part.strip() for part in raw.split(","))):
        try:
            networks.append(ipaddress.ip_network(item))
        except ValueError as e:
            raise ConfigError(f"BANCO_WEBHOOK_ALLOW_NETWORKS: {e}") from None
    return tuple(networks)


# Where traces go, read by OpenTelemetry's exporter itself too (service/runtime/tracing.py).
OTLP_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def otlp_endpoint(env: Mapping[str, str] | None = None) -> str | None:
    """The OTLP endpoint traces are exported to; None: no tracing."""
    env = os.environ if env is None else env
    return next((env[name] for name in OTLP_ENDPOINTS if env.get(name)), None)


def otlp_service_name(default: str, env: Mapping[str, str] | None = None) -> str:
    """`OTEL_SERVICE_NAME`, else this process's `default`."""
    env = os.environ if env is None else env
    return env.get("OTEL_SERVICE_NAME") or default


# The erasure journal's file (`Config.erasure_journal`); `banco run` keeps it in its data folder.
ERASURE_JOURNAL = "BANCO_ERASURE_JOURNAL"

# Read by prometheus_client itself in every process that counts: the name is its, not ours.
METRICS_DIR = "PROMETHEUS_MULTIPROC_DIR"

# Open streams per API process: each costs the process a socket and ~10 KB, and a change of its
# table one `send`; two of gunicorn's default workers hold 2,000 even when one gets them all.
STREAMS = 2048
# How long a client may take to send a request's head, and then its body, before the API answers
# 408 and closes the connection (`service.http.heads`): a slow client holds a socket that long,
# never a thread, while its head comes; a body is read by a thread, so it is bounded too.
HEAD_TIMEOUT_S = 10
BODY_TIMEOUT_S = 30
# How long a stream ticket may open its stream (service/http/tickets.py): long enough for a page
# to open its EventSource and for its reconnections of the first minute, short enough that one
# seen in a URL is stale before it can be of use elsewhere.
STREAM_TICKET_TTL_S = 60


def cors_origins(env: Mapping[str, str]) -> tuple[str, ...]:
    """`BANCO_CORS_ORIGINS`: the web origins allowed to call the API from a browser, separated
    by commas, each `scheme://host[:port]` exactly as a browser sends it in `Origin` (no path, no
    wildcard: a page of any other origin must not act with a user's token)."""
    origins = []
    for part in (env.get("BANCO_CORS_ORIGINS") or "").split(","):
        origin = part.strip()
        if not origin:
            continue
        scheme, sep, rest = origin.partition("://")
        if (scheme not in ("http", "https") or not sep or not rest or "/" in rest or "*" in rest
                or not origin.isprintable() or " " in origin):
            raise ConfigError(f"BANCO_CORS_ORIGINS: {origin!r} is not an origin such as"
                              " https://play.example.com")
        origins.append(origin.lower())
    return tuple(origins)

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
    threads: int | None = None  # gunicorn threads per worker, when known (service/runtime/slots.py)
    # Streams a gunicorn worker passes on to its streamer, at most (service/streaming/relay.py).
    streams: int = STREAMS
    head_timeout_s: int = HEAD_TIMEOUT_S
    body_timeout_s: int = BODY_TIMEOUT_S
    idempotency_retention_s: int = 24 * 3600
    # A streaming replica for the reads that may lag (service/runtime/replica.py); None: all on
    # `database_url`.
    replica_url: str | None = None
    replica_wait_ms: int = 200  # how long a caller's read waits for the replica to have his writes
    # Private ranges that webhook subscriptions may name (service/application/webhook_addresses.py).
    webhook_allow_networks: tuple[Network, ...] = ()
    # The folder every process of the machine writes its metrics to, added up by GET /metrics
    # (`service/runtime/metrics.py`); None: this process's own only.
    metrics_dir: Path | None = None
    # The web origins whose pages may call the API from a browser (service/http/cors.py); none
    # by default.
    cors_origins: tuple[str, ...] = ()
    # How long a stream ticket may open its stream (service/http/tickets.py).
    stream_ticket_ttl_s: int = STREAM_TICKET_TTL_S
    # The file each erasure is kept in before it commits, where a restore of the database does
    # not take it back (service/application/erasure_journal.py); None: kept in the database only.
    erasure_journal: Path | None = None
    # The file holding the house's Ed25519 key, which signs the checkpoints evidence bundles
    # prove to (service/runtime/house_key.py); None: no bundle can be signed (503).
    house_key_file: Path | None = None
    # An RFC 3161 time-stamping authority that stamps each checkpoint recorded (None: none).
    tsa_url: str | None = None

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
            database_url=_database_url(env["DATABASE_URL"]),
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
            metrics_dir=_path(env, METRICS_DIR),
            cors_origins=cors_origins(env),
            stream_ticket_ttl_s=_int(env, "BANCO_STREAM_TICKET_TTL_S", STREAM_TICKET_TTL_S, 1, 3600),
            erasure_journal=_writable_journal(env),
            house_key_file=_path(env, "BANCO_HOUSE_KEY_FILE"),
            tsa_url=tsa_url(env),
        )


@dataclass(frozen=True)
class WebhookSettings:
    """How the workers deliver webhooks (`workers/webhooks.py`)."""

    backoff_s: float = 5.0  # the wait after the first failed attempt, doubling after each next
    backoff_max_s: float = 3600.0
    max_failures: int = 10  # failed attempts in a row after which a subscription pauses
    lease_s: int = 30  # how long a queued delivery job keeps others from being queued
    timeout_s: float = 10.0  # one attempt in all: lookup, connection, request and answer
    allow_networks: tuple[Network, ...] = ()  # private ranges deliveries may go to all the same
    # Threads of each worker that deliver, on the deliveries' own queue; 0: this worker delivers
    # none, and `banco worker --webhooks` processes do.
    threads: int = 1

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> WebhookSettings:
        """Read the `BANCO_WEBHOOK_*` settings."""
        return cls(
            backoff_s=_seconds(env, "BANCO_WEBHOOK_BACKOFF_S", 5.0),
            backoff_max_s=_seconds(env, "BANCO_WEBHOOK_BACKOFF_MAX_S", 3600.0),
            max_failures=_int(env, "BANCO_WEBHOOK_MAX_FAILURES", 10, 1, 1_000_000),
            lease_s=max(1, int(_seconds(env, "BANCO_WEBHOOK_LEASE_S", 30.0))),
            timeout_s=_seconds(env, "BANCO_WEBHOOK_TIMEOUT_S", 10.0),
            allow_networks=webhook_allow_networks(env),
            threads=_int(env, "BANCO_WEBHOOK_THREADS", 1, 0, 16),
        )


@dataclass(frozen=True)
class WorkerConfig:
    """What a `banco worker` reads: no operator key, which it never uses."""

    # Empty when the environment names none: `banco worker` then finds the data folder's.
    database_url: str
    redis_url: str
    queue_name: str = "banco"
    sweep_every_s: float = 1.0  # how often the sweeper looks for overdue deadlines
    settle_grace_s: float = 10.0  # how long a hand waits for its settlement job before a sweep
    checkpoint_every_s: int = 3600  # how often one of the workers records a digest of the log
    tsa_url: str | None = None  # as `Config.tsa_url`
    idempotency_retention_s: int = 24 * 3600
    # How long the hashes of retired keys' and tokens' secrets name them in refusals' log lines.
    retired_secrets_retention_s: int = 365 * 24 * 3600
    webhooks: WebhookSettings = field(default_factory=WebhookSettings)
    metrics_dir: Path | None = None  # as `Config.metrics_dir`
    # A test hook (tests/service/test_timeouts.py): `settlement` dies like a killed worker with
    # the settlement written but not committed.
    crash_point: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WorkerConfig:
        """Read the worker's settings, all checked; the servers' URLs may be missing (the
        command line finds the data folder's: `with_servers`)."""
        env = os.environ if env is None else env
        return cls(
            database_url=_database_url(env.get("DATABASE_URL", "")),
            redis_url=_redis_url(env.get("REDIS_URL", "")),
            queue_name=env.get("BANCO_QUEUE", "banco") or "banco",
            sweep_every_s=_seconds(env, "BANCO_SWEEP_EVERY_S", 1.0),
            settle_grace_s=_seconds(env, "BANCO_SETTLE_GRACE_S", 10.0),
            checkpoint_every_s=max(1, int(_seconds(env, "BANCO_CHECKPOINT_EVERY_S", 3600.0))),
            tsa_url=tsa_url(env),
            idempotency_retention_s=idempotency_retention_s(env),
            retired_secrets_retention_s=24 * 3600 * _int(
                env, "BANCO_RETIRED_SECRETS_RETENTION_DAYS", 365, 1, 10 * 366),
            webhooks=WebhookSettings.from_env(env),
            metrics_dir=_path(env, METRICS_DIR),
            crash_point=env.get("BANCO_TEST_CRASH_POINT") or None,
        )

    def with_servers(self, database_url: str, redis_url: str) -> WorkerConfig:
        """These settings on the servers found."""
        return replace(self, database_url=database_url, redis_url=redis_url)

    def check_servers(self) -> None:
        """Refuse settings that name no servers."""
        missing = [name for name, value in (("DATABASE_URL", self.database_url),
                                            ("REDIS_URL", self.redis_url)) if not value]
        if missing:
            raise ConfigError(f"missing setting(s): {', '.join(missing)}")

    @classmethod
    def of(cls, config: Config) -> WorkerConfig:
        """The worker's settings beside an API's `config` (the same servers and queue)."""
        return cls(database_url=config.database_url, redis_url=config.redis_url,
                   queue_name=config.queue_name, tsa_url=config.tsa_url,
                   idempotency_retention_s=config.idempotency_retention_s,
                   webhooks=WebhookSettings(allow_networks=config.webhook_allow_networks),
                   metrics_dir=config.metrics_dir)


@dataclass(frozen=True)
class Local:
    """What the `banco` commands read before they know their servers: none is required."""

    data_dir: Path = Path(".banco")
    port: str = "8000"  # `banco run`'s, checked by its option
    database_url: str | None = None  # else the data folder's embedded PostgreSQL
    redis_url: str | None = None  # else the data folder's embedded Redis
    operator_key: str | None = None  # else the one `banco run` generated in the data folder
    house_key_file: Path | None = None  # else the one `banco run` generated in the data folder
    queue_name: str = "banco"
    metrics_dir: Path | None = None
    erasure_journal: Path | None = None  # else the data folder's `erasures.jsonl`

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Local:
        """Read `BANCO_DATA_DIR`, `BANCO_PORT`, the servers' URLs and the operator key, if set."""
        env = os.environ if env is None else env
        return cls(
            data_dir=Path(env.get("BANCO_DATA_DIR") or ".banco"),
            port=env.get("BANCO_PORT") or "8000",
            database_url=_database_url(env.get("DATABASE_URL", "")) or None,
            redis_url=_redis_url(env.get("REDIS_URL", "")) or None,
            operator_key=env.get("BANCO_OPERATOR_KEY") or None,
            house_key_file=_path(env, "BANCO_HOUSE_KEY_FILE"),
            queue_name=env.get("BANCO_QUEUE", "banco") or "banco",
            metrics_dir=_path(env, METRICS_DIR),
            erasure_journal=_path(env, ERASURE_JOURNAL),
        )

    def journal(self, data_dir: Path | None = None) -> Path:
        """The erasure journal's file: `BANCO_ERASURE_JOURNAL`, else in the data folder."""
        return self.erasure_journal or (data_dir or self.data_dir) / "erasures.jsonl"


def child_environment(**settings: str) -> dict[str, str]:
    """The environment of a process this one starts: its own, with `settings` set (by their
    variables' names). How a process tells those it starts their settings."""
    return {**os.environ, **settings}
