"""Fixed deals and play helpers shared by the Cassino tests (RULES.md §3)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from games.cassino import ENGINE
from games.cassino.cards import DECK
from games.cassino.opening import open_round
from games.cassino.options import load_options
from games.contract import Event, SeedMaterial
from tests.games.gwt import replay, when

SEED_FILE = "003_37d90c873e067319.txt"
MATERIAL = SeedMaterial("00" * 31 + "2a", ("ann", "bob"))


def fixed_deck(players: int, dealer: int, hands: Mapping[int, Sequence[str]],
               table: Sequence[str], stock: Sequence[str] = ()) -> list[str]:
    """A deck order that deals `hands` (4 each, in twos from the dealer's left) and `table`,
    then `stock` on top of the remaining cards in deck order."""
    order: list[str] = []
    for packet in (0, 1):
        for i in range(1, players + 1):
            seat = (dealer + i) % players
            order += list(hands[seat][2 * packet:2 * packet + 2])
    order += list(table) + list(stock)
    order += [c for c in DECK if c not in order]
    assert sorted(order) == sorted(DECK), "a fixed deck must use each card once"
    return order


def opening(hands: Mapping[int, Sequence[str]], table: Sequence[str], stock: Sequence[str] = (),
            players: int = 2, dealer: int = 0, variant: str = "classic", stake: int = 0,
            scores: Sequence[int] | None = None, pot: int = 0) -> list[Event]:
    """The events opening a round with a fixed deal, `dealer` dealing."""
    deck = fixed_deck(players, dealer, hands, table, stock)
    return opening_from_deck(deck, players, dealer, variant, stake, scores, pot)


def opening_from_deck(deck: Sequence[str], players: int = 2, dealer: int = 0,
                      variant: str = "classic", stake: int = 0,
                      scores: Sequence[int] | None = None, pot: int = 0) -> list[Event]:
    """The events opening a (second) round dealt from `deck`, `dealer` dealing."""
    options = load_options({"variant": variant, "stake": stake})
    return open_round(options, players, MATERIAL, deck, 0.0, (dealer - 1) % players, 2, scores,
                      pot)


def options(variant: str = "classic") -> dict[str, Any]:
    """Table options for the engine's `initial_state`."""
    return {"variant": variant}


def act(given: list[Event], seat: int, action: Mapping[str, Any],
        variant: str = "classic") -> list[Event]:
    """The events of a client action by `seat` after `given` (given/when/then)."""
    return when(ENGINE, options(variant), given, ENGINE.parse_action(seat, action, 1.0))


def play(given: list[Event], script: Iterable[tuple[int, Mapping[str, Any]]],
         variant: str = "classic") -> list[Event]:
    """`given` followed by the events of each scripted action in turn."""
    events = list(given)
    for seat, action in script:
        events += act(events, seat, action, variant)
    return events


def state_after(events: Iterable[Event], variant: str = "classic") -> Any:
    """The state after events."""
    return replay(ENGINE, options(variant), events)


def types(events: Iterable[Event]) -> list[str]:
    """The event types, in order."""
    return [e.type for e in events]


def capture(card: str, *take: str) -> dict[str, Any]:
    """A capture action."""
    return {"type": "capture", "card": card, "take": list(take)}


def build(card: str, value: int, *onto: str) -> dict[str, Any]:
    """A build action."""
    return {"type": "build", "card": card, "onto": list(onto), "value": value}


def reserve(card: str, value: int, *onto: str) -> dict[str, Any]:
    """A reserve action."""
    return {"type": "reserve", "card": card, "onto": list(onto), "value": value}


def extend(card: str, build_id: str, value: int) -> dict[str, Any]:
    """An extend action."""
    return {"type": "extend", "card": card, "build": build_id, "value": value}


def trail(card: str) -> dict[str, Any]:
    """A trail action."""
    return {"type": "trail", "card": card}
