"""`python -m banco_sdk.bot --url URL --token TOKEN --game GAME --table TABLE_ID`"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable

from banco_sdk import errors
from banco_sdk._core import base_url
from banco_sdk.bot import Bot, players_for
from banco_sdk.client import Banco

HANDS_HELP = ("hands to play, counted from when the bot comes (a hand already over then does not"
              " count); then it stops, and keeps its seat")
BUY_IN_HELP = ("treasure to sit with when the bot takes a seat; if omitted, the table's fixed buy-in"
               " (Casino pirate), else ten times its max_bet or stake, at most the wallet's balance")


# What an id or a game's name is made of, as `banco bot` checks it: anything else is refused in
# one line rather than sent (the client would percent-encode it, and Banco answer 404).
NAME = re.compile(r"[A-Za-z0-9_-]+")


def whole(at_least: int) -> Callable[[str], int]:
    """An argparse `type`: a whole number no less than `at_least` (a usage error, exit 2, else)."""
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < at_least:
            raise argparse.ArgumentTypeError(f"{value} is less than {at_least}")
        return value
    return read


# The options that take a value, and every option: `dashes_kept` tells a value from an option.
VALUED = ("--url", "--token", "--game", "--table", "--hands", "--buy-in", "--players")
OPTIONS = {*VALUED, "--no-deal", "-h", "--help"}


def dashes_kept(argv: list[str]) -> list[str]:
    """`argv` with `--option VALUE` written `--option=VALUE` where VALUE begins with a dash and is
    no option: a URL-safe token can begin with one, and argparse would take it for an option and
    say the option has no value."""
    kept: list[str] = []
    for arg in argv:
        if kept and kept[-1] in VALUED and arg.startswith("-") and arg.split("=", 1)[0] not in OPTIONS:
            kept[-1] = f"{kept[-1]}={arg}"
        else:
            kept.append(arg)
    return kept


def unreachable(url: str, exc: errors.ConnectionFailed) -> str:
    """A Banco that cannot be reached, said naming its URL, as `banco bot` and `banco-bot` do
    (the URL the bot was given, the reason without the request it cut)."""
    return f"cannot reach Banco at {url}: {exc.extra.get('reason', exc.detail)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m banco_sdk.bot",
                                     description="Sit at a Banco table and play it with a simple strategy.")
    url, token = os.environ.get("BANCO_URL"), os.environ.get("BANCO_TOKEN")
    parser.add_argument("--url", required=url is None, default=url,
                        help="Banco's URL, e.g. http://127.0.0.1:8000 (or BANCO_URL)")
    parser.add_argument("--token", required=token is None, default=token,
                        help="the player's bearer token (or BANCO_TOKEN)")
    parser.add_argument("--game", required=True, help="the table's game (GET /v1/games), checked")
    parser.add_argument("--table", required=True, help="the table's id")
    parser.add_argument("--hands", type=whole(1), default=1, help=HANDS_HELP + " (1)")
    parser.add_argument("--buy-in", type=whole(1), help=BUY_IN_HELP)
    parser.add_argument("--players", type=int,
                        help="players seated before the bot deals, within the game's range (its minimum)")
    parser.add_argument("--no-deal", action="store_true", help="never deal; play the hands others deal")
    args = parser.parse_args(dashes_kept(sys.argv[1:] if argv is None else argv))
    for option, value in (("--game", args.game), ("--table", args.table)):
        if not NAME.fullmatch(value):
            print(f"error: {option}: {value!r} is not an id: letters, digits, '-' and '_' only",
                  file=sys.stderr)
            return 2
    try:
        url = base_url(args.url)
    except ValueError as exc:  # a malformed URL, said in one line rather than httpx's traceback
        print(f"error: --url: {exc}", file=sys.stderr)
        return 2
    with Banco(url, args.token) as client:
        # What the bot is told is checked before it sits: a refused token, one that is not a
        # player's, an unknown table or no Banco at the URL is the user's mistake, a usage error
        # (exit 2); what goes wrong while it plays is exit 1.
        try:
            # The operator key (or an auditor's token) may read the table, and was refused only
            # when the bot took a seat: "403 forbidden: operators may not do this", exit 1.
            if (role := client.me().role) != "player":
                whose = "the operator key" if role == "operator" else f"an {role}'s token"
                print(f"error: --token: that is {whose}; the bot plays with a player's token",
                      file=sys.stderr)
                return 2
            table = client.table(args.table)
            if table.game != args.game:
                print(f"table {args.table} plays {table.game}, not {args.game}", file=sys.stderr)
                return 2
            try:  # a count the game cannot be played by would deal in vain, or never
                players_for(client.game(table.game), args.players)
            except ValueError as exc:
                print(f"error: --players: {exc}", file=sys.stderr)
                return 2
        except errors.ConnectionFailed as exc:
            print(f"error: {unreachable(url, exc)}", file=sys.stderr)
            return 2
        except errors.BancoError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        bot = Bot(client, args.table, hands=args.hands, deal=not args.no_deal, players=args.players,
                  buy_in=args.buy_in, log=lambda line: print(line, flush=True))
        try:
            table = bot.run()
        except errors.ConnectionFailed as exc:
            print(f"error: {unreachable(url, exc)}", file=sys.stderr)
            return 1
        except errors.BancoError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    print(f"done: {len(bot.finished)} hand(s), {bot.moves} move(s), table {table.status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
