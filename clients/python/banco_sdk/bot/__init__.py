"""Reference bots: sit at a table and play it with a simple strategy (`strategy.choose`).

    python -m banco_sdk.bot --url http://127.0.0.1:8000 --token $TOKEN --game sette-e-mezzo --table tb_...

The bot takes a seat (unless it has one), deals when the table is open and `players` sit (the
game's minimum unless said; a number the game cannot be played by is refused before anything
is done), and plays its turns as the table's stream (`turns=true`) brings them, until `hands` hands have
ended since it came or the table is over; a hand already over when it came does not count. It
then stops, and keeps its seat.

Its buy-in is `buy_in`, else the table's fixed one (Casino pirate's `buy_in` option), else
`default_buy_in`: ten times the table's `max_bet` or `stake` (the most a hand asks of a seat;
at least 10), at most what the player's wallet holds.

A deal refused for want of players (409 `not_enough_players`, as when a seated player has
nothing left to bet), or for a deck too small for the players seated (409 `deck_too_small`, a
Casino pirate table created before rules version 4), is not tried again at once: the bot waits
until the table's stream shows it changed, as the TypeScript SDK's bot does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from banco_sdk import errors, models
from banco_sdk._core import GameTable
from banco_sdk.bot.strategy import choose
from banco_sdk.client import Banco

__all__ = ["Bot", "choose", "default_buy_in", "players_for"]

HANDS_OF_BUY_IN = 10  # hands at the table's largest bet or stake that a default buy-in covers


def default_buy_in(table: GameTable, wallet: int) -> int:
    """A buy-in for `table` when its game fixes none: ten times the most one hand asks of a seat
    (the 7½ family's `max_bet`, Pirate pairs' and Cassino's `stake`; at least 1), at most
    `wallet` (at least 1: an empty wallet is the server's to refuse)."""
    largest = max([1, *(getattr(table.options, name, None) or 0 for name in ("max_bet", "stake"))])
    return max(1, min(HANDS_OF_BUY_IN * largest, wallet))


def players_for(game: models.Game, players: int | None) -> int:
    """The players a bot waits for before it deals at a table of `game`: `players`, or the
    game's minimum when None. A number outside the game's range (GET /v1/games) is a ValueError
    saying so: below it, every deal would be refused; above it, none would ever be tried."""
    if players is None:
        return game.min_players
    if not game.min_players <= players <= game.max_players:
        raise ValueError(f"{game.name} is played by {game.min_players} to {game.max_players}"
                         f" players, not {players}")
    return players


# Deals refused for what the seats are now, by code, and what the bot waits for then.
DEAL_WAITS = {"not_enough_players": "waiting for players",
              "deck_too_small": "waiting for fewer players"}


class Bot:
    """One player's bot at one table."""

    def __init__(self, client: Banco, table_id: str, *, hands: int = 1, deal: bool = True,
                 players: int | None = None, buy_in: int | None = None, seed: str | None = None,
                 strategy: Callable[[GameTable], dict[str, Any] | None] = choose,
                 log: Callable[[str], None] = lambda line: None) -> None:
        self.client, self.table_id, self.hands = client, table_id, hands
        self.deal, self.players, self.buy_in, self.seed = deal, players, buy_in, seed
        self.strategy, self.log = strategy, log
        self.finished: set[str] = set()  # hands seen ended since the bot came
        self.ended_before: str | None = None  # the hand that was over when it came
        self.moves = 0

    def run(self) -> GameTable:
        """Play until `hands` hands ended since the bot came, or the table is over: the table as
        last seen. The bot keeps its seat."""
        # Checked before the bot sits: a count the game cannot be played by is refused (ValueError).
        self.players = players_for(self.client.game(self.client.table(self.table_id).game),
                                   self.players)
        table = self.sit()
        if table.hand is not None and table.status in ("open", "over"):
            self.ended_before = table.hand.id
        table = self.step(table)
        if self.done(table):
            return table
        for event in self.client.stream(table, turns=True, events=False, after=table.version):
            if event.event != "table":
                continue
            shown = event.table()
            if shown.version <= table.version:
                # A version the bot's own moves (or its reads) have gone past: a move at it
                # could only be refused as stale.
                continue
            table = self.step(shown)
            if self.done(table):
                break
        return table

    def sit(self) -> GameTable:
        """The table, with this player seated at it."""
        buy_in = self.buy_in
        while (table := self.client.table(self.table_id)).you is None:
            try:
                table = self.client.join(table, buy_in=buy_in, seed=self.seed).table
            except errors.Conflict as exc:
                if exc.code != "version_conflict":
                    raise
                continue  # another player sat at the same moment: try again
            except errors.UnprocessableContent as exc:
                if exc.code != "buy_in_required" or buy_in is not None:
                    raise
                # The game fixes no buy-in: bring enough for several hands, if the wallet has it.
                wallet = self.client.balance(self.client.me().id).balance
                buy_in = default_buy_in(table, wallet)
                self.log(f"buying in with {buy_in} (wallet {wallet})")
                continue
            self.log(f"seated at {table.id} (seat {table.you})")
        return table

    def done(self, table: GameTable) -> bool:
        return table.status == "over" or len(self.finished) >= self.hands

    def step(self, table: GameTable) -> GameTable:
        """Deal or play for as long as the table offers this player something to do."""
        while True:
            if (table.hand is not None and table.status in ("open", "over")
                    and table.hand.id != self.ended_before):
                self.finished.add(table.hand.id)
            if self.done(table):
                return table
            try:
                if table.status == "open":
                    if not self.deal or len(table.seats) < (self.players or 1):
                        return table
                    try:
                        table = self.client.deal(table)
                    except errors.Conflict as exc:
                        if exc.code not in DEAL_WAITS:
                            raise
                        # The seats as they are cannot be dealt a hand: dealing again at once
                        # would be refused again. Wait for the stream to show the table changed.
                        self.log(f"{DEAL_WAITS[exc.code]}: {exc.detail}")
                        return table
                    self.log(f"dealt hand {table.hand.number if table.hand else '?'}")
                    continue
                action = self.strategy(table)
                if action is None:
                    return table
                table = self.client.act(table, action)
                self.moves += 1
                self.log(f"played {action}")
            except (errors.PreconditionFailed, errors.Conflict):
                # Someone (another bot dealing, a timeout) moved the table on first: read it again.
                table = self.client.table(table.id)
            except errors.Forbidden as exc:
                if exc.code != "not_seated":
                    raise
                # Another seat's move ended the table, which cashed every seat out: read it again
                # (it is over, and offers this player nothing more).
                table = self.client.table(table.id)
