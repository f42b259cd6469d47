"""Casino pirate (RULES.md §1c): one hidden card, undisclosed busts, the meneur calls players.

The calls themselves (reveal, concede, the meneur's draws and declarations) live in
`pirate_calls.py`; this module holds the table, the flow of a hand and the players' turns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, assert_never

import marshmallow

from games.contract import Event, GameInfo, IllegalMove, Json, SeatInfo, SeedMaterial
from games.sevenhalf import banking, pirate_calls
from games.sevenhalf import events as ev
from games.sevenhalf.commands import Hide, Hit, PlaceBet, Stand, TimeOut, Volunteer
from games.sevenhalf.engine import FamilyEngine
from games.sevenhalf.options import PirateOptions, PirateOptionsV2
from games.sevenhalf.pirate_deck import PirateOptionsV4, shortfall
from games.sevenhalf.sette import refuse_turn
from games.sevenhalf.state import (
    Announcing,
    Answering,
    Banking,
    Betting,
    Ended,
    Opening,
    Playing,
    State,
)


class PirateEngine(FamilyEngine):
    """Casino pirate, played clockwise from the meneur's left."""

    # Conceded hands and hands paid by a busted meneur stay hidden for good, and the revealed
    # seed would let anyone recompute them: `seed_reveal` asks the service to show it to
    # auditors only for this game. `between_hands` names what it decides while the table waits
    # for its next deal (a volunteer), so that the service passes a refusal of one on as it is.
    info = GameInfo("casino-pirate", "Casino pirate", 2, 8, {}, "000_1414b0b0fea70c86.txt",
                    {"buy_in_option": "buy_in", "seed_reveal": "auditors",
                     "between_hands": ("volunteer",)},
                    # The card kept hidden, and skeleton values fixed on a hidden card.
                    secret_parameters={"hide": ("card",), "stand": ("declare",)})
    options_schema: type[marshmallow.Schema] = PirateOptions
    kinds: ClassVar[tuple[str, ...]] = ("bet", "hit", "hide", "stand", "call", "reveal",
                                        "concede", "declare", "volunteer")
    clockwise: ClassVar[bool] = True

    def deck_shortfall(self, options: Mapping[str, Any], hands: int) -> str | None:
        """A deck a player could run dry before the others and the meneur had their cards
        (`pirate_deck.py`): a deal is refused, at tables of every version, as it records
        nothing; from version 4 such a deck is refused when the table is created."""
        return shortfall(options, hands)

    def pick_banker(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
                    material: SeedMaterial, previous: State | None) -> int:
        """The first 7½ revealed, else a volunteer, else the same meneur, else the oldest."""
        numbers = [s.seat for s in seats]
        if isinstance(previous, State):
            candidates = [previous.next_banker, *previous.volunteers, previous.banker]
            for seat in candidates:
                if seat in numbers:
                    return int(seat)
        return min(seats, key=lambda s: (-(s.age if s.age is not None else -1), s.seat)).seat

    # --- the flow of a hand ----------------------------------------------------------------
    def proceed(self, state: State, now: float) -> list[Event]:
        """Deal, bets, players' turns, the meneur's calls, the end."""
        phase = state.phase
        match phase:
            case Opening():
                return self.deal(state, now)
            case Betting(seat=seat):
                return self.next_bettor(state, now) if seat in state.decided else []
            case Playing(index=i):
                if state.hands[i].status == "open":
                    return []
                return self.next_player(state, i + 1, now)
            case Banking() | Answering():
                return pirate_calls.proceed(state, now, self.finish)
            case Announcing() | Ended():
                return []
            case _:
                assert_never(phase)

    def deal(self, state: State, now: float) -> list[Event]:
        """One card face down to every other player, clockwise from the meneur's left."""
        if not state.hands:
            return self.finish(state)
        out = [ev.card_dealt(h.seat, i, banking.top_card(state, i), False)
               for i, h in enumerate(state.hands)]
        return [*out, ev.turn_passed("bet", state.hands[0].seat, now, 0)]

    def next_bettor(self, state: State, now: float) -> list[Event]:
        """The next player to bet, then the first to play."""
        for i, h in enumerate(state.hands):
            if h.seat not in state.decided:
                return [ev.turn_passed("bet", h.seat, now, i)]
        return self.next_player(state, 0, now)

    def next_player(self, state: State, start: int, now: float) -> list[Event]:
        """The next player to play, else the meneur."""
        i = banking.first_open(state, start)
        if i is not None:
            return [ev.turn_passed("play", state.hands[i].seat, now, i)]
        if not any(h.stake for h in state.hands):
            return self.finish(state)
        return [ev.turn_passed("bank", state.banker, now)]

    def finish(self, state: State) -> list[Event]:
        """Settle the calls (and a busted meneur's debts) and name the next meneur."""
        return pirate_calls.finish(state)

    # --- commands --------------------------------------------------------------------------
    def act(self, state: State, command: Any) -> list[Event]:
        """Bets, the players' turns, the meneur's turn, calls; volunteers between hands."""
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
                return self.meneur(state, command)
            case Answering(seat=seat):
                refuse_turn(state, command, seat)
                return pirate_calls.answer(state, command)
            case Ended():
                return self.volunteer(state, command)
            case Opening() | Announcing():
                raise IllegalMove("wrong_phase", "nobody is to act now")
            case _:
                assert_never(phase)

    def meneur(self, state: State, command: Any) -> list[Event]:
        """The meneur's turn: draw, declare a skeleton, call; on timeout the banker policy."""
        return pirate_calls.meneur(state, command)

    def betting(self, state: State, command: Any) -> list[Event]:
        """A bet of `min_bet`..`max_bet` (1 or 2) after seeing one's card; timeout sits out."""
        match command:
            case PlaceBet(seat=seat, amount=amount):
                lo, hi = self.bet_range(state, seat)
                if not lo <= amount <= hi:
                    raise IllegalMove("bet_out_of_range", f"bet between {lo} and {hi}")
                return [ev.bet_placed(seat, state.hands_of(seat)[0][0], amount)]
            case TimeOut(seat=seat):
                return [ev.sat_out(seat, timeout=True)]
            case _:
                raise IllegalMove("wrong_phase", "this is the betting round")

    def bet_range(self, state: State, seat: int) -> tuple[int, int]:
        """Smallest and largest bet the seat may place."""
        opts = state.options
        return int(opts["min_bet"]), min(int(opts["max_bet"]), state.balances.get(seat, 0))

    def playing(self, state: State, index: int, command: Any) -> list[Event]:
        """Carte: a card face down, then the choice of which stays hidden; servi: stand."""
        hand = state.hands[index]
        if len(hand.hidden) > 1:
            match command:
                case Hide(card=card) if card in hand.hidden:
                    other = next(c for c in hand.hidden if c != card)
                    return [ev.card_turned_up(hand.seat, index, other)]
                case TimeOut():
                    return [ev.card_turned_up(hand.seat, index, hand.hidden[-1], timeout=True),
                            ev.stood(hand.seat, index, timeout=True)]
                case Hide():
                    raise IllegalMove("bad_card", "hide one of your two face-down cards")
                case _:
                    raise IllegalMove("wrong_phase", "choose which card stays hidden")
        match command:
            case Hit():
                return [ev.card_dealt(hand.seat, index, banking.top_card(state), False)]
            case Stand(declare=declare):
                pirate_calls.check_declare(state, hand, declare)
                return [ev.stood(hand.seat, index, declared=declare)]
            case TimeOut():
                return [ev.stood(hand.seat, index, timeout=True)]
            case _:
                raise IllegalMove("wrong_phase", "hit or stand")

    def volunteer(self, state: State, command: Any) -> list[Event]:
        """Between hands a player may offer to be meneur when no 7½ took the post."""
        if not isinstance(command, Volunteer):
            raise IllegalMove("wrong_phase", "the hand is over")
        if state.volunteers:
            raise IllegalMove("volunteer_taken", f"seat {state.volunteers[0]} volunteered first"
                                                 " and is the next meneur")
        if state.next_banker is not None:
            raise IllegalMove("cannot_volunteer", f"seat {state.next_banker} showed 7½ first"
                                                  " and is the next meneur")
        if command.seat == state.banker:
            raise IllegalMove("cannot_volunteer", "the meneur stays meneur unless another volunteers")
        return [ev.volunteered(command.seat)]

    def may_volunteer(self, state: State, seat: int) -> bool:
        """Whether `seat` may still volunteer for the next hand."""
        return (state.next_banker is None and seat != state.banker
                and seat not in state.volunteers and not state.volunteers)

    def actions(self, state: State, seat: int) -> list[Json]:
        """What `seat` may do now."""
        phase = state.phase
        hit = [{"type": "hit"}] if state.remaining > 0 else []
        match phase:
            case Betting(seat=s) if s == seat:
                lo, hi = self.bet_range(state, seat)
                return [{"type": "bet", "amount": {"min": lo, "max": hi}}]
            case Playing(seat=s, index=i) if s == seat:
                hand = state.hands[i]
                if len(hand.hidden) > 1:
                    return [{"type": "hide", "card": c} for c in hand.hidden]
                return [*hit, pirate_calls.with_declare({"type": "stand"}, state, hand)]
            case Banking(seat=s) if s == seat:
                return pirate_calls.meneur_actions(state)
            case Answering(seat=s) if s == seat:
                hand = state.hands_of(seat)[0][1]
                return [pirate_calls.with_declare({"type": "reveal"}, state, hand),
                        {"type": "concede"}]
            case Ended() if self.may_volunteer(state, seat):
                return [{"type": "volunteer"}]
            case _:
                return []

    def table_over(self, state: State, now: float) -> bool:
        """A player has no treasure left, or the table's duration has run out."""
        duration = state.options.get("duration_s")
        if duration is not None and now - state.table_started_at >= duration:
            return True
        return any(b <= 0 for b in state.balances.values())


