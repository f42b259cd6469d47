"""The table commands' handlers: load the table, check the version the command was decided on and
who gives it, enrich it with time, actor and seeds, let the engine decide, then queue its events
and their postings at the table's version, with the table's row, on the unit of work
(`service.application.unit_of_work`), and flush them: one round trip.

The handlers of `service.application.commands` come first; the steps they share (also used by
settlement, `service.application.settling`) after them."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from events import ledger
from events.game_records import recorded
from events.model import NewEvent, StoredEvent
from games import deck, registry
from games.contract import Engine, Event, IllegalMove, SeatInfo, SeedMaterial
from projections import table_fold, tables
from projections.tables import TableRow, turn_of
from service.application.commands import (
    Act,
    CreateTable,
    IfMatch,
    Joined,
    JoinTable,
    LeaveTable,
    OpenHand,
    TablePlayed,
    TimedOut,
    TimeOut,
)
from service.application.errors import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    PreconditionRequired,
    Stale,
)
from service.application.unit_of_work import UnitOfWork
from service.verification.accounts import transfers

# An engine's refusals of a deal that the table's seats or options cause, answered 409 as
# `not_enough_players` is (the request is fine; the table is not, as it stands).
DEAL_CONFLICTS = frozenset({"deck_too_small"})


def create(uow: UnitOfWork, command: CreateTable, metadata: dict[str, Any]) -> TableRow:
    return create_table(uow, command.game, command.options, command.created_by, metadata)


def join(uow: UnitOfWork, command: JoinTable, metadata: dict[str, Any]) -> Joined:
    uow.queue_behind(stream(command.table_id))
    table = load(uow, command.table_id)
    check_version(table, command.if_match, required=False)
    buy_in = buy_in_for(table, command.buy_in)
    seat = seat_player(uow, table, command.player_id, buy_in, command.age, command.seed,
                       metadata)
    return Joined(seat, table)


def leave_table(uow: UnitOfWork, command: LeaveTable, metadata: dict[str, Any]) -> int:
    """The seat's treasure, gone back to the player's wallet."""
    uow.queue_behind(stream(command.table_id))
    return leave(uow, load(uow, command.table_id), command.player_id, metadata)


def deal(uow: UnitOfWork, command: OpenHand, metadata: dict[str, Any]) -> TableRow:
    uow.queue_behind(stream(command.table_id))
    table = load(uow, command.table_id, balances=True)  # the deal needs them
    if command.player_id is not None and table.seat_of(command.player_id) is None:
        raise Forbidden("not_seated", "only a seated player (or the operator) deals")
    check_version(table, command.if_match, required=False)
    table = open_hand(uow, table, metadata)
    uow.publish(TablePlayed("OpenHand", table))
    return table


def play(uow: UnitOfWork, command: Act, metadata: dict[str, Any]) -> TableRow:
    table = load(uow, command.table_id)
    seat = table.seat_of(command.player_id)
    if seat is None:
        raise Forbidden("not_seated", "you have no seat at this table")
    if command.seat is not None and command.seat != seat:
        raise Forbidden("not_your_seat", "you may act only for your own seat")
    check_version(table, command.if_match, required=True)
    # The turn in play has a timeout job scheduled at this version; the action ends it.
    ended = table.version if table.deadline is not None else None
    table = act(uow, table, seat, command.payload, metadata)
    uow.publish(TablePlayed("Act", table, ended))
    return table


def time_out_turn(uow: UnitOfWork, command: TimeOut, metadata: dict[str, Any]
                  ) -> TimedOut | None:
    """None when the turn that began at the command's version is no longer in play (it ended
    in time, or another job fired it) or the game has no timeout rule to apply to it."""
    # Not locked: the append checks the version under the stream's lock, which every writer
    # takes before the table's row (see `service.application.settling`).
    table = uow.table(command.table_id)
    if table is None or table.status != "playing" or table.version != command.version:
        return None
    due = table.deadline
    after = time_out(uow, table, metadata)
    if after is None:
        return None
    uow.publish(TablePlayed("TimeOut", after))
    return TimedOut(after, due)


def check_version(table: TableRow, if_match: IfMatch, required: bool) -> None:
    """Stale when the command was decided on another version of the table; where the version is
    `required` (a move), PreconditionRequired unless it names exactly one.

    Only one concrete version is accepted where it is required: `*`, a list or anything that is
    no version would let the copies of a retried or repeated request each apply at whatever
    version they found.
    """
    stale = Stale("stale_version", f"the table is at version {table.version}",
                  version=table.version)
    if required:
        if not if_match.sent:
            raise PreconditionRequired("if_match_required",
                                       "send If-Match with the table's version (ETag)")
        version = if_match.only()
        if version is None:
            raise PreconditionRequired("if_match_required",
                                       "send If-Match with exactly one version of the table, its"
                                       ' ETag as given ("7": quoted, not weak, not *, not a list)')
        # Compared strongly, as RFC 9110 compares If-Match: character for character, so `"013"`
        # is not version 13 (and no `int()`, which refuses more than 4,300 digits).
        if version != str(table.version):
            raise stale
    elif not if_match.admits(table.version):
        raise stale


# The steps -----------------------------------------------------------------------------------


def new_server_seed() -> str:
    """A fresh secret server seed, 32 bytes as hex: drawn here, where the command is made, as
    its time is, so that the engines stay pure functions of what they are given."""
    return secrets.token_hex(32)


def engine_of(table: TableRow) -> Engine:
    """The engine that decides at `table`: its game at the rules version it was created with."""
    return registry.engine(table.game, table.rules_version)


def engine_named(game: str) -> Engine:
    """The current engine of `game`, as a client names it (422 when there is none)."""
    try:
        return registry.engine(game)
    except registry.RulesNotServed:
        raise Invalid("unknown_game", f"no game {game!r}; see GET /v1/games") from None


def stream(table_id: str) -> str:
    return f"table-{table_id}"


def events_after(uow: UnitOfWork, table_id: str, after: int, page: int = 8
                 ) -> Iterator[StoredEvent]:
    """The table's events after version `after`, read a few at a time, for a caller that stops
    at the one it looks for: what it costs follows how far it reads, not the table's history."""
    while found := uow.read_stream(stream(table_id), after, limit=page):
        yield from found
        after = found[-1].version


