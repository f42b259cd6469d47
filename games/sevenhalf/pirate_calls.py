"""Casino pirate's showdown: the meneur draws, declares skeletons and calls players one by one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games.contract import Event, IllegalMove, Json
from games.frozen import replace
from games.sevenhalf import banking, cards
from games.sevenhalf import events as ev
from games.sevenhalf.commands import Call, Concede, Declare, Hit, Reveal, TimeOut
from games.sevenhalf.settle import Claim, closing_events
from games.sevenhalf.state import BANK, Answering, Banking, Hand, State

DECIDED = ("won", "lost")
JOKER_RANGE = {"min": cards.JOKER_MIN, "max": cards.JOKER_MAX}


def undeclared(state: State, hand: Hand) -> list[str]:
    """The skeletons of a hand whose value is still open."""
    return [c for c in hand.cards if cards.is_joker(state.game, c) and c not in hand.declared]


def check_declare(state: State, hand: Hand, declare: Mapping[str, int]) -> None:
    """IllegalMove unless every declaration names one's own open skeleton and a value 1..7."""
    free = undeclared(state, hand)
    for card, value in declare.items():
        if card not in free:
            raise IllegalMove("bad_declaration", "declare only your own undeclared skeletons")
        if not cards.JOKER_MIN <= value <= cards.JOKER_MAX:
            raise IllegalMove("bad_declaration", "a skeleton is worth 1 to 7")


def with_declare(action: Json, state: State, hand: Hand) -> Json:
    """`action` offering an optional value for each open skeleton of `hand`."""
    free = undeclared(state, hand)
    return {**action, "declare": {c: dict(JOKER_RANGE) for c in free}} if free else action


def bank_total(state: State, bank: Hand | None = None) -> int:
    """The meneur's total, open skeletons at their best."""
    bank = bank or state.bank
    return cards.total(state.game, bank.cards, bank.declared)


def targets(state: State) -> list[int]:
    """Players the meneur may still call, clockwise from his left."""
    return [h.seat for h in state.hands
            if h.stake > 0 and h.status == "stood" and h.seat not in state.called]


def may_call(state: State) -> bool:
    """The meneur turns up a card before his first call (unless the deck is empty)."""
    return bool(state.bank.cards) or state.remaining == 0


def bust(state: State, bank: Hand) -> list[Event]:
    """A meneur over 7½ is bust: the hand ends and uncalled players are paid."""
    if bank_total(state, bank) > cards.SEVEN_HALF:
        return [ev.cards_shown(bank.seat, BANK, bank.cards, "bust", bank.declared)]
    return []


def meneur_actions(state: State) -> list[Json]:
    """Draw, declare a skeleton, call a player."""
    out: list[Json] = [{"type": "hit"}] if state.remaining > 0 else []
    free = undeclared(state, state.bank)
    out += [{"type": "declare", "card": c, "value": dict(JOKER_RANGE)} for c in free]
    if may_call(state):
        out += [{"type": "call", "target": seat} for seat in targets(state)]
    return out


def meneur(state: State, command: Any) -> list[Event]:
    """The meneur's turn: all his cards face up; on timeout the banker policy, then a call."""
    bank = state.bank
    match command:
        case Hit():
            card = banking.top_card(state)
            return [ev.card_dealt(bank.seat, BANK, card, True),
                    *bust(state, bank.with_card(card, True))]
        case Declare(card=card, value=value):
            check_declare(state, bank, {card: value})
            after = replace(bank, declared={**bank.declared, card: value})
            return [ev.skeleton_declared(bank.seat, BANK, card, value), *bust(state, after)]
        case Call(target=target) if may_call(state) and target in targets(state):
            return [ev.player_called(bank.seat, target)]
        case Call():
            raise IllegalMove("bad_target", "call a player who stood and was not called yet")
        case TimeOut():
            return _policy(state)
        case _:
            raise IllegalMove("wrong_phase", "the meneur draws, declares or calls")


def _policy(state: State) -> list[Event]:
    out: list[Event] = []
    bank = state.bank
    limit = 2 * int(state.options["banker_stand_at"])
    while bank_total(state, bank) < limit and state.drawn + len(out) < len(state.deck):
        card = banking.top_card(state, len(out))
        bank = bank.with_card(card, True)
        out.append(ev.card_dealt(bank.seat, BANK, card, True, timeout=True))
    if over := bust(state, bank):
        return [*out, *over]
    return [*out, ev.player_called(bank.seat, targets(state)[0], timeout=True)]


def picked(state: State, bank: Hand) -> tuple[list[Event], Hand]:
    """Rules version 3: the meneur's open skeletons fixed at the values giving his best total
    now, as he acts on without declaring them (RULES.md §1c: he declares a skeleton when it is
    turned up; undeclared, the engine picks its best value). A value fixed so holds for the rest
    of the hand: one skeleton may not be worth 7 for one call and 2 for the next draw."""
    values = cards.best_values(state.game, bank.cards, bank.declared)
    events = [ev.skeleton_declared(bank.seat, BANK, card, value, picked=True)
              for card, value in values.items()]
    return events, replace(bank, declared={**bank.declared, **values})


