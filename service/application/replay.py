"""A hand step by step, each event with its cause and the state after it, as a caller may see it.

Everything shown goes through the engines' redaction for the seat the caller held in that hand
(`service.application.redaction`). A command's payload is shown as sent, except to the other seats
when it names what its sender keeps secret (an opening card chosen in secret, the card a Casino
pirate player keeps hidden): the game says which parameters do. Totals come with their display forms
(`total_display`: "7½" for 15 half-points), in the events' data and in the states alike.
"""

from __future__ import annotations

from typing import Any

import psycopg

from events.game_records import engine_event
from games.contract import GameInfo, Viewer
from service.application.principal import Principal
from service.application.redaction import Redactor, payload_shown
from service.verification.hand_log import HandLog, is_game


def _command(command: Any, viewer: Viewer, info: GameInfo) -> dict[str, Any] | None:
    """The command as an object, always: the workers record theirs by name alone (`SettleHand`),
    and a client reading `cause.command.name` must find it for every step."""
    if command is None:
        return None
    if not isinstance(command, dict):
        return {"name": str(command)}
    if payload_shown(command, viewer, info):
        return command
    return {k: v for k, v in command.items() if k != "payload"}


def _cause(metadata: dict[str, Any], viewer: Viewer, info: GameInfo) -> dict[str, Any]:
    return {"actor": metadata.get("actor"), "request_id": metadata.get("request_id"),
            "causation_id": metadata.get("causation_id"),
            "correlation_id": metadata.get("correlation_id"),
            "command": _command(metadata.get("command"), viewer, info)}


def steps(conn: psycopg.Connection, hand: HandLog, who: Principal, viewer: Viewer) -> list[dict[str, Any]]:
    """Every event of the hand in order with the state after it, for `viewer`."""
    engine = hand.engine
    redactor = Redactor(conn, who)
    state: Any = None
    out = []
    for number, stored in enumerate(hand.events, 1):
        shown = redactor.event(stored)
        if is_game(stored):
            # The display forms are made from the data as redacted for the caller, never before.
            shown = {**shown, "data": engine.readable(shown["data"])}
            state = engine.evolve(engine.initial_state(hand.options) if state is None else state,
                                  engine_event(stored))
        command = stored.metadata.get("command")
        timeout = shown["data"].get("timeout") is True or (
            isinstance(command, dict) and command.get("name") == "TimeOut")
        out.append({"step": number, **shown, "timeout": timeout,
                    "cause": _cause(stored.metadata, viewer, engine.info),
                    "state": None if state is None else engine.view(state, viewer)})
    return out
