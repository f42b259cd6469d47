"""What a settled hand had to pay, read game by game from the engine's own events, and the
money of the hand walked account by account; js/settlement.mjs is the same reading in Node.

The engine decides a hand's settlement in its own accounts (`seat:<n>`, `escrow`, `pot`): the
7½ family (Sette e mezzo, Siete y media, Casino pirate) in `HandEnded.postings`; Pirate pairs'
winner takes the pot `GameWon` names; Cassino's winning side splits the pot (the odd unit to its
lowest seat) once `RoundScored` names a winner, and a round no side won settles nothing. Banco's
ledger names those accounts `seat:<table>:<player>` (the player `HandBegan` seats there),
`escrow:<table>:<hand>` and `pot:<table>:pot`.
"""

from __future__ import annotations

import re
from typing import Any

SEVEN_HALF_FAMILY = ("sette-e-mezzo", "siete-y-media", "casino-pirate")
# The event of each game that decides what its settlement pays.
DECIDED_BY = {"sette-e-mezzo": "HandEnded", "siete-y-media": "HandEnded",
              "casino-pirate": "HandEnded", "pirate-pairs": "GameWon", "cassino": "RoundScored"}
SEAT = re.compile(r"seat:([0-9]{1,9})")


class Wrong(Exception):
    """The engine's events decide no settlement that can be paid."""


class Withheld(Exception):
    """The event that decides the settlement (its name) is withheld from this viewer."""


