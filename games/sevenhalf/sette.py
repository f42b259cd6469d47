"""Sette e mezzo (RULES.md §1a): bets before the deal, counter-clockwise play, banker last."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, assert_never

import marshmallow

from games import deck
from games.contract import Event, GameInfo, IllegalMove, Json, SeatInfo, SeedMaterial
from games.sevenhalf import banking, cards
from games.sevenhalf import events as ev
from games.sevenhalf.commands import Hit, PlaceBet, Stand, TimeOut
from games.sevenhalf.engine import FamilyEngine, fold
from games.sevenhalf.options import SetteOptions
from games.sevenhalf.settle import Claim, closing_events
from games.sevenhalf.state import (
    BANK,
    Announcing,
    Answering,
    Banking,
    Betting,
    Ended,
    Opening,
    Playing,
    State,
)


def refuse_turn(state: State, command: Any, seat: int) -> None:
    """IllegalMove unless `command` comes from `seat`."""
    if command.seat != seat:
        raise IllegalMove("not_your_turn", "it is another seat's turn")


def _kept_banker(seats: Sequence[SeatInfo], previous: State | None) -> int | None:
    """The previous hand's next banker, else its banker, if still seated."""
    numbers = {s.seat for s in seats}
    if isinstance(previous, State):
        for seat in (previous.next_banker, previous.banker):
            if seat in numbers:
                return int(seat)
    return None


