"""Turning a client's JSON action into a command, refusing malformed payloads."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from games.contract import IllegalMove
from games.sevenhalf import commands as c


def _int(payload: Mapping[str, Any], key: str) -> int:
    v = payload.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise IllegalMove("bad_action", f"'{key}' must be an integer")
    return v


def _str(payload: Mapping[str, Any], key: str) -> str:
    v = payload.get(key)
    if not isinstance(v, str):
        raise IllegalMove("bad_action", f"'{key}' must be a string")
    return v


SEED_LIMIT = 200  # characters, as a join's seed (service/http/table_schemas.py JoinSchema)


def _seed(payload: Mapping[str, Any]) -> str | None:
    v = payload.get("seed")
    if v is not None and not isinstance(v, str):
        raise IllegalMove("bad_action", "'seed' must be a string")
    if v is not None and len(v) > SEED_LIMIT:
        raise IllegalMove("bad_action", f"'seed' is at most {SEED_LIMIT} characters")
    return v


def _declare(payload: Mapping[str, Any]) -> dict[str, int]:
    v = payload.get("declare", {})
    if not isinstance(v, Mapping) or not all(
        isinstance(k, str) and isinstance(n, int) and not isinstance(n, bool) for k, n in v.items()
    ):
        raise IllegalMove("bad_action", "'declare' maps card ids to whole values")
    return dict(v)


PARSERS: dict[str, Callable[[int, Mapping[str, Any], float], Any]] = {
    "announce": lambda s, p, t: c.AnnounceStake(s, t, _int(p, "amount")),
    "bet": lambda s, p, t: c.PlaceBet(s, t, _int(p, "amount"), _seed(p)),
    "sit_out": lambda s, p, t: c.SitOut(s, t),
    "hit": lambda s, p, t: c.Hit(s, t),
    "stand": lambda s, p, t: c.Stand(s, t, _declare(p)),
    "split": lambda s, p, t: c.Split(s, t),
    "hide": lambda s, p, t: c.Hide(s, t, _str(p, "card")),
    "call": lambda s, p, t: c.Call(s, t, _int(p, "target")),
    "reveal": lambda s, p, t: c.Reveal(s, t, _declare(p)),
    "concede": lambda s, p, t: c.Concede(s, t),
    "declare": lambda s, p, t: c.Declare(s, t, _str(p, "card"), _int(p, "value")),
    "volunteer": lambda s, p, t: c.Volunteer(s, t),
}


def parse(kinds: Collection[str], seat: int, payload: Mapping[str, Any], now: float) -> Any:
    """The command for `payload` if its type is one of this game's `kinds`."""
    if not isinstance(payload, Mapping):
        raise IllegalMove("bad_action", "an action is a JSON object")
    kind = payload.get("type")
    if not isinstance(kind, str) or kind not in kinds:
        raise IllegalMove("bad_action", f"unknown action type {kind!r}: this game's are "
                                        + ", ".join(k for k in PARSERS if k in kinds))
    return PARSERS[kind](seat, payload, now)
