"""Given-event builders for Pirate pairs tests: a table in any position, as a history."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.contract import Event, SeedMaterial
from games.pirate_pairs import ENGINE
from games.pirate_pairs import events as ev
from games.pirate_pairs.state import State
from tests.games import gwt

SEED_FILE = "002_ae078369b503c97e.txt"
MATERIAL = SeedMaterial("00" * 31 + "2a", ("alice", "bob"))


def table(
    hands: Mapping[int, Sequence[str]],
    rows: Mapping[int, Sequence[str]] | None = None,
    pile: Sequence[str] = (),
    discards: Sequence[str] = (),
    turn: int = 0,
    ages: Mapping[int, int | None] | None = None,
    out: Sequence[int] = (),
    stake: int = 0,
) -> list[Event]:
    """A plausible history leaving each seat with `hands` and face-up `rows`, `turn` to play.

    Each row's first card is the opening card; later row cards arrive as unpaired challenges,
    discards as paired ones, and seats in `out` are eliminated with whatever they hold.
    """
    rows = rows or {}
    seats = sorted(hands)
    for s in seats:
        assert rows.get(s), f"seat {s} needs an opening card in its row"
    extra = [c for s in seats for c in rows[s][1:]]
    full_pile = [*pile, *extra, *discards]
    seat_rows = [{"seat": s, "age": (ages or {}).get(s, 30)} for s in seats]
    events = [ev.hand_opened("c0ffee", MATERIAL, full_pile, seat_rows, stake, 0.0, ())]
    events += [ev.cards_dealt(s, [*hands[s], rows[s][0]]) for s in seats]
    events += [ev.opening_card_chosen(s, rows[s][0]) for s in seats]
    first = seats[0]
    events.append(ev.opening_cards_revealed([(s, rows[s][0]) for s in seats], first, 0.0))
    other = {s: seats[(i + 1) % len(seats)] for i, s in enumerate(seats)}
    events += [ev.player_challenged(other[s], s, c, False) for s in seats for c in rows[s][1:]]
    events += [ev.player_challenged(first, other[first], c, True) for c in discards]
    for s in out:
        events.append(ev.player_eliminated(s, "accused_rightly", [*hands[s], *rows[s]]))
    events.append(ev.turn_passed(turn, 0.0))
    return events


def state_of(events: Sequence[Event], options: Mapping[str, int] | None = None) -> State:
    """The state after `events`."""
    state = gwt.replay(ENGINE, options or {}, events)
    assert isinstance(state, State)
    return state


def types(events: Sequence[Event]) -> list[str]:
    """The event types, in order."""
    return [e.type for e in events]
