"""Siete y media (RULES.md §1b): announced stake, one hidden card, splits on figures, payouts."""

from __future__ import annotations

from typing import Any, ClassVar

import marshmallow

from games.contract import Event, GameInfo, IllegalMove, Json
from games.sevenhalf import banking, cards
from games.sevenhalf import events as ev
from games.sevenhalf.commands import AnnounceStake, Hit, SitOut, Split, TimeOut
from games.sevenhalf.options import SieteOptions
from games.sevenhalf.sette import SetteEngine, refuse_turn
from games.sevenhalf.settle import Claim
from games.sevenhalf.state import BANK, Announcing, Betting, Opening, Playing, State


class SieteEngine(SetteEngine):
    """Siete y media: Sette e mezzo's flow with the Spanish betting and payouts."""

    info = GameInfo("siete-y-media", "Siete y media", 2, 8,
                    {"seven_half_takes_bank": {"seven_half_takes_bank": True}},
                    "004_34f1b911eeb84e49.txt")
    options_schema: type[marshmallow.Schema] = SieteOptions
    kinds: ClassVar[tuple[str, ...]] = ("announce", "bet", "sit_out", "hit", "stand", "split")
    bet_seeds: ClassVar[bool] = False  # the cards are dealt before the bets

    def proceed(self, state: State, now: float) -> list[Event]:
        """The banker announces first; the deal follows the announcement."""
        match state.phase:
            case Opening():
                return [ev.turn_passed("announce", state.banker, now)]
            case Announcing():
                return self.deal(state, now) if state.stake else []
            case _:
                return super().proceed(state, now)

    def deal(self, state: State, now: float) -> list[Event]:
        """Who cannot cover the stake sits out; one card face down to the rest, banker last."""
        poor = [h.seat for h in state.hands if state.balances.get(h.seat, 0) < state.stake]
        dealt = [(i, h) for i, h in enumerate(state.hands) if h.seat not in poor]
        out = [ev.sat_out(seat) for seat in poor]
        if not dealt:
            return [*out, *self.finish(state)]
        out += [ev.card_dealt(h.seat, i, banking.top_card(state, k), False)
                for k, (i, h) in enumerate(dealt)]
        out.append(ev.card_dealt(state.banker, BANK, banking.top_card(state, len(dealt)), False))
        return [*out, ev.turn_passed("bet", dealt[0][1].seat, now, dealt[0][0])]

    def after_bets(self, state: State, now: float) -> list[Event]:
        """Play starts once every player has bet or sat out."""
        return self.next_player(state, 0, now)

    def act(self, state: State, command: Any) -> list[Event]:
        """The banker's announcement, then Sette e mezzo's turns."""
        phase = state.phase
        if not isinstance(phase, Announcing):
            return super().act(state, command)
        refuse_turn(state, command, phase.seat)
        lo, hi = int(state.options["min_bet"]), int(state.options["max_bet"])
        match command:
            case AnnounceStake(amount=amount) if lo <= amount <= hi:
                return [ev.stake_announced(phase.seat, amount)]
            case AnnounceStake():
                raise IllegalMove("bet_out_of_range", f"the stake is between {lo} and {hi}")
            case TimeOut():
                return [ev.stake_announced(phase.seat, lo, timeout=True)]
            case _:
                raise IllegalMove("wrong_phase", "the banker announces the stake")

    def bet_range(self, state: State, seat: int) -> tuple[int, int]:
        """Every bet is the announced stake."""
        return state.stake, state.stake

    def betting(self, state: State, command: Any) -> list[Event]:
        """Place the stake or sit out (a timeout sits out)."""
        if isinstance(command, SitOut):
            return [ev.sat_out(command.seat)]
        return super().betting(state, command)

    def can_split(self, state: State, index: int) -> bool:
        """A figure just drawn onto a first figure (no other card yet) may become a new bet."""
        hand = state.hands[index]
        mine = state.hands_of(hand.seat)
        return (mine[0][0] == index and len(hand.cards) == 2
                and all(cards.is_half(state.game, c) for c in hand.cards)
                and all(len(h.cards) == 1 for i, h in mine if i != index)
                and state.balances.get(hand.seat, 0) >= state.stake)

    def playing(self, state: State, index: int, command: Any) -> list[Event]:
        """Only one card is ever hidden: the next card is face down if none is; splits."""
        hand = state.hands[index]
        match command:
            case Hit():
                return banking.deal_to(state, index, hand, bool(hand.hidden))[0]
            case Split() if self.can_split(state, index):
                new = max(i for i, _ in state.hands_of(hand.seat)) + 1
                return [ev.hand_split(hand.seat, index, new, hand.cards[-1], state.stake)]
            case Split():
                raise IllegalMove("cannot_split", "only consecutive figures from the first split")
            case _:
                return super().playing(state, index, command)

    def actions(self, state: State, seat: int) -> list[Json]:
        """Announce, bet or sit out, hit, stand or split."""
        phase = state.phase
        match phase:
            case Announcing(seat=s) if s == seat:
                lo, hi = int(state.options["min_bet"]), int(state.options["max_bet"])
                return [{"type": "announce", "amount": {"min": lo, "max": hi}}]
            case Betting(seat=s) if s == seat:
                return [*super().actions(state, seat), {"type": "sit_out"}]
            case Playing(seat=s, index=i) if s == seat and self.can_split(state, i):
                return [*super().actions(state, seat), {"type": "split"}]
            case _:
                return super().actions(state, seat)

    def claims(self, state: State) -> tuple[list[Claim], list[Json]]:
        """The text's most common payouts; busts already paid the stake at once."""
        bank = cards.total(state.game, state.bank.cards)
        both = int(state.options["both_seven_half_pays"])
        claims, results = [], []
        for i, h in enumerate(state.hands):
            if h.stake == 0:
                continue
            t, s = cards.total(state.game, h.cards), h.stake
            if h.status == "bust":
                net = -s
            elif bank > cards.SEVEN_HALF:
                net = 2 * s if t == cards.SEVEN_HALF else s
            elif bank == cards.SEVEN_HALF:
                net = -(both * s if t == cards.SEVEN_HALF else 2 * s)
            elif t == cards.SEVEN_HALF:
                net = 2 * s
            else:
                net = s if t > bank else -s
            if h.status != "bust":
                claims.append(Claim(h.seat, s, net))
            outcome = "bust" if h.status == "bust" else "won" if net > 0 else "lost"
            results.append({"seat": h.seat, "index": i, "stake": s, "total": t,
                            "outcome": outcome, "net": net})
        return claims, results

    def next_banker(self, state: State) -> int:
        """The bank stays unless the local rule `seven_half_takes_bank` is on."""
        if state.options["seven_half_takes_bank"]:
            return super().next_banker(state)
        return state.banker


ENGINE = SieteEngine()
