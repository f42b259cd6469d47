"""The contract every rules engine in `games/` offers to the rest of Banco.

Engines are pure: no I/O, no clock, no `random`. Time and seeds arrive inside commands and
`SeedMaterial`; everything an engine returns is a frozen value or plain JSON-able data.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import marshmallow

Json = dict[str, Any]


class IllegalMove(Exception):
    """A command the rules refuse; `code` is stable and machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Viewer:
    """Who is looking: one seat, a spectator (public information only) or an auditor (all)."""

    kind: Literal["seat", "spectator", "auditor"]
    seat: int | None = None

    @classmethod
    def at_seat(cls, seat: int) -> Viewer:
        return cls("seat", seat)


SPECTATOR = Viewer("spectator")
AUDITOR = Viewer("auditor")


@dataclass(frozen=True)
class Posting:
    """A treasure movement between engine-level accounts.

    Engine accounts are `seat:<n>` (a seat's balance at the table), `escrow` (the hand's stakes)
    and `pot` (a game's pot); the service maps them onto ledger accounts.
    """

    from_account: str
    to_account: str
    amount: int
    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, int) or self.amount <= 0:
            raise ValueError(f"posting amount must be a positive integer, got {self.amount!r}")


@dataclass(frozen=True)
class Event:
    """Something that happened at the table.

    `visible_to` is None for a public event, else the seats that may read `data` in full
    (auditors always may). Everyone else receives `public` instead: the same event with the
    hidden parts removed. `postings` are the treasure movements the event carries (a bet moving a
    stake into escrow, say); the service appends them to the ledger with the event.
    """

    type: str
    data: Mapping[str, Any]
    visible_to: frozenset[int] | None = None
    public: Mapping[str, Any] | None = None
    postings: tuple[Posting, ...] = ()

    def may_see(self, viewer: Viewer) -> bool:
        return may_see(self.visible_to, viewer)


def may_see(visible_to: Collection[int] | None, viewer: Viewer) -> bool:
    """Whether `viewer` may read the data of an event visible to `visible_to` (None: everyone)."""
    if visible_to is None or viewer.kind == "auditor":
        return True
    return viewer.kind == "seat" and viewer.seat in visible_to


def payload_secret(info: GameInfo, payload: Any) -> bool:
    """Whether an action's payload as sent may tell others what they may not see: it sets one
    of the game's secret parameters (anything not a payload is kept too)."""
    if not isinstance(payload, Mapping):
        return True
    secret = info.secret_parameters.get(str(payload.get("type")), ())
    return any(payload.get(name) for name in secret)


def redact(event: Event, viewer: Viewer) -> Event:
    """The version of `event` that `viewer` may receive."""
    if event.may_see(viewer):
        return event
    return Event(event.type, dict(event.public or {}), event.visible_to, event.public, ())


@dataclass(frozen=True)
class SeatInfo:
    """A seated player as the engine needs it: balance at the table, age, optional seed text."""

    seat: int
    player: str
    balance: int
    age: int | None = None
    seed: str | None = None


@dataclass(frozen=True)
class SeedMaterial:
    """The secret server seed (hex) and the players' seed texts of a hand."""

    server_seed: str
    player_seeds: tuple[str, ...] = ()


@dataclass(frozen=True)
class Turn:
    """Whose move it is and what the engine waits for (`bet`, `play`, `bank`, `choose`, ...)."""

    seat: int
    waiting_for: str
    role: Literal["player", "banker"] = "player"


