"""The erasure journal (service/application/erasure_journal.py) on both units of work: an
erasure is kept as it is about to commit, and only then; `reapply` erases again whom the
database does not hold erased, and nobody twice. The file it is kept in is tested below; the
restore it serves, in tests/service/test_restore_drill.py."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from service.application import bus
from service.application.erasure_journal import Erasure, keeper, reapply
from service.application.file_erasure_journal import FileJournal, JournalError
from service.application.players import Deposit, ErasePlayer, RegisterPlayer
from service.application.unit_of_work import UnitOfWork
from tests.application.conftest import Work

META = {"actor": "operator:operator"}


class Kept:
    def __init__(self) -> None:
        self.kept: list[Erasure] = []

    def record(self, erasure: Erasure) -> None:
        self.kept.append(erasure)

    def entries(self) -> list[Erasure]:
        return list(self.kept)


def registered(work: Work) -> str:
    command = RegisterPlayer("Ada")
    with work() as uow:
        bus.handle(command, uow, META)
    return command.player_id


def test_an_erasure_is_kept_before_it_commits_and_nothing_else_is(work: Work):
    journal = Kept()
    handle = bus.Bus([keeper(journal)]).handle
    player_id = registered(work)
    with work() as uow:
        handle(Deposit(player_id, 10, "cash"), uow, META)
    assert journal.kept == []
    with work() as uow:
        assert handle(ErasePlayer(player_id), uow, META) is True
        # Kept while the erasure is still to commit: a crash after the commit loses nothing.
        [kept] = journal.kept
    assert (kept.player_id, kept.actor) == (player_id, META["actor"])
    with work() as uow:  # erased already: nothing new to keep
        assert handle(ErasePlayer(player_id), uow, META) is False
    assert len(journal.kept) == 1


def test_reapply_erases_again_whom_the_database_does_not_hold_erased(work: Work):
    erased, restored, later = registered(work), registered(work), "pl_registeredlater"
    with work() as uow:
        bus.handle(ErasePlayer(erased), uow, META)
    at = datetime.now(UTC)
    entries = [Erasure(erased, "operator:operator", at), Erasure(restored, "operator:operator", at),
               Erasure(later, "operator:operator", at), Erasure(restored, "operator:operator", at)]
    told: list[str] = []

    def after(uow: UnitOfWork, player_id: str) -> None:
        told.append(player_id)

    done = reapply(entries, work, bus.handle, after)
    assert (done.erased, done.already, done.absent) == ([restored], [erased], [later])
    assert told == [restored]
    with work() as uow:
        assert uow.player(restored)["name"] is None
        [*_, last] = uow.read_stream(f"player-{restored}", 0, 100)
    assert last.type == "PlayerErased" and last.metadata["actor"] == "restore"
    assert last.metadata["reapplied"]["recorded_at"] == at.isoformat()
    again = reapply(entries, work, bus.handle)
    assert (again.erased, again.already) == ([], [erased, restored])


def test_the_journal_file_keeps_every_line_whole(tmp_path: Path):
    journal = FileJournal(tmp_path / "deep" / "erasures.jsonl")
    assert journal.entries() == []
    at = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
    journal.record(Erasure("pl_a", "operator:operator", at))
    journal.record(Erasure("pl_b", "player:pl_b", at))
    assert [(e.player_id, e.actor, e.recorded_at) for e in journal.entries()] == [
        ("pl_a", "operator:operator", at), ("pl_b", "player:pl_b", at)]
    assert oct(journal.path.stat().st_mode & 0o777) == "0o600"
    # A crash in the middle of a write leaves a last line cut short: left out, not an error.
    with journal.path.open("a") as f:
        f.write('{"player_id": "pl_c", "act')
    assert [e.player_id for e in journal.entries()] == ["pl_a", "pl_b"]
    # Anything else that is not an erasure is an error, naming where.
    journal.path.write_text('{"player_id": "pl_a"}\n' + journal.path.read_text())
    with pytest.raises(JournalError, match="line 1"):
        journal.entries()


NOT_ERASURES = {
    "bytes that are not UTF-8": (b"\xe4\x88garbage\n", "codec can't decode"),
    "an id that is a number": (b'{"player_id": 123, "actor": "operator:operator",'
                               b' "recorded_at": "2026-11-27T12:00:00+00:00"}\n', "is not an id: 123"),
    "an id that is a list": (b'{"player_id": ["pl_a"], "actor": "operator:operator",'
                             b' "recorded_at": "2026-11-27T12:00:00+00:00"}\n', "is not an id"),
    "an id holding NUL": (b'{"player_id": "pl\\u0000a", "actor": "operator:operator",'
                          b' "recorded_at": "2026-11-27T12:00:00+00:00"}\n', "is not an id"),
    "an id holding a lone surrogate": (b'{"player_id": "\\udcff", "actor": "operator:operator",'
                                       b' "recorded_at": "2026-11-27T12:00:00+00:00"}\n',
                                       "surrogates not allowed"),
    "one line of text with no newline": (b"garbage without a newline", "line 1: not an erasure"),
    "a field missing": (b'{"player_id": "pl_a", "recorded_at": "2026-11-27T12:00:00+00:00"}\n',
                        'not an erasure: it has no "actor"'),
    "a field missing, with no newline": (b'{"player_id": "pl_a", "actor": "operator:operator"}',
                                         'not an erasure: it has no "recorded_at"'),
    "a list": (b'["pl_a", "operator:operator"]\n', "it holds a JSON list, not an object"),
    "a time that is a number": (b'{"player_id": "pl_a", "actor": "operator:operator",'
                                b' "recorded_at": 1764244800}\n',
                                'its "recorded_at" is not an ISO 8601 time: 1764244800'),
}


@pytest.mark.parametrize("case", NOT_ERASURES)
def test_a_line_that_is_not_an_erasure_is_named_not_read_or_passed_over(case: str,
                                                                        tmp_path: Path):
    """What `banco erasures reapply` would otherwise send to the database (or fail on in a
    traceback), or take for a write cut short: only a last line begun as `record` begins one
    can be that."""
    content, why = NOT_ERASURES[case]
    journal = FileJournal(tmp_path / "erasures.jsonl")
    journal.path.write_bytes(content)
    with pytest.raises(JournalError, match="line 1: not an erasure") as refused:
        journal.entries()
    assert why in str(refused.value)
