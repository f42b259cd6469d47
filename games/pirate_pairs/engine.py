"""Pirate pairs behind the `games.contract.Engine` protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

import marshmallow

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
from games.pirate_pairs import actions, decide, evolve, opening, view
from games.pirate_pairs.commands import Command, TimeOut
from games.pirate_pairs.options import MAX_PLAYERS, MIN_PLAYERS, Options, OptionsSchema, load_options
from games.pirate_pairs.state import Choosing, Finished, NotOpened, Playing, State


def _options(options: Mapping[str, Any]) -> Options:
    """The table's options, refused as the other games' engines refuse them."""
    try:
        return load_options(options)
    except marshmallow.ValidationError as e:
        raise IllegalMove("bad_options", f"invalid table options: {e.messages}") from e


INFO = GameInfo(
    name="pirate-pairs",
    title="Pirate pairs",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    rules_source="002_ae078369b503c97e.txt",
    # The opening card is chosen in secret; it goes face up only once everyone has chosen.
    secret_parameters={"choose": ("card",)},
    # Every player pays the stake into the pot when the hand is dealt: the service seats nobody
    # with less (422 buy_in_too_low).
    extra={"min_buy_in_option": "stake"},
)


class PiratePairsEngine:
    """The elimination game of RULES.md §2: one hand is one game, the last player in wins."""

    info: GameInfo = INFO
    options_schema: type[marshmallow.Schema] = OptionsSchema
    state_type: type[State] = State

    def start(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
              seed_material: SeedMaterial, previous: Any | None = None,
              now: float = 0.0) -> list[Event]:
        """Stakes into the pot and the deal; `previous` is unused (each game stands alone)."""
        return opening.open_hand(_options(options), seats, seed_material, now)

    def initial_state(self, options: Mapping[str, Any]) -> State:
        """An empty table with these options."""
        return State(_options(options))

    def decide(self, state: State, command: Command) -> list[Event]:
        """The events `command` produces, or `IllegalMove`."""
        return decide.decide(state, command)

    def evolve(self, state: State, event: Event) -> State:
        """The state after `event`."""
        return evolve.evolve(state, event)

    def view(self, state: State, viewer: Viewer) -> Json:
        """What `viewer` may see, as JSON."""
        return view.view(state, viewer)

    def readable(self, data: Json) -> Json:
        """`data` as it is: Pirate pairs counts cards, not points."""
        return data

    def legal_actions(self, state: State, seat: int) -> list[Json]:
        """The complete actions `seat` may send now."""
        return actions.legal_actions(state, seat)

    def parse_action(self, seat: int, payload: Mapping[str, Any], now: float) -> Command:
        """A command from a client payload."""
        return actions.parse_action(seat, payload, now)

    def timeout(self, state: State, now: float) -> TimeOut:
        """The `TimeOut` for the turn in play (during the opening choice it covers every seat)."""
        turn = self.turn(state)
        if turn is None:
            raise IllegalMove("wrong_phase", "no turn is in play")
        return TimeOut(turn.seat, now)

    def turn(self, state: State) -> Turn | None:
        """The seat to play; while choosing, the lowest seat that has not chosen."""
        match state.phase:
            case Choosing() as phase:
                waiting = [p.seat for p in state.players if phase.choice(p.seat) is None]
                return Turn(waiting[0], "choose")
            case Playing(seat=seat):
                return Turn(seat, "play")
            case NotOpened() | Finished():
                return None
            case _:
                assert_never(state.phase)

    def played_by_nobody(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
                         previous: Any | None = None) -> bool:
        """Every seated player plays every hand dealt."""
        return False

    def is_terminal(self, state: State) -> bool:
        """True once a single player is left."""
        return isinstance(state.phase, Finished)

    def table_over(self, state: State, now: float) -> bool:
        """The game has one winner, so the table closes when the hand is over."""
        return self.is_terminal(state)

    def settle(self, state: State) -> list[Posting]:
        """The winner takes the pot."""
        if not isinstance(state.phase, Finished):
            raise IllegalMove("wrong_phase", "only a finished game settles")
        if state.pot == 0:
            return []
        return [Posting("pot", f"seat:{state.phase.winner}", state.pot, "pot_won")]

    def reseated(self, state: State, seats: Mapping[int, int]) -> None:
        """Nothing: each game stands alone."""
        return None

    def refund(self, state: State) -> list[Posting]:
        """Nothing: the game is one hand, and its table ends with it."""
        return []


ENGINE = PiratePairsEngine()