def fixed_meneur(state: State, command: Any) -> list[Event]:
    """The meneur's turn under rules version 3: a skeleton he turned up may be declared until
    his next draw or call; that draw or call (or his timeout) first fixes it at its best."""
    match command:
        case TimeOut():
            return _fixed_policy(state)
        case Hit() | Call():
            fixed, bank = picked(state, state.bank)
            if not fixed:
                return meneur(state, command)
            return [*fixed, *meneur(state.with_hand(BANK, bank), command)]
        case _:
            return meneur(state, command)


def _fixed_policy(state: State) -> list[Event]:
    """The banker policy of version 3: each skeleton fixed at its best as it is turned up."""
    out, bank = picked(state, state.bank)
    limit = 2 * int(state.options["banker_stand_at"])
    drawn = 0
    while bank_total(state, bank) < limit and state.drawn + drawn < len(state.deck):
        card = banking.top_card(state, drawn)
        drawn += 1
        bank = bank.with_card(card, True)
        out.append(ev.card_dealt(bank.seat, BANK, card, True, timeout=True))
        fixed, bank = picked(state, bank)
        out += fixed
    if over := bust(state, bank):
        return [*out, *over]
    return [*out, ev.player_called(bank.seat, targets(state)[0], timeout=True)]


def answer(state: State, command: Any) -> list[Event]:
    """A called player reveals (also on timeout) or concedes without showing."""
    index, hand = state.hands_of(command.seat)[0]
    base: Json = {"seat": hand.seat, "index": index, "stake": hand.stake,
                  "meneur_total": bank_total(state)}
    match command:
        case Reveal(declare=declare):
            check_declare(state, hand, declare)
            return _reveal(state, index, hand, declare, base, timeout=False)
        case TimeOut():
            return _reveal(state, index, hand, {}, base, timeout=True)
        case Concede():
            return [ev.call_decided({**base, "outcome": "lost", "net": -hand.stake,
                                     "conceded": True, "seven_half": False, "total": None,
                                     "timeout": False})]
        case _:
            raise IllegalMove("wrong_phase", "reveal or concede")


def _reveal(state: State, index: int, hand: Hand, declare: Mapping[str, int], base: Json,
            timeout: bool) -> list[Event]:
    declared = {**hand.declared, **declare}
    values = {**declared, **cards.best_values(state.game, hand.cards, declared)}
    t, m = cards.total(state.game, hand.cards, values), int(base["meneur_total"])
    won = t <= cards.SEVEN_HALF and t > m
    first = t == cards.SEVEN_HALF and state.first_seven_half is None
    net = (2 if won and first else 1) * hand.stake * (1 if won else -1)
    return [ev.cards_shown(hand.seat, index, hand.cards, "called", values),
            ev.call_decided({**base, "outcome": "won" if won else "lost", "net": net,
                             "conceded": False, "seven_half": t == cards.SEVEN_HALF,
                             "total": t, "timeout": timeout})]


def proceed(state: State, now: float, finish: Callable[[State], list[Event]]) -> list[Event]:
    """After the meneur's move: answer a call, come back to the meneur, or end the hand."""
    staked = [(i, h) for i, h in enumerate(state.hands) if h.stake > 0]
    if state.bank.status == "bust" or all(h.status in DECIDED for _, h in staked):
        return finish(state)
    phase = state.phase
    if isinstance(phase, Banking):
        for i, h in staked:
            if h.seat in state.called and h.status not in DECIDED:
                return [ev.turn_passed("answer", h.seat, now, i)]
        return []
    if isinstance(phase, Answering) and state.hands_of(phase.seat)[0][1].status in DECIDED:
        return [ev.turn_passed("bank", state.banker, now)]
    return []


def finish(state: State) -> list[Event]:
    """Calls settle as decided; a busted meneur pays every uncalled player his stake."""
    decided = {int(r["index"]): int(r["net"]) for r in state.results}
    claims: list[Claim] = []
    results: list[Json] = [dict(r) for r in state.results]
    for i, h in enumerate(state.hands):
        if not h.stake:
            continue
        if i in decided:
            claims.append(Claim(h.seat, h.stake, decided[i]))
        else:
            claims.append(Claim(h.seat, h.stake, h.stake))
            results.append({"seat": h.seat, "index": i, "stake": h.stake, "outcome": "won",
                            "net": h.stake, "uncalled": True})
    results.append({"seat": state.banker, "index": BANK, "total": bank_total(state),
                    "banker": True})
    return closing_events(state.banker, claims, state.balances, results, state.first_seven_half)
