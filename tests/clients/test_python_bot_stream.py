"""The Python SDK's bot follows its table's stream of turns: a table the stream shows that is no
newer than the one the bot already had (its own move went past it) is not played on, where a
move at it could only be refused as stale (412), a request wasted each time."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from banco_sdk.bot import Bot


class Shown:
    """A `table` message of the stream."""

    event = "table"

    def __init__(self, version: int) -> None:
        self._table = SimpleNamespace(version=version, status="playing", hand=None)

    def table(self) -> Any:
        return self._table


class Client:
    """What `Bot.run` asks of the SDK once seated: the stream brings versions 5, 4, 6, 6, 7."""

    def table(self, table_id: str) -> Any:
        return SimpleNamespace(game="sette-e-mezzo")

    def game(self, name: str) -> Any:
        return SimpleNamespace(name=name, min_players=2, max_players=12)

    def stream(self, table: Any, **options: Any) -> Any:
        return iter([Shown(5), SimpleNamespace(event="heartbeat"), Shown(4), Shown(6), Shown(6),
                     Shown(7)])


def test_the_bot_plays_only_on_tables_newer_than_the_one_it_had(monkeypatch):
    bot = Bot(Client(), "tb_x", hands=1)  # type: ignore[arg-type]
    monkeypatch.setattr(bot, "sit", lambda: SimpleNamespace(version=3, status="playing", hand=None))
    played_on: list[int] = []

    def step(table: Any) -> Any:
        played_on.append(table.version)
        # Its own move answers with the table one version on, which the stream may show again.
        return SimpleNamespace(version=table.version + 1 if table.version > 3 else 3,
                               status="playing", hand=None)

    monkeypatch.setattr(bot, "step", step)
    bot.run()
    assert played_on == [3, 5, 7]
