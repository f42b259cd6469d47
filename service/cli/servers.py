"""How a `banco` command reaches PostgreSQL and Redis: the servers `DATABASE_URL` / `REDIS_URL`
name, else the embedded ones of the data folder (those of a running `banco run`, or started for
the command's own duration and stopped after it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import click

from service.runtime import embedded
from service.runtime.config import Local

F = TypeVar("F", bound=Callable[..., object])


def data_dir_option(f: F) -> F:
    """`--data-dir`: the folder `banco run` keeps its embedded servers in."""
    option = click.option(
        "--data-dir", type=click.Path(file_okay=False, path_type=Path),
        default=lambda: str(Local.from_env().data_dir), show_default=".banco",
        help="where `banco run` keeps its embedded servers (unless DATABASE_URL / REDIS_URL name others)")
    return option(f)


@contextmanager
def servers(data_dir: Path, *, database: bool = True, redis: bool = False,
            create: bool = False) -> Iterator[embedded.EmbeddedServers]:
    """The servers for this command; those it had to start are stopped when it ends."""
    try:
        found = embedded.start(data_dir, database=database, redis=redis, create=create)
    except embedded.EmbeddedError as e:
        raise click.ClickException(str(e)) from e
    try:
        yield found
    finally:
        found.stop()


@contextmanager
def database_url(data_dir: Path) -> Iterator[str]:
    """The PostgreSQL URL for this command."""
    with servers(data_dir, database=True) as found:
        yield found.database_url


@contextmanager
def redis_url(data_dir: Path) -> Iterator[str]:
    """The Redis URL for this command."""
    with servers(data_dir, database=False, redis=True) as found:
        yield found.redis_url


def reachable(url: str) -> str:
    """`url`, once one connection to it has been made: a command that then works through a pool
    (which retries for 30 s, logging each failure) says at once that the server is not there."""
    import psycopg

    psycopg.connect(url, connect_timeout=10).close()  # `Banco` makes a refusal one line
    return url