def whole(value: Any) -> int | None:
    """A whole number as JSON gives it (5 and 5.0 alike, as JavaScript reads them)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, float) and value.is_integer() else None


def _last(events: list[dict], type_: str) -> dict | None:
    found = [e for e in events if e["type"] == type_]
    if not found:
        return None
    if found[-1]["data"] is None:
        raise Withheld(type_)
    return found[-1]["data"]


def _cassino_pot(events: list[dict]) -> int:
    """The pot as the engine holds it: what the round opened with, and the stakes paid in."""
    pot = 0
    for e in events:
        if e["type"] in ("RoundStarted", "StakesPaid"):
            if e["data"] is None:
                raise Withheld(e["type"])
            amount = whole(e["data"]["pot"])
            if amount is None or amount < 0:
                raise Wrong(f"version {e['version']} ({e['type']}) names a pot of"
                            f" {e['data']['pot']!r}, not a whole amount")
            pot = amount if e["type"] == "RoundStarted" else pot + amount
    return pot


def decided(game: str, events: list[dict]) -> list[list[Any]] | None:
    """The settlement the engine decided, `[from, to, amount, reason]` in its accounts; None for
    a game whose settlement is not known here. Raises `Withheld`, or `Wrong`."""
    if game not in DECIDED_BY:
        return None
    by = DECIDED_BY[game]
    data = _last(events, by)
    if game in SEVEN_HALF_FAMILY:
        if data is None:
            raise Wrong("the hand is settled, but no HandEnded decided what it pays")
        plan = data["postings"]
        if not isinstance(plan, list) or not all(isinstance(p, list) and len(p) == 4 for p in plan):
            raise Wrong("HandEnded's postings are not a list of [from, to, amount, reason]")
        return [list(p) for p in plan]
    if game == "pirate-pairs":
        if data is None:
            raise Wrong("the hand is settled, but no GameWon names its winner")
        if whole(data["seat"]) is None:
            raise Wrong(f"GameWon names no seat: {describe(data['seat'])}")
        return [["pot", f"seat:{whole(data['seat'])}", data["pot"], "pot_won"]] if data["pot"] != 0 else []
    if data is None or data["winner"] is None:  # Cassino: no round scored, or no side won yet
        return []
    listed = data["winning_seats"]
    seats = sorted(n for s in (listed if isinstance(listed, list) else []) if (n := whole(s)) is not None)
    if not seats or len(seats) != len(listed):
        raise Wrong("RoundScored names a winner but no winning seats")
    share, odd = divmod(_cassino_pot(events), len(seats))
    amounts = [share + (odd if i == 0 else 0) for i in range(len(seats))]
    return [["pot", f"seat:{s}", a, "pot_won"] for s, a in zip(seats, amounts, strict=True) if a > 0]


def ledger_account(name: Any, table: str, hand: str, players: dict[int, Any]) -> str:
    """The ledger's name of an engine's account at this hand."""
    if name == "escrow":
        return f"escrow:{table}:{hand}"
    if name == "pot":
        return f"pot:{table}:pot"
    found = SEAT.fullmatch(name) if isinstance(name, str) else None
    if found is None:
        raise Wrong(f"the engine names an account {describe(name)}, none of the game's")
    seat = int(found.group(1))
    if seat not in players:
        raise Wrong(f"the engine pays {name}, where HandBegan seats nobody")
    return f"seat:{table}:{players[seat]}"


def describe(value: Any) -> str:
    """A posting (or a part of one) in words: `35 from A to B (reason)`."""
    if isinstance(value, dict):
        return (f"{describe(value.get('amount'))} from {describe(value.get('from'))} to"
                f" {describe(value.get('to'))} ({describe(value.get('reason'))})")
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    from banco_verifier.checks import canonical_json

    return canonical_json(value)


def opening(game: str, events: list[dict], table: str, hand: str,
            players: dict[int, Any]) -> dict[str, int]:
    """What each account the hand's money is walked in held at the deal, where the bundle says
    so: the hand's escrow nothing; Pirate pairs' pot nothing (each game stands alone), Cassino's
    what its round opened with; each seat of the 7½ family what the opening event gave it."""
    held = {f"escrow:{table}:{hand}": 0}
    first = next(iter(events), None)
    if game == "pirate-pairs":
        held[f"pot:{table}:pot"] = 0
    elif game == "cassino" and first is not None and first["type"] == "RoundStarted" \
            and first["data"] is not None:
        pot = whole(first["data"]["pot"])
        if pot is None or pot < 0:
            raise Wrong(f"RoundStarted names a pot of {describe(first['data']['pot'])}, not a whole amount")
        held[f"pot:{table}:pot"] = pot
    elif game in SEVEN_HALF_FAMILY and first is not None and first["type"] == "HandStarted" \
            and first["data"] is not None:
        for s in first["data"]["seats"]:
            seat, balance = whole(s["seat"]), whole(s["balance"])
            if seat is None or balance is None or balance < 0 or seat not in players:
                raise Wrong(f"HandStarted gives seat {describe(s['seat'])} a balance of"
                            f" {describe(s['balance'])}")
            held[f"seat:{table}:{players[seat]}"] = balance
    return held


# The engine's events that move money during the hand, game by game: each one's postings become
# the TreasurePosted events its command appends after its own events (js/settlement.mjs alike).
POSTS = {**{g: ("BetPlaced", "HandSplit", "StakeLost") for g in SEVEN_HALF_FAMILY},
         "cassino": ("StakesPaid",), "pirate-pairs": ("HandOpened",)}


def _seat(value: Any) -> str:
    n = whole(value)
    return f"seat:{describe(value) if n is None else n}"


def posts(game: str, type_: str, data: Any, seats: list[int]) -> list[list[Any]] | None:
    """What an engine event of the hand posts, `[from, to, amount, reason]` in the engine's
    accounts (as games/*/events.py give it); None for an event that posts nothing. `data` is
    the event's, or what a withheld one shows; `seats` the seats HandBegan lists."""
    if type_ not in POSTS.get(game, ()):
        return None
    if not isinstance(data, dict):
        raise Wrong(f"{type_} shows nothing of what it posts")
    if type_ in ("BetPlaced", "HandSplit"):
        return [[_seat(data.get("seat")), "escrow", data.get("amount"),
                 "bet" if type_ == "BetPlaced" else "split"]]
    if type_ == "StakeLost":
        return [["escrow", _seat(data.get("banker")), data.get("amount"), "bust"]]
    stake = data.get("stake")
    if type_ == "StakesPaid":  # every player pays the stake into the pot
        return [[f"seat:{s}", "pot", stake, "stake"] for s in sorted(seats)]
    listed = data.get("seats")  # HandOpened: every seat it lists pays the stake, if there is one
    if not isinstance(listed, list) or not all(isinstance(s, dict) for s in listed):
        raise Wrong("HandOpened lists no seats")
    ordered = sorted(n for s in listed if (n := whole(s.get("seat"))) is not None)
    return [] if stake == 0 else [[f"seat:{s}", "pot", stake, "stake"] for s in ordered]