def load(uow: UnitOfWork, table_id: str, balances: bool = False) -> TableRow:
    """The table (404 when there is none); with `balances`, its seats' too."""
    return found(uow.table(table_id, balances), table_id)


def found(table: TableRow | None, table_id: str) -> TableRow:
    """The table read, or 404 when there is none."""
    if table is None:
        raise NotFound("table_not_found", f"no table {table_id}")
    return table


def record(uow: UnitOfWork, table: TableRow, events: Sequence[NewEvent],
           postings: Sequence[ledger.Transfer], metadata: dict[str, Any]) -> None:
    """Queue the events and the postings' events on the table's stream at its version, which
    they advance: the table's row, saved after them, is at the stream's new version."""
    posted = [blinded(e) for e in (*events, *(t.event(metadata) for t in postings))]
    uow.append(stream(table.table_id), posted, table.version)
    table.version += len(posted)
    if postings:
        table.balances = None  # read with the row before these postings: its save reads them


def blinded(event: NewEvent) -> NewEvent:
    """`event` with a random `blind` in its metadata. An evidence bundle gives a reader the
    hash of each event he may not read, and the hash chain covers its stored text: without a
    blind, a text made of what he knows and one unknown card (one of at most 55) would be found
    by hashing each guess. The blind goes out only inside the text itself."""
    return replace(event, metadata={**event.metadata, "blind": secrets.token_hex(16)})


def flush(uow: UnitOfWork) -> list[StoredEvent]:
    """Write what the command queued: a refused posting is a 422."""
    try:
        return uow.flush()
    except ledger.InsufficientTreasure as e:
        raise Invalid("insufficient_treasure", str(e), balance=e.balance) from e


def create_table(uow: UnitOfWork, game: str, options: dict[str, Any], created_by: str,
                 metadata: dict[str, Any]) -> TableRow:
    """Open a table of `game` at its current rules version, which it keeps for its whole life."""
    table = TableRow(table_id="tb_" + secrets.token_hex(8), game=game, options=options,
                     status="open", version=0, created_by=created_by,
                     rules_version=engine_named(game).info.version)
    event = NewEvent("TableCreated", {"table_id": table.table_id, "game": game, "options": options,
                                      "created_by": created_by,
                                      "rules_version": table.rules_version}, metadata)
    record(uow, table, [event], [], metadata)
    table.created_at = flush(uow)[0].recorded_at
    uow.save(table, metadata.get("actor"))
    flush(uow)
    return table


