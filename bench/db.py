"""A throw-away database for one benchmark run, on the server `DATABASE_URL` names."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from projections import migrate

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
SOCKET_DIR = "/var/run/postgresql"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


def base_url() -> str:
    return os.environ.get("DATABASE_URL") or DEFAULT_URL


def prefer_socket(url: str, socket_dir: str = SOCKET_DIR) -> str:
    """`url` over the server's unix socket when it is local and the socket is there.

    TCP on loopback adds a few microseconds per round trip; the store and its ceiling must pay
    the same transport, and the socket is what the service uses on the machine.
    """
    params = conninfo_to_dict(url)
    host = str(params.get("host") or "")
    port = str(params.get("port") or "5432")
    if host in LOCAL_HOSTS and Path(socket_dir, f".s.PGSQL.{port}").exists():
        params.pop("hostaddr", None)
        params["host"] = socket_dir
        return make_conninfo("", **params)
    return url


def describe(url: str) -> str:
    """Where `url` connects, for the report header (no password)."""
    params = conninfo_to_dict(url)
    host = params.get("host") or "(default)"
    return f"host={host} port={params.get('port') or 5432} dbname={params.get('dbname')}"


@contextmanager
def fresh_database(url: str | None = None, prefix: str = "banco_bench",
                   upto: int | None = None) -> Iterator[str]:
    """Create an empty database next to `url`'s, migrate it (up to version `upto`), yield its
    URL, drop it after."""
    admin = prefer_socket(url or base_url())
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    target = make_conninfo(admin, dbname=name)
    try:
        with psycopg.connect(target, autocommit=True) as conn:
            migrate.upgrade(conn, upto)
        yield target
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
