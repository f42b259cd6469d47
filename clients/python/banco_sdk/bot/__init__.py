"""Reference bots: sit at a table and play it with a simple strategy (`strategy.choose`).

    python -m banco_sdk.bot --url http://127.0.0.1:8000 --token $TOKEN --game sette-e-mezzo --table tb_...

The bot takes a seat (unless it has one), deals when the table is open and enough players sit,
and plays its turns as the table's stream (`turns=true`) brings them, until it has played
`hands` hands or the table is over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from banco_sdk import errors
from banco_sdk._core import GameTable
from banco_sdk.bot.strategy import choose
from banco_sdk.client import Banco

__all__ = ["Bot", "choose"]


class Bot:
    """One player's bot at one table."""

    def __init__(self, client: Banco, table_id: str, *, hands: int = 1, deal: bool = True,
                 players: int | None = None, buy_in: int | None = None, seed: str | None = None,
                 strategy: Callable[[GameTable], dict[str, Any] | None] = choose,
                 log: Callable[[str], None] = lambda line: None) -> None:
        self.client, self.table_id, self.hands = client, table_id, hands
        self.deal, self.players, self.buy_in, self.seed = deal, players, buy_in, seed
        self.strategy, self.log = strategy, log
        self.finished: set[str] = set()  # hands seen ended
        self.moves = 0

    def run(self) -> GameTable:
        """Play until `hands` hands ended or the table is over: the table as last seen."""
        table = self.sit()
        if self.players is None:
            self.players = self.client.game(table.game).min_players
        table = self.step(table)
        if self.done(table):
            return table
        for event in self.client.stream(table, turns=True, events=False, after=table.version):
            if event.event == "table":
                table = self.step(event.table())
                if self.done(table):
                    break
        return table

    def sit(self) -> GameTable:
        """The table, with this player seated at it."""
        while (table := self.client.table(self.table_id)).you is None:
            try:
                table = self.client.join(table, buy_in=self.buy_in, seed=self.seed).table
            except errors.Conflict as exc:
                if exc.code != "version_conflict":
                    raise
                continue  # another player sat at the same moment: try again
            self.log(f"seated at {table.id} (seat {table.you})")
        return table

    def done(self, table: GameTable) -> bool:
        return table.status == "over" or len(self.finished) >= self.hands

    def step(self, table: GameTable) -> GameTable:
        """Deal or play for as long as the table offers this player something to do."""
        while True:
            if table.hand is not None and table.status in ("open", "over"):
                self.finished.add(table.hand.id)
            if self.done(table):
                return table
            try:
                if table.status == "open":
                    if not self.deal or len(table.seats) < (self.players or 1):
                        return table
                    table = self.client.deal(table)
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
