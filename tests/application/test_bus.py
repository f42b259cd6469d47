"""The bus (service/application/bus.py), on both units of work: every command the application
defines has its handler; a table command's handler loads the table, checks the version the
command was decided on and who gives it, and refuses with nothing written; and what moved a
table's play on is told to the bus's subscribers, nothing else."""

from __future__ import annotations

import dataclasses
import inspect
import random
import time
from typing import Any

import pytest

from service.application import (
    auditors,
    bus,
    commands,
    disputes,
    handlers,
    operator_keys,
    players,
    tokens,
    webhook_deliveries,
    webhook_subscriptions,
)
from service.application.commands import (
    Act,
    EndTable,
    IfMatch,
    JoinTable,
    LeaveTable,
    OpenHand,
    TablePlayed,
    TimeOut,
)
from service.application.errors import Forbidden, NotFound, PreconditionRequired, Stale
from service.application.unit_of_work import UnitOfWork
from tests.application.conftest import Work
from tests.application.test_table_commands import META, load, open_table, player
from tests.games.test_sevenhalf_properties import concrete

# What a module holds that is a command: a frozen dataclass other than the notices and results.
NOT_COMMANDS = {commands.IfMatch, commands.Joined, commands.TablePlayed, commands.TimedOut,
                players.Erasing, tokens.TokensRetiring, operator_keys.KeyRevoking,
                operator_keys.KeyRotating, disputes.Correction}


def defined_commands() -> set[type]:
    found = set()
    for module in (commands, players, tokens, auditors, webhook_subscriptions,
                   webhook_deliveries, operator_keys, disputes):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (cls.__module__ == module.__name__ and dataclasses.is_dataclass(cls)
                    and cls not in NOT_COMMANDS):
                found.add(cls)
    return found


def test_every_command_has_its_handler():
    assert defined_commands() == set(bus.HANDLERS)


def version(v: int) -> IfMatch:
    return IfMatch(True, False, frozenset({str(v)}))


def dealt(work: Work) -> tuple[str, list[str]]:
    ann, bob = player(work, 100), player(work, 100)
    table_id = open_table(work, [(ann, 50), (bob, 50)])
    with work() as uow:
        bus.handle(OpenHand(table_id, None), uow, META)
    return table_id, [ann, bob]


def whose_turn(work: Work, table_id: str) -> tuple[str, int, dict[str, Any]]:
    """The player whose turn it is, his seat and a legal move of his."""
    table = load(work, table_id)
    engine = handlers.engine_of(table)
    seat, offered = next((s, a) for s in table.seats
                         if (a := engine.legal_actions(table.state, s["seat"])))
    return seat["player_id"], seat["seat"], concrete(offered[0], random.Random(1))


def test_a_move_names_the_one_version_it_was_decided_on(work: Work):
    table_id, _ = dealt(work)
    player_id, seat, move = whose_turn(work, table_id)
    at = load(work, table_id).version
    for sent in (IfMatch(), IfMatch(True, True), IfMatch(True, False, frozenset({str(at), "1"})),
                 IfMatch(True, False, frozenset({""}))):
        with pytest.raises(PreconditionRequired) as required, work() as uow:
            bus.handle(Act(table_id, player_id, move, if_match=sent), uow, META)
        assert required.value.code == "if_match_required"
    # One tag that is not the version character for character (RFC 9110's strong comparison)
    # is a version the table is not at.
    for tag in (str(at - 1), f"00{at}", "x"):
        with pytest.raises(Stale) as stale, work() as uow:
            bus.handle(Act(table_id, player_id, move, if_match=IfMatch(True, False, frozenset({tag}))),
                       uow, META)
        assert stale.value.code == "stale_version" and stale.value.extra == {"version": at}
    assert load(work, table_id).version == at
    with work() as uow:
        moved = bus.handle(Act(table_id, player_id, move, seat, version(at)), uow, META)
    assert moved.version > at


def test_only_a_seated_player_moves_and_only_for_his_seat(work: Work):
    table_id, _ = dealt(work)
    player_id, seat, move = whose_turn(work, table_id)
    stranger = player(work, 10)
    at = version(load(work, table_id).version)
    with pytest.raises(Forbidden) as unseated, work() as uow:
        bus.handle(Act(table_id, stranger, move, if_match=at), uow, META)
    assert unseated.value.code == "not_seated"
    with pytest.raises(Forbidden) as other, work() as uow:
        bus.handle(Act(table_id, player_id, move, 1 - seat, at), uow, META)
    assert other.value.code == "not_your_seat"
    with pytest.raises(NotFound), work() as uow:
        bus.handle(Act("tb_none", player_id, move, if_match=at), uow, META)
    assert version(load(work, table_id).version) == at


