"""The catalog's event payloads as pydantic models, for bench/validate.py to compare with msgspec.

Each model states what its msgspec Struct in events/catalog.py states: strict types, no unknown
keys, the same bounds and patterns.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from events.catalog import ACCOUNT_PATTERN

Account = Annotated[str, Field(pattern=ACCOUNT_PATTERN)]
Json = dict[str, Any]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class TreasurePosted(Model):
    from_: Annotated[Account, Field(alias="from")]
    to: Account
    amount: Annotated[int, Field(ge=1)]
    reason: Annotated[str, Field(min_length=1, max_length=200)]
    table: str | None = None
    hand: str | None = None


class PlayerRegistered(Model):
    player_id: str
    name: Annotated[str, Field(min_length=1, max_length=100)]


class GameEvent(Model):
    hand: str
    data: Json
    visible_to: list[int] | None = None
    public: Json | None = None


class TableCreated(Model):
    table_id: str
    game: str
    options: Json
    created_by: str


class PlayerSeated(Model):
    seat: int
    player_id: str
    buy_in: Annotated[int, Field(ge=0)]
    age: int | None = None
    seed: str | None = None


class PlayerLeft(Model):
    seat: int
    player_id: str
    cash_out: Annotated[int, Field(ge=0)]


class HandBegan(Model):
    hand_id: str
    number: int
    seats: list[Json]
    commitment: str


class HandSettled(Model):
    hand_id: str
    postings: list[Json]


class SeedRevealed(Model):
    hand_id: str
    server_seed: str
    player_seeds: list[str]
    auditors_only: bool


class TableEnded(Model):
    reason: str


class DeadlineSet(Model):
    hand: str
    seat: int
    waiting_for: str
    deadline: Annotated[float, Field(allow_inf_nan=False)]


class SettlementClaimed(Model):
    hand_id: str
    table_id: str


MODELS: dict[str, type[Model]] = {
    "TreasurePosted": TreasurePosted, "PlayerRegistered": PlayerRegistered,
    "TableCreated": TableCreated, "PlayerSeated": PlayerSeated, "PlayerLeft": PlayerLeft,
    "HandBegan": HandBegan, "HandSettled": HandSettled, "SeedRevealed": SeedRevealed,
    "TableEnded": TableEnded, "DeadlineSet": DeadlineSet, "SettlementClaimed": SettlementClaimed,
    "GameEvent": GameEvent,
}
