"""The Cassino engine behind the contract of `games.contract`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from marshmallow import Schema, ValidationError

from games.cassino import opening
from games.cassino.commands import Command, TimeOut, parse_action
from games.cassino.decide import decide, to_move
from games.cassino.evolve import evolve
from games.cassino.legal import legal_moves
from games.cassino.options import INFO, Options, OptionsSchema, load_options
from games.cassino.state import Playing, RoundOver, State
from games.cassino.view import view
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


def _options(raw: Mapping[str, Any]) -> Options:
    try:
        return load_options(raw)
    except ValidationError as e:
        raise IllegalMove("bad_options", f"invalid table options: {e.messages}") from e


class CassinoEngine:
    """Cassino and its variants; a round of the game is a hand for the service."""

    info: GameInfo = INFO
    options_schema: type[Schema] = OptionsSchema
    state_type: type[State] = State

    def start(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
              seed_material: SeedMaterial, previous: State | None = None,
              now: float = 0.0) -> list[Event]:
        """Open the first round (dealer drawn, stakes paid) or the next one (deal passes left)."""
        opts = _options(options)
        n = len(seats)
        if not INFO.min_players <= n <= INFO.max_players:
            raise IllegalMove("bad_players", "cassino is played by 2, 3 or 4 players")
        if sorted(s.seat for s in seats) != list(range(n)):
            raise IllegalMove("unknown_seat", "seats must be numbered 0..n-1")
        deck = opening.shuffled_deck(seed_material)
        if previous is None:
            if any(s.balance < opts.stake for s in seats):
                raise IllegalMove("insufficient_balance", "every player must be able to pay the stake")
            return opening.open_round(opts, n, seed_material, deck, now)
        if not isinstance(previous.phase, RoundOver) or previous.players != n:
            raise IllegalMove("wrong_phase", "the previous round is not over at this table")
        if previous.phase.winner is not None:
            raise IllegalMove("table_over", "the game is won")
        return opening.open_round(previous.options, n, seed_material, deck, now, previous.dealer,
                                  previous.round + 1, previous.scores, previous.pot)

    def initial_state(self, options: Mapping[str, Any]) -> State:
        """The empty state; the opening event fills it."""
        return State(options=_options(options))

    def decide(self, state: State, command: Command) -> list[Event]:
        """The events a command produces, or `IllegalMove`."""
        return decide(state, command)

    def evolve(self, state: State, event: Event) -> State:
        """The state after an event."""
        return evolve(state, event)

    def view(self, state: State, viewer: Viewer) -> Json:
        """What `viewer` may see."""
        return view(state, viewer)

    def readable(self, data: Json) -> Json:
        """`data` as it is: Cassino's points and scores are whole numbers."""
        return data

    def legal_actions(self, state: State, seat: int) -> list[Json]:
        """Every capture set, build, reservation, extension (or trail) open to the seat."""
        if not isinstance(state.phase, Playing) or state.phase.to_move != seat:
            return []
        return [m.action() for m in legal_moves(state, seat)]

    def parse_action(self, seat: int, payload: Mapping[str, Any], now: float) -> Command:
        """The command for a client's action."""
        return parse_action(seat, payload, now)

    def timeout(self, state: State, now: float) -> TimeOut:
        """The timeout of the seat to play."""
        return TimeOut(to_move(state), now)

    def turn(self, state: State) -> Turn | None:
        """The seat to play, if any."""
        if isinstance(state.phase, Playing):
            return Turn(state.phase.to_move, "play")
        return None

    def played_by_nobody(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
                         previous: Any | None = None) -> bool:
        """Every seated player plays every hand dealt."""
        return False

    def is_terminal(self, state: State) -> bool:
        """True once the round is scored."""
        return isinstance(state.phase, RoundOver)

    def table_over(self, state: State, now: float) -> bool:
        """True once a side has won the game."""
        return isinstance(state.phase, RoundOver) and state.phase.winner is not None

    def settle(self, state: State) -> list[Posting]:
        """The winners take the pot (a team splits it, odd unit to the lower seat); else nothing."""
        if not self.table_over(state, 0.0) or state.pot == 0:
            return []
        assert isinstance(state.phase, RoundOver) and state.phase.winner is not None
        seats = sorted(state.seats_of(state.phase.winner))
        share, odd = divmod(state.pot, len(seats))
        amounts = [share + (odd if i == 0 else 0) for i in range(len(seats))]
        return [Posting("pot", f"seat:{s}", a, "pot_won")
                for s, a in zip(seats, amounts, strict=True) if a > 0]

    def reseated(self, state: State, seats: Mapping[int, int]) -> None:
        """Nothing: a game is played by the line-up that began it, whose scores and pot are
        its own (a leave ends it, `refund` giving the pot back)."""
        return None

    def refund(self, state: State) -> list[Posting]:
        """A game closed before it is won gives every player his stake back from the pot."""
        if self.table_over(state, 0.0) or state.pot == 0:
            return []
        share, odd = divmod(state.pot, state.players)
        amounts = [share + (odd if s == 0 else 0) for s in range(state.players)]
        return [Posting("pot", f"seat:{s}", a, "stake_returned")
                for s, a in enumerate(amounts) if a > 0]


ENGINE = CassinoEngine()