class SetteEngine(FamilyEngine):
    """Sette e mezzo, and the base Siete y media builds on."""

    info = GameInfo("sette-e-mezzo", "Sette e mezzo", 2, 12,
                    {"banker:seat0": {"banker": "seat0"}, "banker:lot": {"banker": "lot"}},
                    "001_6b5bbd2473d5c47f.txt")
    options_schema: type[marshmallow.Schema] = SetteOptions
    kinds: ClassVar[tuple[str, ...]] = ("bet", "hit", "stand")
    bet_seeds: ClassVar[bool] = True

    def pick_banker(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
                    material: SeedMaterial, previous: State | None) -> int:
        """The previous hand's next banker, else its banker (the one it named has left), else
        seat 0 (lowest), or a seeded lot."""
        numbers = sorted(s.seat for s in seats)
        kept = _kept_banker(seats, previous)
        if kept is not None:
            return kept
        if options["banker"] == "lot":
            return int(deck.shuffled([str(n) for n in numbers], material, "banker")[0])
        return numbers[0]

    def banker_drawn(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
                     previous: State | None) -> bool:
        """The table's first banker, or one named by a hand whose bankers have both left, when
        the table draws its banker by lot."""
        return _kept_banker(seats, previous) is None and options["banker"] == "lot"

    # --- moving the hand on ----------------------------------------------------------------
    def proceed(self, state: State, now: float) -> list[Event]:
        """Next bettor; the deal once all have bet; next player; the bank; the end."""
        phase = state.phase
        match phase:
            case Opening():
                return self.next_bettor(state, now)
            case Betting(seat=seat):
                return self.next_bettor(state, now) if seat in state.decided else []
            case Playing(index=i):
                if state.hands[i].status == "open":
                    return []
                return self.next_player(state, i + 1, now)
            case Banking():
                return [] if state.bank.status == "open" else self.finish(state)
            case Announcing() | Answering() | Ended():
                return []
            case _:
                assert_never(phase)

    def next_bettor(self, state: State, now: float) -> list[Event]:
        """The next seat to bet, or what follows the bets."""
        for i, h in enumerate(state.hands):
            if h.seat not in state.decided:
                return [ev.turn_passed("bet", h.seat, now, i)]
        return self.after_bets(state, now)

    def after_bets(self, state: State, now: float) -> list[Event]:
        """Sette e mezzo deals once every stake is down, from a deck shuffled again when a bet
        carried a seed: the join seeds in seat order, then the bet seeds in the order the bets
        were placed (rules.md, "Seeds given with a bet"). A hand with no bet seed deals from the
        deck HandStarted recorded, as it always did."""
        if not state.bet_seeds:
            return self.deal(state, now)
        seeds = SeedMaterial(state.server_seed, (*state.player_seeds, *state.bet_seeds))
        composition = cards.composition(state.game, state.options)
        shuffled = [ev.deck_shuffled(seeds.player_seeds, deck.shuffled(composition, seeds))]
        return shuffled + self.deal(fold(state, shuffled), now)

    def deal(self, state: State, now: float) -> list[Event]:
        """One card face down to each bettor counter-clockwise, the banker's last."""
        staked = [(i, h) for i, h in enumerate(state.hands) if h.stake > 0]
        if not staked:
            return self.finish(state)
        out = [ev.card_dealt(h.seat, i, banking.top_card(state, k), False)
               for k, (i, h) in enumerate(staked)]
        out.append(ev.card_dealt(state.banker, BANK, banking.top_card(state, len(staked)), False))
        return [*out, ev.turn_passed("play", staked[0][1].seat, now, staked[0][0])]

    def next_player(self, state: State, start: int, now: float) -> list[Event]:
        """The next hand to play, else the banker turns his card up and plays."""
        i = banking.first_open(state, start)
        if i is not None:
            return [ev.turn_passed("play", state.hands[i].seat, now, i)]
        if not banking.still_in(state):
            return self.finish(state)
        turned = [ev.card_turned_up(state.banker, BANK, c) for c in state.bank.hidden]
        return [*turned, ev.turn_passed("bank", state.banker, now)]

    # --- commands --------------------------------------------------------------------------
    def act(self, state: State, command: Any) -> list[Event]:
        """Bets, hits and stands in their turn; timeouts as RULES.md says."""
        phase = state.phase
        match phase:
            case Betting(seat=seat):
                refuse_turn(state, command, seat)
                return self.betting(state, command)
            case Playing(seat=seat, index=i):
                refuse_turn(state, command, seat)
                return self.playing(state, i, command)
            case Banking(seat=seat):
                refuse_turn(state, command, seat)
                return self.banking(state, command)
            case Opening() | Announcing() | Answering() | Ended():
                return self.between(state, command)
            case _:
                assert_never(phase)

    def between(self, state: State, command: Any) -> list[Event]:
        """Commands outside any turn."""
        raise IllegalMove("wrong_phase", "nobody is to act now")

    def bet_index(self, state: State, seat: int) -> int:
        """The hand a seat's bet goes to."""
        return state.hands_of(seat)[0][0]

    def betting(self, state: State, command: Any) -> list[Event]:
        """A bet between min_bet and max_bet within the seat's balance; a timeout sits out."""
        match command:
            case PlaceBet(seat=seat, amount=amount, seed=seed):
                lo, hi = self.bet_range(state, seat)
                if not lo <= amount <= hi:
                    raise IllegalMove("bet_out_of_range", f"bet between {lo} and {hi}")
                self.refuse_bet_seed(seed)
                if seed and not state.server_seed:
                    raise IllegalMove("bad_action", "this hand was dealt before bets took seeds:"
                                      " give yours with a bet of the next hand")
                return [ev.bet_placed(seat, self.bet_index(state, seat), amount, seed=seed)]
            case TimeOut(seat=seat):
                return [ev.sat_out(seat, timeout=True)]
            case _:
                raise IllegalMove("wrong_phase", "this is the betting round")

    def bet_range(self, state: State, seat: int) -> tuple[int, int]:
        """Smallest and largest bet the seat may place."""
        opts = state.options
        return int(opts["min_bet"]), min(int(opts["max_bet"]), state.balances.get(seat, 0))

    def playing(self, state: State, index: int, command: Any) -> list[Event]:
        """A card dealt face up, with its bust/7½ checks, or a stand (also on timeout)."""
        hand = state.hands[index]
        match command:
            case Hit():
                return banking.deal_to(state, index, hand, True)[0]
            case Stand(declare=declare) if not declare:
                return [ev.stood(hand.seat, index)]
            case TimeOut():
                return [ev.stood(hand.seat, index, timeout=True)]
            case Stand():
                raise IllegalMove("bad_declaration", "there is nothing to declare in this game")
            case _:
                raise IllegalMove("wrong_phase", "hit or stand")

    def banking(self, state: State, command: Any) -> list[Event]:
        """The banker draws face up or stands; on timeout the banker policy plays for him."""
        match command:
            case Hit():
                return banking.deal_to(state, BANK, state.bank, True)[0]
            case Stand(declare=declare) if not declare:
                return [ev.stood(state.banker, BANK)]
            case TimeOut():
                return banking.bank_timeout(state)
            case Stand():
                raise IllegalMove("bad_declaration", "there is nothing to declare in this game")
            case _:
                raise IllegalMove("wrong_phase", "the banker hits or stands")

    def actions(self, state: State, seat: int) -> list[Json]:
        """Bet in the betting round, hit or stand in one's turn."""
        phase = state.phase
        hit = [{"type": "hit"}] if state.remaining > 0 else []
        match phase:
            case Betting(seat=s) if s == seat:
                lo, hi = self.bet_range(state, seat)
                return [{"type": "bet", "amount": {"min": lo, "max": hi}}]
            case Playing(seat=s) | Banking(seat=s) if s == seat:
                return [*hit, {"type": "stand"}]
            case _:
                return []

    # --- the end ---------------------------------------------------------------------------
    def claims(self, state: State) -> tuple[list[Claim], list[Json]]:
        """Banker bust pays every hand still in 1:1; else higher totals win, ties to the bank."""
        bank = cards.total(state.game, state.bank.cards)
        claims, results = [], []
        for i, h in enumerate(state.hands):
            if h.stake == 0:
                continue
            t = cards.total(state.game, h.cards)
            if h.status == "bust":
                net, outcome = -h.stake, "bust"
            elif bank > cards.SEVEN_HALF or t > bank:
                net, outcome = h.stake, "won"
            else:
                net, outcome = -h.stake, "lost"
            if h.status != "bust":
                claims.append(Claim(h.seat, h.stake, net))
            results.append({"seat": h.seat, "index": i, "stake": h.stake, "total": t,
                            "outcome": outcome, "net": net})
        return claims, results

    def next_banker(self, state: State) -> int:
        """A non-banker at 7½ takes the bank: the first counter-clockwise from the banker."""
        seat = banking.seven_half_seat(state)
        return state.banker if seat is None else seat

    def finish(self, state: State) -> list[Event]:
        """Showdown, settlement plan, shortfalls and the end of the hand."""
        claims, results = self.claims(state)
        bank = None if state.bank.hidden else cards.total(state.game, state.bank.cards)
        results.append({"seat": state.banker, "index": BANK, "total": bank, "banker": True})
        return [*banking.showdown(state),
                *closing_events(state.banker, claims, state.balances, results,
                                self.next_banker(state))]


ENGINE = SetteEngine()
