"""What a `banco` command prints when its servers or its database are not what it needs: one
line saying so, and exit status 1, rather than a traceback."""

from __future__ import annotations

from typing import Any

import click
import psycopg
import redis

from service.runtime.embedded import EmbeddedError


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


class Banco(click.Group):
    """The `banco` group: refusals of the servers become one-line errors."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except psycopg.errors.UndefinedTable as e:
            raise click.ClickException(
                f"the database has no Banco schema ({_first_line(e)}): run `banco db upgrade`") from e
        except psycopg.OperationalError as e:
            if e.sqlstate is not None and not e.sqlstate.startswith("08"):
                raise  # not a connection's failure
            raise click.ClickException(f"cannot reach PostgreSQL: {_first_line(e)}") from e
        except EmbeddedError as e:
            raise click.ClickException(str(e)) from e
        except redis.ConnectionError as e:
            raise click.ClickException(f"cannot reach Redis: {_first_line(e)}") from e