ENGINE = PirateEngine()


class PirateEngineV2(PirateEngine):
    """Casino pirate, rules version 2: a player who lets the betting timer run bets the minimum
    and stands. Version 1 sat him out, a free fold after seeing his card that no player may
    choose (RULES.md §1c: each player bets 1 or 2 treasures; one who does not act stands). Its
    options refuse a `buy_in` below `min_bet`, a table where no seat could ever be dealt in."""

    info = replace(PirateEngine.info, version=2)
    options_schema: type[marshmallow.Schema] = PirateOptionsV2

    def betting(self, state: State, command: Any) -> list[Event]:
        """A bet of `min_bet`..`max_bet` after seeing one's card; timeout bets `min_bet` and
        stands (every seat dealt in holds `min_bet`: one holding less is not dealt a card)."""
        match command:
            case TimeOut(seat=seat):
                index = state.hands_of(seat)[0][0]
                return [ev.bet_placed(seat, index, int(state.options["min_bet"])),
                        ev.stood(seat, index, timeout=True)]
            case _:
                return super().betting(state, command)


ENGINE_V2 = PirateEngineV2()


class PirateEngineV3(PirateEngineV2):
    """Casino pirate, rules version 3: the meneur's skeleton is worth one value for the whole
    hand. He declares it when he turns it up; if he draws or calls without declaring it, it is
    fixed then at the value giving his best total (`SkeletonDeclared` with `"picked": true`).
    Versions 1 and 2 left it open and valued it at its best at every look: the same card could
    count 7 to beat one player and 2 to draw again without busting. The bet the betting timer
    places is marked as its other moves are (`BetPlaced` with `"timeout": true`)."""

    info = replace(PirateEngine.info, version=3)

    def meneur(self, state: State, command: Any) -> list[Event]:
        return pirate_calls.fixed_meneur(state, command)

    def betting(self, state: State, command: Any) -> list[Event]:
        """As version 2, the bet the timer places marked `"timeout": true` like its `Stood`."""
        match command:
            case TimeOut(seat=seat):
                index = state.hands_of(seat)[0][0]
                return [ev.bet_placed(seat, index, int(state.options["min_bet"]), timeout=True),
                        ev.stood(seat, index, timeout=True)]
            case _:
                return super().betting(state, command)


ENGINE_V3 = PirateEngineV3()


class PirateEngineV4(PirateEngineV3):
    """Casino pirate, rules version 4: a table's deck serves a whole hand at a full table of 8
    (`pirate_deck.py`). Versions 1 to 3 took any counts, down to 7 gems and nothing else, a deck
    one player could empty before the meneur had a card."""

    info = replace(PirateEngine.info, version=4)
    options_schema: type[marshmallow.Schema] = PirateOptionsV4


ENGINE_V4 = PirateEngineV4()
