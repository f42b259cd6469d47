"""The engine shared by the 7½ family: opening, the decide loop, turns, timeouts, settlement.

Each game supplies its rules (`act`, `proceed`, `actions`) in its own module; `decide` runs the
player's command, then lets the rules move the hand on (deals, next turn, the end) until
somebody has to act again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, ClassVar, assert_never

import marshmallow

from games import deck
from games.contract import (
    Event,
    GameInfo,
    IllegalMove,
    Json,
    Posting,
    SeatInfo,
    SeedMaterial,
    Turn,
    Viewer,
)
from games.sevenhalf import cards, parse
from games.sevenhalf import events as ev
from games.sevenhalf.commands import PlaceBet, TimeOut
from games.sevenhalf.display import readable
from games.sevenhalf.evolve import evolve
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
from games.sevenhalf.view import view


def fold(state: State, events: Sequence[Event]) -> State:
    """The state after `events`."""
    for event in events:
        state = evolve(state, event)
    return state


@cache
def _schema(schema: type[marshmallow.Schema]) -> marshmallow.Schema:
    # One instance per schema, loaded from any thread as webargs' are: making one copies its
    # declared fields, 80 of the 120 us a load took, three times a deal.
    return schema()


# The seeds of a banker picked without a lot (`banker_drawn` False): never read.
UNDRAWN = SeedMaterial("")


class FamilyEngine:
    """What the three games share; subclasses give the rules."""

    info: GameInfo
    options_schema: type[marshmallow.Schema]
    state_type: type[State] = State
    kinds: ClassVar[tuple[str, ...]] = ()
    clockwise: ClassVar[bool] = False
    # Whether a bet may carry the player's seed: only where the bets come before the deal, so
    # the seed can still take part in the shuffle of the cards (RULES.md, "Fair decks").
    bet_seeds: ClassVar[bool] = False

    # --- rules supplied by each game -------------------------------------------------------
    def act(self, state: State, command: Any) -> list[Event]:
        """The events of a command the rules accept (turn and seat already checked)."""
        raise NotImplementedError

    def proceed(self, state: State, now: float) -> list[Event]:
        """What happens next on its own (deal, next turn, end), or [] when someone must act."""
        raise NotImplementedError

    def actions(self, state: State, seat: int) -> list[Json]:
        """The legal actions of `seat`."""
        raise NotImplementedError

    def pick_banker(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
                    material: SeedMaterial, previous: State | None) -> int:
        """The banker (meneur) of the hand about to open."""
        raise NotImplementedError

    def eligible(self, options: Mapping[str, Any], seat: SeatInfo) -> bool:
        """Whether a seat can afford to play this hand."""
        return seat.balance >= int(options["min_bet"])

    def banker_drawn(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
                     previous: State | None) -> bool:
        """Whether the banker of the hand about to open is drawn by its seeded lot."""
        return False

    def played_by_nobody(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
                         previous: Any | None = None) -> bool:
        """No seat but the banker's can afford the hand (`eligible`), whoever the lot names: a
        banker drawn by lot may be any seat, so then only a table where no seat can afford it."""
        opts = self.load_options(options)
        players = {s.seat for s in seats if self.eligible(opts, s)}
        state = previous if isinstance(previous, State) else None
        if self.banker_drawn(opts, seats, state):
            return not players
        return not players - {self.pick_banker(opts, seats, UNDRAWN, state)}

    def deck_shortfall(self, options: Mapping[str, Any], hands: int) -> str | None:
        """Why the deck cannot serve `hands` hands (the banker's included) to their end, or
        None when the game takes any table its deck is dealt to: Sette e mezzo and Siete y
        media play a fixed 40-card deck, and once it is empty a hand may only stand."""
        return None

    # --- the contract ----------------------------------------------------------------------
    def load_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Options with defaults applied, or IllegalMove when invalid."""
        try:
            return dict(_schema(self.options_schema).load(dict(options)))
        except marshmallow.ValidationError as e:
            raise IllegalMove("bad_options", str(e.messages)) from e

    def initial_state(self, options: Mapping[str, Any]) -> State:
        """The state before the first event of a hand."""
        return State(self.info.name, self.load_options(options))

    def start(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
              seed_material: SeedMaterial, previous: Any | None = None,
              now: float = 0.0) -> list[Event]:
        """The events opening a hand: banker, play order, committed deck, then the first turn."""
        opts = self.load_options(options)
        if not self.info.min_players <= len(seats) <= self.info.max_players:
            raise IllegalMove("bad_player_count", "this game does not seat that many players")
        banker = self.pick_banker(opts, seats, seed_material, previous)
        by_seat = {s.seat: s for s in seats}
        numbers = sorted(by_seat)
        at = numbers.index(banker)
        step = 1 if self.clockwise else -1
        around = [numbers[(at + step * k) % len(numbers)] for k in range(1, len(numbers))]
        order = [s for s in around if self.eligible(opts, by_seat[s])]
        short = self.deck_shortfall(opts, len(order) + 1)
        if short is not None:
            raise IllegalMove("deck_too_small", short)
        composition = cards.composition(self.info.name, opts)
        if len(composition) <= len(seats):
            raise IllegalMove("bad_options", "the deck is too small for this many players")
        table_start = previous.table_started_at if isinstance(previous, State) else now
        data: Json = {
            "game": self.info.name, "options": opts, "banker": banker, "order": order,
            "seats": [{"seat": s.seat, "balance": s.balance, "age": s.age} for s in seats],
            "commitment": deck.commitment(seed_material.server_seed),
            "server_seed": seed_material.server_seed,
            "player_seeds": list(seed_material.player_seeds),
            "deck": list(deck.shuffled(composition, seed_material)),
            "started_at": now, "table_started_at": table_start,
        }
        opening = [ev.hand_started(data)]
        return opening + self._follow(fold(self.initial_state(opts), opening), now)

    def _follow(self, state: State, now: float) -> list[Event]:
        out: list[Event] = []
        while more := self.proceed(state, now):
            out += more
            state = fold(state, more)
        return out

    def decide(self, state: State, command: Any) -> list[Event]:
        """The events a command produces, or IllegalMove."""
        if command.seat not in state.seats:
            raise IllegalMove("unknown_seat", "this seat was not at the table when the hand was dealt")
        if isinstance(command, TimeOut):
            turn = self.turn(state)
            if turn is None:
                raise IllegalMove("wrong_phase", "nobody is to act")
            if turn.seat != command.seat:
                raise IllegalMove("not_your_turn", "it is another seat's turn")
            limit = self.turn_limit(state)
            if command.now < self.turn_started(state) + limit:
                raise IllegalMove("too_early", "the turn has not timed out yet")
        events = self.act(state, command)
        return events + self._follow(fold(state, events), command.now)

    def evolve(self, state: State, event: Event) -> State:
        """The state after an event."""
        return evolve(state, event)

    def view(self, state: State, viewer: Viewer) -> Json:
        """What `viewer` may see, as JSON."""
        out = view(state, viewer)
        turn = self.turn(state)
        out["turn"] = None if turn is None else {"seat": turn.seat, "waiting_for": turn.waiting_for,
                                                 "role": turn.role}
        return out

    def readable(self, data: Json) -> Json:
        """`data` with `total_display` ("7½") beside each half-point `total` (15)."""
        return dict(readable(data))

    def legal_actions(self, state: State, seat: int) -> list[Json]:
        """The actions `seat` may take now."""
        return self.actions(state, seat) if seat in state.seats else []

    def parse_action(self, seat: int, payload: Mapping[str, Any], now: float) -> Any:
        """A command from a client's payload, or IllegalMove('bad_action')."""
        command = parse.parse(self.kinds, seat, payload, now)
        if isinstance(command, PlaceBet):
            self.refuse_bet_seed(command.seed)
        return command

    def refuse_bet_seed(self, seed: str | None) -> None:
        """IllegalMove for a bet's seed in a game that deals before the bets."""
        if seed and not self.bet_seeds:
            raise IllegalMove("bad_action", f"a bet takes no seed in {self.info.title}: its cards"
                              " are dealt before the bets, and a seed given after the deal cannot"
                              " take part in their shuffle; give yours when you join")

    def timeout(self, state: State, now: float) -> TimeOut:
        """The TimeOut command for the turn in play."""
        turn = self.turn(state)
        if turn is None:
            raise IllegalMove("wrong_phase", "nobody is to act")
        return TimeOut(turn.seat, now)

    def turn(self, state: State) -> Turn | None:
        """Whose move it is."""
        phase = state.phase
        match phase:
            case Opening() | Ended():
                return None
            case Announcing(seat=seat):
                return Turn(seat, "announce", "banker")
            case Betting(seat=seat):
                return Turn(seat, "bet")
            case Playing(seat=seat, index=i):
                choosing = len(state.hands[i].hidden) > 1
                return Turn(seat, "choose" if choosing else "play")
            case Banking(seat=seat):
                return Turn(seat, "bank", "banker")
            case Answering(seat=seat):
                return Turn(seat, "answer")
            case _:
                assert_never(phase)

    def turn_started(self, state: State) -> float:
        """When the turn in play began."""
        phase = state.phase
        return float(getattr(phase, "at", state.started_at))

    def turn_limit(self, state: State) -> int:
        """Seconds the turn in play may last."""
        banker = isinstance(state.phase, Announcing | Banking)
        return int(state.options["banker_timeout_s" if banker else "turn_timeout_s"])

    def is_terminal(self, state: State) -> bool:
        """The hand is over and settled in its events."""
        return isinstance(state.phase, Ended)

    def table_over(self, state: State, now: float) -> bool:
        """Fewer than two seats hold treasure: no further hand can be played (RULES.md, "Money in
        the 7½ family", a Decision), whichever seat banks it."""
        return sum(1 for b in state.balances.values() if b > 0) < 2

    def settle(self, state: State) -> list[Posting]:
        """The postings that close a terminal hand (recorded in its HandEnded event)."""
        if not self.is_terminal(state):
            raise IllegalMove("wrong_phase", "the hand is not over")
        return list(state.plan)

    def reseated(self, state: State, seats: Mapping[int, int]) -> State:
        """The bank's succession and the table's clock, its seats renumbered: who banks next
        (the banker who stays, else the one his hand named: a 7½, a volunteer; one who left
        names nobody) and when the table began (Casino pirate's `duration_s` runs from it)."""
        def moved(seat: int | None) -> int | None:
            return None if seat is None else seats.get(seat)

        stays = moved(state.banker)
        return State(state.game, state.options, banker=-1 if stays is None else stays,
                     next_banker=moved(state.next_banker),
                     volunteers=tuple(s for v in state.volunteers if (s := moved(v)) is not None),
                     table_started_at=state.table_started_at)

    def refund(self, state: State) -> list[Posting]:
        """Nothing: a hand's settlement empties its escrow, and no treasure outlives a hand."""
        return []
