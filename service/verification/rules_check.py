"""The rules check: every recorded command, decided again by the engine from the state before
it, gives exactly the events (and postings) that were recorded; the deal is `start` again."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from events.catalog import GAME_EVENT_PREFIX
from events.game_records import engine_event, record_data
from events.model import StoredEvent
from games.contract import Event, IllegalMove, Posting, SeatInfo
from projections.tables import TableRow
from service.verification.accounts import transfers
from service.verification.deck_check import material
from service.verification.findings import Check, failed, passed
from service.verification.hand_log import HandLog, is_game

UNREADABLE = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def batches(events: Sequence[StoredEvent]) -> Iterator[list[StoredEvent]]:
    """The hand's events grouped by the command (and request) that appended them together."""
    group: list[StoredEvent] = []
    key: bytes | None = None
    for e in events:
        k = orjson.dumps([e.metadata.get("request_id"), e.metadata.get("command")],
                         option=orjson.OPT_SORT_KEYS)
        if group and k != key:
            yield group
            group = []
        group.append(e)
        key = k
    if group:
        yield group


def _json(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value))


def as_recorded(hand: HandLog, event: Event) -> dict[str, Any]:
    """An engine event's record as stored, in its JSON form."""
    return _json({"type": GAME_EVENT_PREFIX + event.type, "data": record_data(hand.hand_id, event)})


def postings(hand: HandLog, moves: Sequence[Posting]) -> list[dict[str, Any]]:
    """Engine postings as the ledger records them, for this hand's line-up."""
    table = TableRow(hand.table_id, hand.game, hand.options, "playing", 0, seats=hand.seats,
                     hand_id=hand.hand_id, rules_version=hand.rules_version)
    return [{"from": t.from_account, "to": t.to_account, "amount": t.amount, "reason": t.reason,
             "table": t.table, "hand": t.hand} for t in transfers(table, moves)]


def decided(hand: HandLog, state: Any, command: dict[str, Any]) -> list[Event]:
    """The events the engine gives for a recorded command (IllegalMove if it refuses)."""
    engine, now = hand.engine, float(command["now"])
    if command["name"] == "OpenHand":
        seeds = material(hand)
        if seeds is None:
            raise IllegalMove("no_seed", "no server seed was recorded")
        seats = [SeatInfo(int(s["seat"]), s["player_id"], hand.seat_balances.get(s["player_id"], 0),
                          s.get("age"), s.get("seed")) for s in hand.seats]
        return engine.start(hand.options, seats, seeds, previous=hand.previous, now=now)
    if command["name"] == "TimeOut":
        return engine.decide(state, engine.timeout(state, now))
    if command["name"] == "Act":
        return engine.decide(state, engine.parse_action(int(command["seat"]), command["payload"], now))
    raise IllegalMove("unknown_command", f"no command {command['name']!r}")


def _compare(batch: list[StoredEvent], expected: list[dict[str, Any]],
             recorded: list[StoredEvent], what: str) -> Check | None:
    got = [{"type": e.type, "data": e.data} if what == "event" else e.data for e in recorded]
    for i, (want, have) in enumerate(zip(expected, got, strict=False)):
        if want != have:
            return failed("rules", recorded[i], f"the recorded {what} differs from the engine's",
                          recorded=have, decided=want)
    if len(expected) != len(got):
        at = recorded[len(expected)] if len(got) > len(expected) else batch[-1]
        return failed("rules", at, f"{len(got)} {what}s recorded, the engine gives {len(expected)}")
    return None


def _check_batch(hand: HandLog, state: Any, batch: list[StoredEvent]) -> Check | None:
    games = [e for e in batch if is_game(e)]
    command = batch[0].metadata.get("command")
    if not isinstance(command, dict):
        return failed("rules", games[0], "a game event no command explains") if games else None
    try:
        events = decided(hand, state, command)
    except IllegalMove as e:
        return failed("rules", games[0] if games else batch[0],
                      f"the engine refuses the recorded command: {e.code}", command=command)
    except UNREADABLE as e:
        return failed("rules", batch[0], f"the command cannot be read ({type(e).__name__})")
    ledger = [e for e in batch if e.type == "TreasurePosted"]
    moves = postings(hand, [p for e in events for p in e.postings])
    return (_compare(batch, [as_recorded(hand, e) for e in events], games, "event")
            or _compare(batch, moves, ledger, "posting"))


def rules_check(hand: HandLog) -> Check:
    """Decide every recorded command again and compare with what was recorded."""
    engine = hand.engine
    state = engine.initial_state(hand.options)
    commands = 0
    for batch in batches(hand.events):
        found = _check_batch(hand, state, batch)
        if found is not None:
            return found
        commands += isinstance(batch[0].metadata.get("command"), dict)
        for e in batch:
            if is_game(e):
                try:
                    state = engine.evolve(state, engine_event(e))
                except UNREADABLE as err:
                    return failed("rules", e, f"the event cannot be read ({type(err).__name__})")
    return passed("rules", commands_decided_again=commands, rules_version=hand.rules_version)
