"""The four moves of a turn (attack, challenge, accuse, draw), elimination and who plays next."""

from __future__ import annotations

from games import deck
from games.contract import Event, IllegalMove
from games.deck import Card
from games.frozen import replace
from games.pirate_pairs import events as ev
from games.pirate_pairs.state import Player, State, has_pair, makes_pair, rank


def target_of(state: State, seat: int, target: int) -> Player:
    """The player `seat` may aim at: another seat still in, or `IllegalMove`."""
    if not state.has_seat(target):
        raise IllegalMove("unknown_seat", f"no player at seat {target}")
    player = state.player(target)
    if target == seat or player.out:
        raise IllegalMove("bad_target", "the target must be another player still in")
    return player


def attack(state: State, seat: int, target: int, card: Card, now: float,
           timeout: bool = False) -> list[Event]:
    """Play a hand card before the target without pairing his face-up cards; he plays next."""
    victim = target_of(state, seat, target)
    if card not in state.player(seat).hand:
        raise IllegalMove("not_in_hand", "that card is not in your hand")
    if makes_pair(card, victim.row):
        raise IllegalMove("makes_pair", "that card pairs one of the target's face-up cards")
    return [ev.player_attacked(seat, target, card, timeout), ev.turn_passed(target, now)]


def challenge(state: State, seat: int, target: int, now: float) -> list[Event]:
    """The unseen top card lands before the target; a pair eliminates the challenger."""
    victim = target_of(state, seat, target)
    events, state = _top_up(state)
    card = state.pile[0]
    if not makes_pair(card, victim.row):
        return [*events, ev.player_challenged(seat, target, card, False),
                ev.turn_passed(target, now)]
    events.append(ev.player_challenged(seat, target, card, True))
    state = replace(state, pile=state.pile[1:], discards=(*state.discards, card))
    return events + _eliminate(state, seat, "paired_on_challenge", None, now)


def accuse(state: State, seat: int, target: int, now: float,
           timeout: bool = False) -> list[Event]:
    """The target shows his cards to the accuser alone; whoever was wrong is eliminated."""
    victim = target_of(state, seat, target)
    guilty = has_pair(victim.hand + victim.row)
    events = [ev.player_accused(seat, target, victim.hand, victim.row, guilty, timeout)]
    if guilty:
        # The accuser stays in, so the seat to his left is found among the remaining players.
        return events + _eliminate(state, target, "accused_rightly", None, now, after=seat)
    return events + _eliminate(state, seat, "accused_wrongly", target, now)


def draw(state: State, seat: int, now: float, timeout: bool = False) -> list[Event]:
    """Take the top card silently, pair or not; the player to the left plays next."""
    events, state = _top_up(state)
    events.append(ev.card_drawn(seat, state.pile[0], timeout))
    return [*events, ev.turn_passed(state.left_of(seat), now)]


def first_legal_attack(state: State, seat: int) -> tuple[int, Card] | None:
    """The timeout's fallback attack: targets clockwise from `seat`, hand cards lowest first."""
    hand = sorted(state.player(seat).hand, key=rank)
    target = seat
    for _ in range(len(state.still_in()) - 1):
        target = state.left_of(target)
        for card in hand:
            if not makes_pair(card, state.player(target).row):
                return target, card
    return None


def _top_up(state: State) -> tuple[list[Event], State]:
    """Reshuffle the discards into a new pile when the pile is empty (RULES.md §2 Decision)."""
    if state.pile:
        return [], state
    if not state.discards:
        raise IllegalMove("no_cards_to_draw", "the pile and the discards are both empty")
    assert state.material is not None
    number = state.reshuffles + 1
    pile = deck.shuffled(state.discards, state.material, label=f"reshuffle-{number}")
    state = replace(state, pile=pile, discards=(), reshuffles=number)
    return [ev.discards_reshuffled(number, pile)], state


def _eliminate(state: State, seat: int, reason: str, next_seat: int | None, now: float,
               after: int | None = None) -> list[Event]:
    """`seat` is out with his cards discarded face up; then `next_seat` plays, or the win.

    Without `next_seat`, the player to the left of `after` (default: the eliminated seat) plays.
    """
    p = state.player(seat)
    events = [ev.player_eliminated(seat, reason, p.hand + p.row)]
    state = state.with_player(replace(p, hand=(), row=(), out=True))
    remaining = state.still_in()
    if len(remaining) == 1:
        return [*events, ev.game_won(remaining[0], state.pot)]
    if next_seat is None:
        next_seat = state.left_of(seat if after is None else after)
    return [*events, ev.turn_passed(next_seat, now)]
