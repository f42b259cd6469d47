"""Pieces Sette e mezzo and Siete y media share: drawing, bust and 7½ checks, the bank's turn."""

from __future__ import annotations

from games.contract import Event, IllegalMove
from games.sevenhalf import cards
from games.sevenhalf import events as ev
from games.sevenhalf.state import BANK, Hand, State


def top_card(state: State, offset: int = 0) -> str:
    """The next card of the deck, or IllegalMove when none is left."""
    if state.drawn + offset >= len(state.deck):
        raise IllegalMove("no_cards_to_draw", "the deck is empty")
    return state.deck[state.drawn + offset]


def checks(state: State, index: int, hand: Hand) -> list[Event]:
    """Over 7½ a hand shows all and (a player) loses his stake at once; at 7½ it shows and stops."""
    t = cards.total(state.game, hand.cards, hand.declared)
    if t > cards.SEVEN_HALF:
        out = [ev.cards_shown(hand.seat, index, hand.cards, "bust")]
        if index != BANK and hand.stake:
            out.append(ev.stake_lost(hand.seat, index, hand.stake, state.banker))
        return out
    if t == cards.SEVEN_HALF:
        return [ev.cards_shown(hand.seat, index, hand.cards, "seven_half")]
    return []


def deal_to(state: State, index: int, hand: Hand, face_up: bool, offset: int = 0,
            timeout: bool = False) -> tuple[list[Event], Hand]:
    """One card to `hand` (number `index`) with the checks it triggers, and the hand after it."""
    card = top_card(state, offset)
    after = hand.with_card(card, face_up)
    dealt = ev.card_dealt(hand.seat, index, card, face_up, timeout)
    return [dealt, *checks(state, index, after)], after


def bank_timeout(state: State) -> list[Event]:
    """The banker's policy on timeout: draw while under `banker_stand_at`, then stand."""
    out: list[Event] = []
    hand = state.bank
    limit = 2 * int(state.options["banker_stand_at"])
    offset = 0
    while (cards.total(state.game, hand.cards, hand.declared) < limit
           and state.drawn + offset < len(state.deck)):
        more, hand = deal_to(state, BANK, hand, True, offset, timeout=True)
        out += more
        offset += 1
        if cards.total(state.game, hand.cards, hand.declared) >= cards.SEVEN_HALF:
            return out
    return [*out, ev.stood(hand.seat, BANK, timeout=True)]


def first_open(state: State, start: int = 0) -> int | None:
    """The index of the next hand still to play, from `start`."""
    for i in range(start, len(state.hands)):
        h = state.hands[i]
        if h.status == "open" and h.stake > 0:
            return i
    return None


def still_in(state: State) -> list[tuple[int, Hand]]:
    """The staked hands that neither busted nor sat out."""
    return [(i, h) for i, h in enumerate(state.hands)
            if h.stake > 0 and h.status in ("stood", "seven_half", "open")]


def showdown(state: State) -> list[Event]:
    """Hands still in show their hidden cards so the comparison is public."""
    return [ev.cards_shown(h.seat, i, h.cards, "showdown") for i, h in still_in(state) if h.hidden]


def seven_half_seat(state: State) -> int | None:
    """The first player in play order whose hand reached 7½."""
    for h in state.hands:
        if h.stake > 0 and h.status == "seven_half":
            return h.seat
    return None
