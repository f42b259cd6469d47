"""Opening a hand: stakes, the seeded deal and the simultaneous choice of opening cards."""

from __future__ import annotations

from collections.abc import Sequence

from games import deck
from games.contract import Event, IllegalMove, Posting, SeatInfo, SeedMaterial
from games.deck import Card
from games.pirate_pairs import events as ev
from games.pirate_pairs.options import MAX_PLAYERS, MIN_PLAYERS, Options
from games.pirate_pairs.state import Choosing, State, rank, value

HAND_SIZE = 3


def open_hand(options: Options, seats: Sequence[SeatInfo], material: SeedMaterial,
              now: float) -> list[Event]:
    """Collect every stake into the pot, then deal three cards to each player, one at a time."""
    ordered = sorted(seats, key=lambda s: s.seat)
    if not MIN_PLAYERS <= len(ordered) <= MAX_PLAYERS:
        raise IllegalMove("bad_player_count",
                          f"pirate pairs needs {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if len({s.seat for s in ordered}) != len(ordered):
        raise IllegalMove("duplicate_seat", "a seat appears twice")
    for s in ordered:
        # Refusing the whole start keeps the pot equal to stake x players, as the rule says.
        if s.balance < options.stake:
            raise IllegalMove("insufficient_balance", f"seat {s.seat} cannot pay the stake")
    postings = tuple(Posting(f"seat:{s.seat}", "pot", options.stake, "stake")
                     for s in ordered if options.stake > 0)
    pile = deck.shuffled(deck.pirate_pairs_55(), material, label="deck")
    seat_rows = [{"seat": s.seat, "age": s.age} for s in ordered]
    opened = ev.hand_opened(deck.commitment(material.server_seed), material, pile, seat_rows,
                            options.stake, now, postings)
    n = len(ordered)
    # Round-robin dealing: the k-th card of seat i is pile position k * n + i.
    dealt = [ev.cards_dealt(s.seat, [pile[k * n + i] for k in range(HAND_SIZE)])
             for i, s in enumerate(ordered)]
    return [opened, *dealt]


def lowest(cards: Sequence[Card]) -> Card:
    """The lowest card (by value, then by copy number): the timeout's opening choice."""
    return min(cards, key=rank)


def first_player(state: State, choices: Sequence[tuple[int, Card]]) -> int:
    """The seat with the lowest opening card; ties to the oldest, then the lowest seat."""

    def order(choice: tuple[int, Card]) -> tuple[int, int, int]:
        seat, card = choice
        age = state.player(seat).age
        # A player who gave no age ranks as the youngest.
        return (value(card), -(age if age is not None else -1), seat)

    return min(choices, key=order)[0]


def choose(state: State, phase: Choosing, seat: int, card: Card, now: float) -> list[Event]:
    """`seat` picks `card`; the last choice turns every choice face up."""
    player = state.player(seat)
    if phase.choice(seat) is not None:
        raise IllegalMove("already_chosen", "you have already chosen your opening card")
    if card not in player.hand:
        raise IllegalMove("not_in_hand", "that card is not in your hand")
    events = [ev.opening_card_chosen(seat, card)]
    return events + _reveal_if_complete(state, (*phase.chosen, (seat, card)), now)


def choose_on_timeout(state: State, phase: Choosing, now: float) -> list[Event]:
    """Every player who has not chosen plays his lowest card, then all are revealed."""
    chosen = list(phase.chosen)
    events = []
    for p in state.players:
        if phase.choice(p.seat) is None:
            card = lowest(p.hand)
            events.append(ev.opening_card_chosen(p.seat, card, timeout=True))
            chosen.append((p.seat, card))
    return events + _reveal_if_complete(state, tuple(chosen), now)


def _reveal_if_complete(state: State, chosen: tuple[tuple[int, Card], ...],
                        now: float) -> list[Event]:
    if len(chosen) < len(state.players):
        return []
    choices = sorted(chosen)
    return [ev.opening_cards_revealed(choices, first_player(state, choices), now)]

