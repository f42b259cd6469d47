"""Opening a round: the seeds, the stakes, the dealer (drawn, or passed left) and the deal."""

from __future__ import annotations

from collections.abc import Sequence

from games.cassino.cards import DECK, draw_rank
from games.cassino.events import (
    DEALER_CARDS_DRAWN,
    DEALER_CHOSEN,
    ROUND_STARTED,
    STAKES_PAID,
    cards_dealt,
    table_dealt,
)
from games.cassino.options import Options
from games.contract import Event, Posting, SeedMaterial
from games.deck import Card, commitment, shuffled

HAND = 4
PACKET = 2
MAX_DRAWS = 1000


def round_started(options: Options, players: int, round_no: int, scores: Sequence[int], pot: int,
                  material: SeedMaterial, deck: Sequence[Card], now: float) -> Event:
    """The opening event: the commitment is public; seeds and deck order are for auditors."""
    public = {"round": round_no, "players": players, "variant": options.variant,
              "stake": options.stake, "turn_timeout_s": options.turn_timeout_s,
              "scores": list(scores), "pot": pot, "opened_at": now,
              "commitment": commitment(material.server_seed)}
    secret = {**public, "server_seed": material.server_seed,
              "player_seeds": list(material.player_seeds), "deck": list(deck)}
    return Event(ROUND_STARTED, secret, frozenset(), public)


def stakes_paid(players: int, stake: int) -> Event:
    """Every player pays the stake into the pot when the first round opens."""
    postings = tuple(Posting(f"seat:{s}", "pot", stake, "stake") for s in range(players))
    return Event(STAKES_PAID, {"stake": stake, "pot": stake * players}, postings=postings)


def dealer_draw(material: SeedMaterial, players: int) -> list[Event]:
    """Each player draws a card, lowest deals; players tied for lowest draw again.

    Draw `n` takes cards from the top of the shuffle labelled `dealer-draw-<n>`, one per
    contender in seat order, so the whole draw replays from the seeds.
    """
    events = []
    contenders = list(range(players))
    for attempt in range(1, MAX_DRAWS + 1):
        order = shuffled(DECK, material, f"dealer-draw-{attempt}")
        drawn = list(zip(contenders, order, strict=False))
        low = min(draw_rank(card) for _, card in drawn)
        lowest = [seat for seat, card in drawn if draw_rank(card) == low]
        events.append(Event(DEALER_CARDS_DRAWN, {
            "attempt": attempt, "cards": [{"seat": s, "card": c} for s, c in drawn]}))
        contenders = lowest
        if len(lowest) == 1:
            break
    # After a thousand ties in a row (never seen in practice) the lowest tied seat deals.
    return [*events, dealer_chosen(contenders[0], "drawn")]


def dealer_chosen(dealer: int, how: str) -> Event:
    """The dealer of the round: `drawn` for the first round, `passed_left` afterwards."""
    return Event(DEALER_CHOSEN, {"dealer": dealer, "how": how})


def deal(stock: Sequence[Card], dealer: int, players: int, to_table: bool) -> list[Event]:
    """Four cards each, two at a time clockwise from the dealer's left, then four to the table."""
    events = []
    top = 0
    for _ in range(HAND // PACKET):
        for i in range(1, players + 1):
            seat = (dealer + i) % players
            events.append(cards_dealt(seat, stock[top:top + PACKET]))
            top += PACKET
    if to_table:
        events.append(table_dealt(stock[top:top + HAND]))
    return events


def open_round(options: Options, players: int, material: SeedMaterial, deck: Sequence[Card],
               now: float, previous_dealer: int | None = None, round_no: int = 1,
               scores: Sequence[int] | None = None, pot: int = 0) -> list[Event]:
    """Every event that opens a round with this deck order (first round when no dealer before)."""
    sides = 2 if players == 4 else players
    events = [round_started(options, players, round_no, scores or [0] * sides, pot, material,
                            deck, now)]
    if previous_dealer is None:
        if options.stake:
            events.append(stakes_paid(players, options.stake))
        events += dealer_draw(material, players)
        dealer = events[-1].data["dealer"]
    else:
        dealer = (previous_dealer + 1) % players
        events.append(dealer_chosen(dealer, "passed_left"))
    return events + deal(deck, dealer, players, to_table=True)


def shuffled_deck(material: SeedMaterial) -> tuple[Card, ...]:
    """The round's deck order."""
    return shuffled(DECK, material, "deck")