def test_a_deal_is_the_operators_or_a_seated_players_at_the_version_named(work: Work):
    ann, bob = player(work, 100), player(work, 100)
    table_id = open_table(work, [(ann, 50), (bob, 50)])
    at = load(work, table_id).version
    with pytest.raises(Forbidden) as unseated, work() as uow:
        bus.handle(OpenHand(table_id, player(work, 0)), uow, META)
    assert unseated.value.code == "not_seated"
    with pytest.raises(Stale), work() as uow:
        bus.handle(OpenHand(table_id, ann, version(at + 1)), uow, META)
    assert load(work, table_id).version == at
    with work() as uow:
        # Where a version is not required, any (`*`) or a list holding the table's will do.
        table = bus.handle(OpenHand(table_id, ann, IfMatch(True, False,
                                                           frozenset({"0", str(at)}))), uow, META)
    assert table.status == "playing"


def test_a_seat_taken_at_a_stale_version_is_refused(work: Work):
    ann, bob = player(work, 100), player(work, 100)
    table_id = open_table(work, [(ann, 50)])
    at = load(work, table_id).version
    with pytest.raises(Stale), work() as uow:
        bus.handle(JoinTable(table_id, bob, 50, if_match=version(at - 1)), uow, META)
    with work() as uow:
        joined = bus.handle(JoinTable(table_id, bob, 50, if_match=IfMatch(True, True)), uow,
                            META)
    assert joined.seat["player_id"] == bob and joined.table.version == at + 2
    with work() as uow:
        assert bus.handle(LeaveTable(table_id, bob), uow, META) == 50


class Told:
    """A subscriber that notes what it is told, with the unit of work it is told in."""

    def __init__(self) -> None:
        self.notices: list[tuple[TablePlayed, UnitOfWork]] = []

    def __call__(self, notice: TablePlayed, uow: UnitOfWork) -> None:
        self.notices.append((notice, uow))


def test_what_moves_a_tables_play_on_is_told_to_the_subscribers_and_nothing_else(work: Work):
    told = Told()
    play = bus.Bus([told]).handle
    ann, bob = player(work, 100), player(work, 100)
    table_id = open_table(work, [(ann, 50)])
    with work() as uow:
        play(JoinTable(table_id, bob, 50), uow, META)
    assert told.notices == []  # a seat moves no play on
    with work() as uow:
        table = play(OpenHand(table_id, None), uow, META)
        [(notice, told_in)] = told.notices
        assert told_in is uow  # told before the commit, to queue what follows it
    assert (notice.command, notice.table, notice.ended) == ("OpenHand", table, None)
    player_id, _, move = whose_turn(work, table_id)
    at = load(work, table_id)
    with pytest.raises(Stale), work() as uow:
        play(Act(table_id, player_id, move, if_match=version(at.version - 1)), uow, META)
    assert len(told.notices) == 1
    with work() as uow:
        moved = play(Act(table_id, player_id, move, if_match=version(at.version)), uow, META)
    notice = told.notices[-1][0]
    assert (notice.command, notice.table.version) == ("Act", moved.version)
    # The turn the move ended began at the version it was decided on: its timeout is moot.
    assert at.deadline is not None and notice.ended == at.version


def test_a_timeout_fires_once_due_and_only_for_the_turn_in_play(work: Work):
    told = Told()
    table_id = open_table(work, [(player(work, 100), 50), (player(work, 100), 50)],
                          turn_timeout_s=1, banker_timeout_s=1)
    with work() as uow:
        bus.handle(OpenHand(table_id, None), uow, META)
    at = load(work, table_id)
    with work() as uow:
        assert bus.Bus([told]).handle(TimeOut(table_id, at.version), uow, META) is None
    time.sleep(1.05)  # the turn's limit: the engine reads the command's time, not a timer
    with work() as uow:  # a turn that ended at the version before
        assert bus.Bus([told]).handle(TimeOut(table_id, at.version - 1), uow, META) is None
    assert load(work, table_id).version == at.version and told.notices == []
    with work() as uow:
        timed_out = bus.Bus([told]).handle(TimeOut(table_id, at.version), uow, META)
    assert timed_out is not None and timed_out.due == at.deadline
    assert timed_out.table.version > at.version
    assert [n.command for n, _ in told.notices] == ["TimeOut"]


def test_only_an_open_table_ends(work: Work):
    table_id, _ = dealt(work)
    with work() as uow:
        assert bus.handle(EndTable(table_id, "closed"), uow, META) is False
    assert load(work, table_id).status == "playing"
