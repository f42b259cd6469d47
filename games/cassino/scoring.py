"""Round scores by side and the end of the game."""

from __future__ import annotations

from collections.abc import Sequence

from games.cassino.cards import BIG_CASINO, JACK_OF_SPADES, LITTLE_CASINO, is_spade, rank
from games.cassino.state import State
from games.contract import Json
from games.deck import Card

MOST_CARDS = 27  # of 52: a majority; 26-26 scores nothing
MOST_SPADES = 7  # of 13


def side_points(cards: Sequence[Card], sweeps: int, variant: str) -> dict[str, int]:
    """One side's points for the round, by category, with their `total`."""
    spades = [c for c in cards if is_spade(c)]
    points = {
        "sweeps": sweeps,
        "aces": sum(1 for c in cards if rank(c) == "A"),
        "little_casino": 1 if LITTLE_CASINO in cards else 0,
        "big_casino": 2 if BIG_CASINO in cards else 0,
        "most_cards": 3 if len(cards) >= MOST_CARDS else 0,
        "most_spades": 1 if len(spades) >= MOST_SPADES else 0,
    }
    if variant == "spades":
        # Spades cassino adds, on top of the rest: jack and two of spades 2, every other spade 1.
        doubled = (JACK_OF_SPADES, LITTLE_CASINO)
        points["spade_bonus"] = sum(2 if c in doubled else 1 for c in spades)
    points["total"] = sum(points.values())
    return points


def round_scores(state: State) -> list[Json]:
    """Each side's seats, cards taken and points for the round just played."""
    out = []
    for side in range(state.sides):
        seats = state.seats_of(side)
        cards = [c for s in seats for c in state.captured[s]]
        sweeps = sum(state.sweeps[s] for s in seats)
        out.append({"side": side, "seats": list(seats), "cards": len(cards),
                    "spades": sum(1 for c in cards if is_spade(c)),
                    "points": side_points(cards, sweeps, state.options.variant)})
    return out


def game_winner(totals: Sequence[int], target: int) -> int | None:
    """The side that wins: the highest total once someone reaches the target, unless tied."""
    top = max(totals)
    if top < target or list(totals).count(top) > 1:
        return None
    return list(totals).index(top)


def round_scored(state: State) -> Json:
    """The data of the `RoundScored` event for a state whose cards are all taken."""
    scores = round_scores(state)
    totals = [before + s["points"]["total"] for before, s in zip(state.scores, scores, strict=True)]
    winner = game_winner(totals, state.options.target)
    return {"round": state.round, "sides": scores, "totals": totals, "winner": winner,
            "winning_seats": list(state.seats_of(winner)) if winner is not None else []}