def buy_in_for(table: TableRow, asked: int | None) -> int:
    """What a new seat brings: the amount asked, or where the game fixes the buy-in (the table
    option its engine names as `buy_in_option`) exactly that option, which another amount is
    refused for (422). Where the game names a `min_buy_in_option` (a stake every player pays,
    the smallest bet), less than that option is refused (422 `buy_in_too_low`): a seat that
    cannot pay it would have every deal refused, or never be dealt in."""
    extra = engine_of(table).info.extra
    option = extra.get("buy_in_option")
    if option is not None:
        fixed = int(table.options[option])
        if asked is not None and asked != fixed:
            raise Invalid("buy_in_fixed",
                          f"a seat at this {table.game} table buys in at exactly {fixed}"
                          f" (its {option} option), not {asked}", buy_in=fixed)
        return fixed
    if asked is None:
        raise Invalid("buy_in_required", "say how much treasure you bring to the seat")
    least_option = extra.get("min_buy_in_option")
    least = int(table.options.get(least_option, 0)) if least_option is not None else 0
    if asked < least:
        raise Invalid("buy_in_too_low",
                      f"a seat at this {table.game} table buys in with at least {least}"
                      f" (its {least_option} option), not {asked}", min_buy_in=least)
    return asked


def seat_player(uow: UnitOfWork, table: TableRow, player_id: str, buy_in: int,
                age: int | None, seed: str | None, metadata: dict[str, Any]) -> dict[str, Any]:
    """Seat a player with `buy_in` moved from his wallet to the seat."""
    engine = engine_of(table)
    if table.game == "cassino" and table.hand_number > 0 and table.status != "over":
        # Open between rounds, but a Cassino game keeps its players (and its pot) to its end.
        raise Conflict("table_not_open", "players join a Cassino table before its first round:"
                       f" this game is under way (round {table.hand_number}); start another table")
    if table.status != "open":
        raise Conflict("table_not_open", "players join between hands of an open table")
    if table.seat_of(player_id) is not None:
        raise Conflict("already_seated", "this player already has a seat here")
    if len(table.seats) >= engine.info.max_players:
        raise Conflict("table_full", f"{table.game} seats at most {engine.info.max_players}")
    seat = {"seat": len(table.seats), "player_id": player_id, "age": age, "seed": seed}
    event = NewEvent("PlayerSeated", {**seat, "buy_in": buy_in}, metadata)
    seat["chair"] = tables.free_chair(table.seats)
    move = [ledger.Transfer(ledger.wallet(player_id), ledger.seat(table.table_id, player_id),
                            buy_in, "buy_in", table=table.table_id)] if buy_in else []
    record(uow, table, [event], move, metadata)
    table.seats = [*table.seats, seat]
    uow.save(table, metadata.get("actor"))
    flush(uow)
    return seat


def cash_out(uow: UnitOfWork, table: TableRow, player_ids: Sequence[str],
             metadata: dict[str, Any], carried: bool = False,
             ) -> tuple[list[NewEvent], list[ledger.Transfer]]:
    """The leaving and the payouts of `player_ids`' seats, each paid what it holds; `carried`:
    the last hand's state carries past the leave (`projections.tables.unseat`)."""
    held = uow.seat_balances(table)
    events, moves = [], []
    for s in table.seats:
        if s["player_id"] not in player_ids:
            continue
        amount = held[s["player_id"]]
        events.append(NewEvent("PlayerLeft", {"seat": s["seat"], "player_id": s["player_id"],
                                              "cash_out": amount,
                                              **({"carried": True} if carried else {})},
                               metadata))
        if amount:
            moves.append(ledger.Transfer(ledger.seat(table.table_id, s["player_id"]),
                                         ledger.wallet(s["player_id"]), amount, "cash_out",
                                         table=table.table_id))
    return events, moves


def leave(uow: UnitOfWork, table: TableRow, player_id: str, metadata: dict[str, Any]) -> int:
    """Unseat a player between hands; his seat balance goes back to his wallet."""
    if table.seat_of(player_id) is None:
        raise NotFound("not_seated", "this player has no seat here")
    if table.status != "open" or (table.game == "cassino" and table.hand_number > 0):
        raise Conflict("hand_in_play", "players leave between hands (a Cassino game to its end)")
    events, moves = cash_out(uow, table, [player_id], metadata, carried=True)
    record(uow, table, events, moves, metadata)
    tables.unseat(table, player_id, carried=True)
    uow.save(table, metadata.get("actor"))
    flush(uow)
    return int(events[0].data["cash_out"])


