"""Closing hands and tables: settlement of a finished hand, and the end of a table.

Shares `service.application.handlers`' lock order: nothing locks the table's row before appending (the
stream's lock comes first, inside `banco_append`), so no writer can deadlock another.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from events.catalog import GAME_EVENT_PREFIX
from events.model import NewEvent
from projections import tables
from projections.tables import TableRow
from service.application.commands import EndTable, SettleHand
from service.application.errors import Conflict
from service.application.handlers import (
    cash_out,
    engine_of,
    events_after,
    flush,
    found,
    load,
    record,
    stream,
    transfers,
)
from service.application.unit_of_work import UnitOfWork


def settle_hand(uow: UnitOfWork, command: SettleHand, metadata: dict[str, Any]) -> bool:
    return settle(uow, command.table_id, command.hand_id, metadata)


def end_table(uow: UnitOfWork, command: EndTable, metadata: dict[str, Any]) -> bool:
    """End an open table (between hands); False, and nothing written, when it is not open (or,
    with `command.refuse`, the refusal saying why)."""
    uow.queue_behind(stream(command.table_id))
    table = uow.table(command.table_id)
    if command.refuse:
        table = found(table, command.table_id)
        if table.status == "over":
            raise Conflict("table_over", "the table is already over")
        if table.status != "open":
            raise Conflict("hand_in_play", "a table closes between hands")
    if table is None or table.status != "open":
        return False
    end(uow, table, command.reason, metadata)
    return True


def settle(uow: UnitOfWork, table_id: str, hand_id: str, metadata: dict[str, Any]) -> bool:
    """Pay out a finished hand; False (and nothing written) when it is not waiting to settle."""
    # No lock on the table's row before appending: every writer takes the stream's lock first
    # (in banco_append) and the row's after, so none can deadlock another; a concurrent second
    # settlement fails on the settlement stream below instead.
    table = load(uow, table_id)
    if table.status != "settling" or table.hand_id != hand_id:
        return False
    # The hand's settlement stream can be created once: a unique key in the event store itself.
    uow.append(f"settlement-{hand_id}", [NewEvent("SettlementClaimed", {
        "hand_id": hand_id, "table_id": table_id}, metadata)], 0)
    engine = engine_of(table)
    postings = engine.settle(table.state)
    moves = transfers(table, postings)
    hand = uow.hand(hand_id)  # the claim written first: a second settlement stops there
    assert hand is not None
    seeds = _seeds(uow, table_id, hand["first_version"])
    events = [
        NewEvent("HandSettled", {"hand_id": hand_id, "postings": [
            {"from": t.from_account, "to": t.to_account, "amount": t.amount, "reason": t.reason}
            for t in moves]}, metadata),
        NewEvent("SeedRevealed", {
            "hand_id": hand_id, "server_seed": seeds["server_seed"],
            "player_seeds": list(seeds.get("player_seeds", [])),
            "auditors_only": engine.info.extra.get("seed_reveal") == "auditors"}, metadata),
    ]
    record(uow, table, events, moves, metadata)
    settled = flush(uow)[0]
    table.status = "open"
    table.turn = None
    uow.hand_status(hand_id, "settled", postings=events[0].data["postings"],
                    at=settled.recorded_at)
    if engine.table_over(table.state, time.time()):
        # The table ends once the hand's own postings have landed (and `end` saves it).
        end(uow, table, "game_over", metadata)
    else:
        uow.save(table, metadata.get("actor"))
        flush(uow)
    return True


# The engine events that may come between a hand's opening and its DeckShuffled.
BETTING = frozenset({"TurnPassed", "BetPlaced", "SatOut"})


def _seeds(uow: UnitOfWork, table_id: str, first_version: int) -> dict[str, Any]:
    """The seeds the hand was dealt with, from the engine's event that carries them: one of the
    hand's first, so it is read a few events at a time, from the hand's start (the cost grows
    neither with the table's history nor with the hand's length)."""
    # After HandBegan (at `first_version`); the engine's events follow it. Sette e mezzo shuffles
    # again once the bets are down when a bet carried a seed (DeckShuffled, every player seed):
    # it comes before any card, so the reading stops at the first event that is no bet's.
    seeds: dict[str, Any] | None = None
    for e in events_after(uow, table_id, first_version, page=4):
        if not e.type.startswith(GAME_EVENT_PREFIX):
            continue
        kind, data = e.type[len(GAME_EVENT_PREFIX):], e.data["data"]
        if seeds is None and "server_seed" in data:
            seeds = dict(data)
        elif seeds is not None and kind == "DeckShuffled":
            return {**seeds, "player_seeds": list(data["player_seeds"])}
        elif seeds is not None and kind not in BETTING:
            return seeds
    if seeds is not None:
        return seeds
    raise LookupError(f"no seeds recorded for the hand at version {first_version}")


def end(uow: UnitOfWork, table: TableRow, reason: str, metadata: dict[str, Any]) -> None:
    """End the table: what the game still holds goes back to the seats that paid it (a Cassino
    game's pot, closed before it is won), and every seat is cashed out to its player's wallet."""
    if table.state is not None:
        # Of the game, not of its last hand: a posting naming a hand would be read as that
        # hand's settlement.
        returned = [replace(t, hand=None) for t in
                    transfers(table, engine_of(table).refund(table.state))]
        if returned:
            record(uow, table, [], returned, metadata)
    players = [s["player_id"] for s in table.seats]
    left, cash = cash_out(uow, table, players, metadata)
    record(uow, table, [*left, NewEvent("TableEnded", {"reason": reason}, metadata)], cash,
           metadata)
    for player_id in players:
        tables.unseat(table, player_id)
    table.status = "over"
    table.deadline = None
    uow.save(table, metadata.get("actor"))
    flush(uow)
