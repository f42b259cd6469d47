"""What a `banco` command prints when its servers or its database are not what it needs: one
line saying so, and exit status 1, rather than a traceback (and a --data-dir misplaced, exit 2)."""

from __future__ import annotations

import os
from typing import Any

import click
import psycopg
import redis

from service.runtime.config import ConfigError
from service.runtime.embedded import EmbeddedError


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


class Unknown(click.ClickException):
    """What a command was named does not exist (no such hand, table, player or failed job): the
    user's mistake, said in one line before anything else is printed, with exit status 2 as a
    usage error has, but without the usage, which the command was given right."""

    exit_code = 2


class Mistaken(click.UsageError):
    """A usage error (a malformed time, a choice not offered, a missing argument) said in one
    line, naming the help to read, rather than click's usage, hint and error on four."""

    def __init__(self, error: click.UsageError) -> None:
        super().__init__(error.format_message(), error.ctx)

    def show(self, file: Any = None) -> None:
        said = self.format_message().rstrip(".")
        see = f" (see '{self.ctx.command_path} --help')" if self.ctx is not None else ""
        click.echo(f"Error: {said}{see}", file=file, err=file is None)


class Banco(click.Group):
    """The `banco` group: refusals of the servers become one-line errors, and a --data-dir
    given before the command's name says where it goes."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for arg in args:
            try:
                arg.encode()
            except UnicodeEncodeError:
                # Bytes the file system's encoding could not read come as surrogates: no id,
                # name or text of Banco's can hold them.
                shown = repr(os.fsencode(arg))[2:-1]
                raise Mistaken(click.UsageError(f"{shown} is not valid UTF-8", ctx)) from None
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as e:
            if e.option_name != "--data-dir":
                raise Mistaken(e) from e
            raise Mistaken(click.UsageError(
                "--data-dir is an option of each command: give it after the command's name"
                " (banco jobs --data-dir DIR), or set BANCO_DATA_DIR", ctx)) from e
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as e:
            raise Mistaken(e) from e

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (Mistaken, click.exceptions.NoArgsIsHelpError):  # the latter's message is the help
            raise
        except click.UsageError as e:  # a command's own arguments, parsed as it is invoked
            raise Mistaken(e) from e
        except psycopg.errors.UndefinedTable as e:
            raise click.ClickException(
                f"the database has no Banco schema ({_first_line(e)}): run `banco db upgrade`") from e
        except psycopg.OperationalError as e:
            if e.sqlstate is not None and not e.sqlstate.startswith("08"):
                raise  # not a connection's failure
            raise click.ClickException(f"cannot reach PostgreSQL: {_first_line(e)}") from e
        except EmbeddedError as e:
            raise click.ClickException(str(e)) from e
        except (redis.ConnectionError, redis.TimeoutError) as e:
            raise click.ClickException(f"cannot reach Redis: {_first_line(e)}") from e
        except redis.ResponseError as e:  # a database number beyond the server's, say
            raise click.ClickException(f"Redis refused: {_first_line(e)}") from e
        except ConfigError as e:  # read by an option's default, or by a command's own code
            raise click.ClickException(str(e)) from e