def open_hand(uow: UnitOfWork, table: TableRow, metadata: dict[str, Any]) -> TableRow:
    """Deal the next hand: a fresh secret seed whose commitment opens the hand."""
    engine = engine_of(table)
    if table.status != "open":
        raise Conflict("hand_in_play" if table.status != "over" else "table_over",
                      f"the table is {table.status}")
    if len(table.seats) < engine.info.min_players:
        raise Conflict("not_enough_players", f"{table.game} needs {engine.info.min_players}")
    held = uow.seat_balances(table)
    seats = [SeatInfo(s["seat"], s["player_id"], held[s["player_id"]], s["age"], s["seed"])
             for s in table.seats]
    try:
        nobody = engine.played_by_nobody(table.options, seats, table.state)
    except IllegalMove as e:  # options the engine refuses, said as the deal itself says them
        raise Invalid(e.code, e.message) from e
    if nobody:
        # A 7½ hand where no seat but the banker's holds the minimum bet ends before any player
        # has a turn, every time it is dealt: the deal is refused instead, as a lone player's is.
        raise Conflict("not_enough_players", "nobody could play this hand: a seat takes part"
                       f" only when it holds the table's min_bet ({table.options.get('min_bet')})"
                       " and the hand needs one besides the banker's; a player tops up by leaving"
                       " and sitting down again with more")
    server_seed = new_server_seed()
    material = SeedMaterial(server_seed, tuple(s["seed"] or "" for s in table.seats))
    now = time.time()
    metadata = {**metadata, "command": {"name": "OpenHand", "now": now}}
    try:
        events = engine.start(table.options, seats, material, previous=table.state, now=now)
    except IllegalMove as e:
        # A deck too small for the seats that would play is the table's state, not the request's.
        raise (Conflict if e.code in DEAL_CONFLICTS else Invalid)(e.code, e.message) from e
    opened = replace(table)
    table_fold.begin_hand(opened, engine, "hd_" + secrets.token_hex(8), table.hand_number + 1)
    began = NewEvent("HandBegan", {"hand_id": opened.hand_id, "number": opened.hand_number,
                                   "seats": [tables.seat_record(s) for s in table.seats],
                                   "commitment": deck.commitment(server_seed)}, metadata)
    return _play(uow, opened, events, metadata, now, prefix=[began])


def act(uow: UnitOfWork, table: TableRow, seat: int, payload: dict[str, Any],
        metadata: dict[str, Any]) -> TableRow:
    """A seat's action, decided by the engine on the snapshot of the hand in play, or between
    hands on the state the last one ended in (a Casino pirate volunteer for meneur)."""
    engine = engine_of(table)
    between = table.status == "open" and table.state is not None
    offered = engine.legal_actions(table.state, seat) if between else []
    # A kind the engine takes between hands goes to it even when this seat is not offered it, so
    # that the refusal says why (a Casino pirate volunteer after another took the post).
    taken_between = between and payload["type"] in engine.info.extra.get("between_hands", ())
    if (table.status != "playing" and not taken_between
            and payload["type"] not in {a["type"] for a in offered}):
        raise Conflict("no_hand_in_play", f"the table is {table.status}")
    now = time.time()
    if table.status == "playing" and table.deadline is not None and now >= table.deadline.timestamp():
        # The turn's time is up: its timeout ends it, whenever the job or the sweeper gets to it,
        # not a move the log would show after the deadline it records.
        raise Conflict("turn_timed_out", f"the turn's time ran out at {table.deadline.isoformat()};"
                       " its timeout applies")
    read = _Reads(payload)
    try:
        command = engine.parse_action(seat, read, now)
        if unknown := sorted(payload.keys() - read.keys_read):
            # Not a parameter of this action: a typo the engine would ignore, or junk that would
            # stay in the log with the command for ever.
            raise IllegalMove("bad_action", f"{payload['type']!r} takes no {', '.join(unknown)}")
    except IllegalMove as e:
        raise Invalid(e.code, e.message) from e
    try:
        events = engine.decide(table.state, command)
    except IllegalMove as e:
        # Between hands what refuses a well-formed action is where the table stands (the post
        # already taken), not the action: a conflict, as `no_hand_in_play` is.
        raise (Conflict if between else Invalid)(e.code, e.message) from e
    # The command as decided (seat, payload, time), so an auditor can decide it again.
    recorded_command = {"name": "Act", "seat": seat, "payload": payload, "now": now}
    metadata = {**metadata, "command": recorded_command}
    if between:
        return _between_hands(uow, table, events, metadata)
    return _play(uow, table, events, metadata, now)