@dataclass(frozen=True)
class GameInfo:
    """How a game presents itself in `GET /v1/games`.

    `variants` names each variant with the table options it sets: the catalog lists them and a
    table is created with one by that name, from this one mapping. A game's variants set the same
    options to different values, so a table's options make at most one of them.

    `version` is the engine's rules version: a table plays the one it was created with for its
    whole life, so an engine whose rules change is served beside the old one, one version higher
    (games/registry.py), never edited.

    `secret_parameters` names, by action type, the parameters that may tell what only the
    sender may know (the card a Casino pirate player keeps hidden): an action that sets one is
    kept from the other seats wherever commands are shown (replays, evidence bundles).
    """

    name: str
    title: str
    min_players: int
    max_players: int
    variants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    rules_source: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    version: int = 1
    secret_parameters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def variant_of(self, options: Mapping[str, Any]) -> str | None:
        """The listed variant a table with these (loaded) options plays, or None."""
        return next((name for name, sets in self.variants.items()
                     if all(options.get(k) == v for k, v in sets.items())), None)


class Engine(Protocol):
    """What every game module exports as `ENGINE`."""

    info: GameInfo
    options_schema: type[marshmallow.Schema]
    # The class of the engine's states: a frozen dataclass of values and tagged Structs, with
    # the version of its shape as `SCHEMA`, which a table's stored snapshot is decoded into.
    state_type: type[Any]

    def start(
        self,
        options: Mapping[str, Any],
        seats: Sequence[SeatInfo],
        seed_material: SeedMaterial,
        previous: Any | None = None,
        now: float = 0.0,
    ) -> list[Event]:
        """The events that open a hand (or round); `previous` is the last hand's final state."""
        ...

    def initial_state(self, options: Mapping[str, Any]) -> Any:
        """The state before the first event of a hand."""
        ...

    def played_by_nobody(self, options: Mapping[str, Any], seats: Sequence[SeatInfo],
                         previous: Any | None = None) -> bool:
        """Whether a hand dealt to `seats` now would end before any player had a turn, whatever
        its seed draws (a 7½ hand where no seat but the banker's holds `min_bet`): its deal is
        refused. Decided without the seed, so that a refusal cannot be asked for again and
        again until a draw comes out another way."""
        ...

    def decide(self, state: Any, command: Any) -> list[Event]:
        """The events a command produces, or `IllegalMove`."""
        ...

    def evolve(self, state: Any, event: Event) -> Any:
        """The state after an event; no rule checks."""
        ...

    def view(self, state: Any, viewer: Viewer) -> Json:
        """What `viewer` may see of the state, as JSON."""
        ...

    def legal_actions(self, state: Any, seat: int) -> list[Json]:
        """The actions `seat` may take now, each `{"type": ..., parameters...}`."""
        ...

    def readable(self, data: Json) -> Json:
        """An event's data as shown to someone, with a display form beside each value it holds
        in a unit people do not read (7½'s half-points); `view` already carries them."""
        ...

    def parse_action(self, seat: int, payload: Mapping[str, Any], now: float) -> Any:
        """A command from a client's `{"type": ..., ...}` payload, or `IllegalMove`."""
        ...

    def timeout(self, state: Any, now: float) -> Any:
        """The `TimeOut` command for the turn in play."""
        ...

    def turn(self, state: Any) -> Turn | None:
        """Whose move it is, or None when nobody is to act."""
        ...

    def is_terminal(self, state: Any) -> bool:
        """True when the hand (or round) is over and ready to settle."""
        ...

    def table_over(self, state: Any, now: float) -> bool:
        """True when no further hand may open after this terminal one (a winner, a ruin, time)."""
        ...

    def settle(self, state: Any) -> list[Posting]:
        """The treasure postings that close a terminal hand."""
        ...

    def reseated(self, state: Any, seats: Mapping[int, int]) -> Any | None:
        """What of the last hand's `state` (between hands) carries to the next hand once a
        player has left, the seats renumbered: `seats` maps each remaining seat's old number to
        its new one. None when nothing carries (the next hand starts as a table's first)."""
        ...

    def refund(self, state: Any) -> list[Posting]:
        """The postings that give back what the game still holds when its table ends between
        hands before the game is over (a Cassino pot's stakes); none for a game that holds
        nothing between hands. `state` is the last hand's, settled."""
        ...
