"""`banco bot`: a reference bot of the Python SDK (clients/python, `banco_sdk.bot`) seated at a
table of a running Banco, over its HTTP API like any client. What a user can get wrong (the URL,
the token, the game, the table) is said in one line, not a traceback."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import click


def _check_url(url: str) -> str:
    """`url` without its trailing slash, or a usage error saying what is wrong with it (the SDK's
    check, `banco_sdk._core.base_url`, which its clients make too)."""
    from banco_sdk._core import base_url

    try:
        return base_url(url)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--url") from None


# What an id or a game's name is made of: it goes into the requests' paths as it is.
_NAME = re.compile(r"[A-Za-z0-9_-]+")


def _check_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not _NAME.fullmatch(value):
        raise click.BadParameter(f"{value!r} is not an id: letters, digits, '-' and '_' only")
    return value


def _check_token(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not (value.isascii() and value.isprintable() and value.strip() == value):
        raise click.BadParameter("the token holds characters a token never has (spaces, or"
                                 " quotes pasted with it?)")
    return value


@click.command("bot")
@click.option("--url", envvar="BANCO_URL", default="http://127.0.0.1:8000", show_envvar=True,
              show_default=True, help="Banco's address, without /v1")
@click.option("--token", envvar="BANCO_TOKEN", required=True, show_envvar=True,
              callback=_check_token, help="the player's bearer token")
@click.option("--game", required=True, callback=_check_name,
              help="the table's game (GET /v1/games), checked")
@click.option("--table", "table_id", required=True, callback=_check_name, help="the table's id")
@click.option("--hands", default=1, show_default=True, type=click.IntRange(min=1),
              help="hands to play, counted from when the bot comes (a hand already over then does"
              " not count); then it stops, and keeps its seat")
# The API's own bound on a buy-in (JoinSchema), said here with the option's name.
@click.option("--buy-in", type=click.IntRange(min=1, max=10**9),
              help="treasure to sit with when the bot takes a seat; if omitted, the table's"
              " fixed buy-in (Casino pirate), else ten times its max_bet or stake, at most the"
              " wallet's balance")
@click.option("--players", type=click.IntRange(min=1), help="players seated before the bot deals,"
              " within the game's range (the game's minimum if omitted)")
@click.option("--no-deal", is_flag=True, help="never deal: play the hands others deal")
def bot(url: str, token: str, game: str, table_id: str, hands: int, buy_in: int | None,
        players: int | None, no_deal: bool) -> None:
    """Sit a reference bot at a table and play it: it takes a seat (unless it has one), deals
    when enough players sit (unless --no-deal), and plays its turns with a simple strategy until
    HANDS hands have ended since it came or the table is over; then it stops, keeping its seat.

    The bot is the Python SDK's (`python -m banco_sdk.bot`); install it with
    `pip install ./clients/python` where Banco itself is not installed.
    """
    try:
        import pydantic
        from banco_sdk import errors
        from banco_sdk.bot import Bot
        from banco_sdk.client import Banco
    except ImportError as e:
        raise click.ClickException("the bots are the Python SDK's, which is not installed here:"
                                   " pip install ./clients/python") from e
    url = _check_url(url)
    with Banco(url, token) as client:
        # What the bot is told to do is checked before it sits: a mistake there is the user's,
        # a usage error (exit 2) as the options' own are; one met while it plays is not (exit 1).
        with _said(errors, pydantic, url, Mistake):
            player = _seated(client, errors, Bot, url, game, table_id, hands=hands,
                             buy_in=buy_in, players=players, deal=not no_deal)
        with _said(errors, pydantic, url, click.ClickException):
            table = player.run()
    click.echo(f"done: {len(player.finished)} hand(s), {player.moves} move(s), table {table.status}")


class Mistake(click.ClickException):
    """A user's mistake in what the bot is told (a URL, a token, a game, a table): exit 2."""

    exit_code = 2


@contextlib.contextmanager
def _said(errors: Any, pydantic: Any, url: str, as_: type[click.ClickException]) -> Iterator[None]:
    """The SDK's errors said in one line, raised `as_` (the exit code tells which phase)."""
    try:
        yield
    except errors.ConnectionFailed as e:
        raise as_(f"cannot reach Banco at {url}: {e.detail}") from e
    except errors.BancoError as e:
        if e.code is None:  # no problem document: some other server's page
            raise as_(f"{url} does not answer as Banco does (HTTP {e.status})") from e
        from service.cli.text import shown

        raise as_(f"{e.code}: {shown(e.detail)}") from e
    except pydantic.ValidationError as e:  # a 200 that is not the API's answer
        raise as_(f"{url} does not answer as Banco does (its answer does not fit the API)") from e


def _seated(client: Any, errors: Any, bot_class: Any, url: str, game: str, table_id: str,
            **options: Any) -> Any:
    """The bot, once the token, the game, the table and the count of players are checked."""
    try:
        me = client.me()
    except errors.Unauthorized as e:
        raise Mistake(f"{url} refused the token: {e.detail}") from e
    except errors.NotFound as e:
        if e.code is None:  # no problem document: not Banco at all, said by `_said`
            raise
        # Banco's own 404, asked below its root (a page's URL, /docs).
        raise Mistake(f"{url} has no {url.rstrip('/')}/v1/me: give Banco's own URL, as"
                      " http://127.0.0.1:8000, not a page's") from e
    if me.role != "player":
        raise Mistake(f"the token is the {me.role}'s: a bot plays with a player's")
    try:
        found = client.game(game)
    except errors.NotFound as e:
        names = ", ".join(g.name for g in client.games())
        raise Mistake(f"no game {game!r} at {url}; its games: {names}") from e
    from banco_sdk.bot import players_for

    try:  # a count the game cannot be played by would deal in vain, or never
        players_for(found, options["players"])
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--players") from None
    try:
        table = client.table(table_id)
    except errors.NotFound as e:
        raise Mistake(f"no table {table_id} at {url}") from e
    if table.game != game:
        raise Mistake(f"table {table_id} plays {table.game}, not {game}")
    from service.cli.text import shown

    return bot_class(client, table_id, **options, log=lambda line: click.echo(shown(line)))