def _between_hands(uow: UnitOfWork, table: TableRow, events: Sequence[Event],
                   metadata: dict[str, Any]) -> TableRow:
    """Record an action taken while the table waits for its next deal: the state the hand ended
    in takes it (the next `start` reads it as `previous`), and the table stays open, with no turn
    and no deadline. Its events belong to the hand they follow."""
    table_fold.play(table, engine_of(table), events)
    records = [recorded(table.hand_id, e, metadata) for e in events]
    moves = transfers(table, [p for e in events for p in e.postings])
    record(uow, table, records, moves, metadata)
    uow.save(table, metadata.get("actor"))
    flush(uow)
    return table


class _Reads(Mapping[str, Any]):
    """An action's payload that notes which of its keys the engine's parser reads: the
    parameters of the action it parsed, whichever the game."""

    def __init__(self, payload: Mapping[str, Any]) -> None:
        self._payload = payload
        self.keys_read = {"type"}

    def __getitem__(self, key: str) -> Any:
        self.keys_read.add(key)
        return self._payload[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._payload)

    def __len__(self) -> int:
        return len(self._payload)


def time_out(uow: UnitOfWork, table: TableRow, metadata: dict[str, Any]) -> TableRow | None:
    """Apply the game's timeout rule to the turn in play; None when the engine has none to apply."""
    engine = engine_of(table)
    now = time.time()
    try:
        command = engine.timeout(table.state, now)
        events = engine.decide(table.state, command)
    except IllegalMove:
        return None
    recorded_command = {"name": "TimeOut", "seat": getattr(command, "seat", None), "now": now}
    return _play(uow, table, events, {**metadata, "command": recorded_command}, now)


def turn_limit(table: TableRow, turn: dict[str, Any]) -> float:
    """Seconds the turn may last: the banker's (or meneur's) limit, or a player's."""
    key = "banker_timeout_s" if turn["role"] == "banker" else "turn_timeout_s"
    return float(table.options.get(key) or table.options.get("turn_timeout_s") or 60)


def _play(uow: UnitOfWork, table: TableRow, events: Sequence[Event], metadata: dict[str, Any],
          now: float, prefix: Sequence[NewEvent] = ()) -> TableRow:
    """Queue the engine's events of a hand in play (after `prefix`, a deal's HandBegan), with
    the row folded from them as a rebuild folds it (`projections.table_fold`), and write them."""
    engine = engine_of(table)
    table_fold.play(table, engine, events)  # a hand they end settles next
    records = [*prefix, *(recorded(table.hand_id, e, metadata) for e in events)]
    last_game_event = len(records) - 1
    turn = turn_of(engine, table.state)
    deadline = None
    if table.status == "playing" and turn is not None:
        # The deadline is recorded with the turn, so replays are deterministic and clients can
        # count down; the projection keeps it for the sweeper.
        deadline = now + turn_limit(table, turn)
        records.append(NewEvent("DeadlineSet", {"hand": table.hand_id, "seat": turn["seat"],
                                                "waiting_for": turn["waiting_for"],
                                                "deadline": deadline}, metadata))
    table_fold.turn(table, engine, deadline)
    moves = transfers(table, [p for e in events for p in e.postings])
    first_version = table.version + 1
    last_of_hand = table.version + last_game_event + 1  # versions follow one another
    record(uow, table, records, moves, metadata)
    uow.save(table, metadata.get("actor"))
    if table.status == "settling" and not prefix:
        assert table.hand_id is not None
        uow.hand_status(table.hand_id, "settling", last_version=last_of_hand)
    stored = flush(uow)
    if prefix:
        # Its opening time is its HandBegan's, known once stored; written with the commit.
        uow.hand_began(table, str(records[0].data["commitment"]), first_version,
                       stored[0].recorded_at)
        if table.status == "settling":  # the deal ended it (no seat could bet): as a move does
            assert table.hand_id is not None
            uow.hand_status(table.hand_id, "settling", last_version=last_of_hand)
    return table
