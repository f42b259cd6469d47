"""The erasure journal (service/application/erasure_journal.py) on both units of work: an
erasure, a token revoked or replaced, a key revoked or rotated is kept as it is about to commit,
and only then; `reapply` erases again whom the database does not hold erased, and nobody twice;
`retire_again` retires again what the database holds valid, and nothing twice. The file it is
kept in is tested below; the restore it serves, in tests/service/test_restore_drill.py and
tests/service/test_credentials_restore.py."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from service.application import bus, operator_keys
from service.application.auditors import RegisterAuditor
from service.application.erasure_journal import (
    Entry,
    Erasure,
    KeyRevoked,
    KeyRotated,
    TokenRetired,
    keeper,
    reapply,
    retire_again,
)
from service.application.file_erasure_journal import FileJournal, JournalError
from service.application.operator_keys import CreateKey, RevokeKey, RotateKey
from service.application.players import Deposit, ErasePlayer, RegisterPlayer
from service.application.tokens import ReissueToken, RevokeTokens, RotateTokens
from service.application.unit_of_work import UnitOfWork
from tests.application.conftest import Work

META = {"actor": "operator:operator"}


class Kept:
    def __init__(self) -> None:
        self.kept: list[Entry] = []

    def record(self, entry: Entry) -> None:
        self.kept.append(entry)

    def entries(self) -> list[Entry]:
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


AT = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def issued(work: Work, command: Any) -> dict[str, Any]:
    with work() as uow:
        shown: dict[str, Any] = bus.handle(command, uow, META)
    return shown


def test_each_token_and_key_retired_is_kept_before_it_commits_and_never_its_secret(work: Work):
    journal = Kept()
    handle = bus.Bus([keeper(journal)]).handle
    player = RegisterPlayer("Ada")
    first = issued(work, player)
    auditor = RegisterAuditor("Aud")
    audit_token = issued(work, auditor)
    key = issued(work, CreateKey("desk", ("tables:read",)))
    assert journal.kept == []  # a registration and a new key retire nothing
    shown: list[str] = [first["token"], audit_token["token"], key["secret"]]
    with work() as uow:
        shown.append(handle(RotateTokens("player", player.player_id), uow, META)["token"])
        [kept] = journal.kept  # kept while the rotation is still to commit
    assert kept == TokenRetired(first["token_id"], "player", player.player_id, META["actor"],
                                kept.recorded_at)
    with work() as uow:  # a retry of the rotation: its token replaced by another
        reissued = handle(ReissueToken(_token_id(uow, player.player_id)), uow, META)
        shown.append(reissued["token"])
    with work() as uow:
        handle(RevokeTokens("auditor", auditor.auditor_id), uow, META)
    with work() as uow:
        handle(RevokeTokens("auditor", auditor.auditor_id), uow, META)  # none left: nothing
    with work() as uow:
        shown.append(handle(RotateKey(key["key"]["id"]), uow, META)["secret"])
    with work() as uow:
        assert handle(RevokeKey(key["key"]["id"]), uow, META) is True
    with work() as uow:
        assert handle(RevokeKey(key["key"]["id"]), uow, META) is False  # revoked already
    tokens_kept = [e for e in journal.kept if isinstance(e, TokenRetired)]
    assert [(e.role, e.subject) for e in tokens_kept] == [
        ("player", player.player_id), ("player", player.player_id),
        ("auditor", auditor.auditor_id)]
    assert tokens_kept[2].token_id == audit_token["token_id"]
    key_id = key["key"]["id"]
    [rotated, revoked] = [e for e in journal.kept if not isinstance(e, TokenRetired)]
    assert isinstance(rotated, KeyRotated) and isinstance(revoked, KeyRevoked)
    assert (rotated.key_id, rotated.issued_at, revoked.key_id) == (
        key_id, key["key"]["created_at"], key_id)
    assert len(journal.kept) == 5
    for secret in shown:
        assert secret not in str(journal.kept)
        assert operator_keys.secret_hash(secret).hex() not in str(journal.kept)
    # An erasure is kept as one erasure: its revoked tokens are the erasure's to revoke again.
    with work() as uow:
        handle(ErasePlayer(player.player_id), uow, META)
    assert isinstance(journal.kept[-1], Erasure) and len(journal.kept) == 6


def _token_id(uow: UnitOfWork, player_id: str) -> str:
    """The id of the one token the player holds."""
    [token_id] = [e.data["token_id"] for e in uow.read_stream(f"player-{player_id}", 0, 100)
                  if e.type == "TokenIssued"][-1:]
    return str(token_id)


def test_retire_again_retires_what_the_database_holds_valid_and_nothing_twice(work: Work):
    """The journal replayed into a database that holds its credentials valid, as a restore to a
    point before their revocations leaves it."""
    player, auditor = RegisterPlayer("Ada"), RegisterAuditor("Aud")
    token, audit_token = issued(work, player), issued(work, auditor)
    kept_token = issued(work, RegisterPlayer("Bob"))
    revoked, rotated, later = (issued(work, CreateKey(n, ("tables:read",)))["key"]
                               for n in ("revoked", "rotated", "rotated since"))
    with work() as uow:  # rotated after the secret the journal names: left as it is
        since = bus.handle(RotateKey(later["id"]), uow, META)["key"]["rotated_at"]
    entries: list[Entry] = [
        Erasure("pl_someone", "operator:operator", AT),  # `reapply`'s, not retire_again's
        TokenRetired(token["token_id"], "player", player.player_id, "operator:operator", AT),
        TokenRetired(audit_token["token_id"], "auditor", auditor.auditor_id,
                     "operator:operator", AT),
        TokenRetired("tk_issuedafter", "player", "pl_later", "operator:operator", AT),
        KeyRotated(revoked["id"], revoked["created_at"], "operator:operator", AT),
        KeyRevoked(revoked["id"], "operator:operator", AT),
        KeyRotated(rotated["id"], rotated["created_at"], "player:x", AT),
        KeyRotated(later["id"], later["created_at"], "operator:operator", AT),
        KeyRevoked("ok_madeafter", "operator:operator", AT),
        TokenRetired(token["token_id"], "player", player.player_id, "operator:operator", AT),
    ]
    done = retire_again(entries, work, bus.handle)
    assert done.revoked == [token["token_id"], audit_token["token_id"], revoked["id"]]
    assert done.replaced == [rotated["id"]]
    assert done.already == ["tk_issuedafter", later["id"], "ok_madeafter"]
    with work() as uow:
        assert uow.credentials.holder_of(token["token_id"]) is None
        assert uow.credentials.holder_of(audit_token["token_id"]) is None
        assert uow.credentials.holder_of(kept_token["token_id"]) is not None
        keys = {k["id"]: k for k in uow.credentials.operator_keys()}
        [*_, last] = uow.read_stream(f"player-{player.player_id}", 0, 100)
        logged = {k: [e.type for e in uow.read_stream(operator_keys.stream(k), 0, 100)]
                  for k in (revoked["id"], rotated["id"])}
    assert keys[revoked["id"]]["status"] == "revoked"
    assert keys[rotated["id"]]["status"] == "active" and keys[rotated["id"]]["rotated_at"]
    assert keys[later["id"]]["rotated_at"] == since
    # Revoked, not rotated first; each by `restore`, naming the original's actor and time.
    assert logged == {revoked["id"]: ["OperatorKeyCreated", "OperatorKeyRevoked"],
                      rotated["id"]: ["OperatorKeyCreated", "OperatorKeyRotated"]}
    assert (last.type, last.data["actor"], last.metadata["actor"]) == (
        "TokenRevoked", "restore", "restore")
    assert last.metadata["reapplied"] == {"actor": "operator:operator",
                                          "recorded_at": AT.isoformat()}
    assert last.metadata["command"] == "RevokePlayerToken"
    again = retire_again(entries, work, bus.handle)
    assert (again.revoked, again.replaced) == ([], [])
    assert len(again.already) == 7
    # `reapply` leaves them to it.
    assert reapply(entries, work, bus.handle).absent == ["pl_someone"]


def test_the_journal_file_keeps_retired_credentials_beside_erasures_as_they_were(
        tmp_path: Path):
    journal = FileJournal(tmp_path / "erasures.jsonl")
    kept: list[Entry] = [
        Erasure("pl_a", "operator:operator", AT),
        TokenRetired("tk_1", "auditor", "au_1", "operator:ok_1", AT),
        KeyRevoked("ok_1", "operator:operator", AT),
        KeyRotated("ok_2", datetime(2026, 11, 1, 9, 30, 0, 123456, tzinfo=UTC), "operator:ok_1",
                   AT),
    ]
    for entry in kept:
        journal.record(entry)
    assert journal.entries() == kept
    lines = journal.path.read_text().splitlines()
    # An erasure's line is as it ever was; the others say their kind first.
    assert lines[0] == ('{"player_id": "pl_a", "actor": "operator:operator",'
                        ' "recorded_at": "2026-11-27T12:00:00+00:00"}')
    assert [line.split(",")[0] for line in lines[1:]] == [
        '{"kind": "token_retired"', '{"kind": "operator_key_revoked"',
        '{"kind": "operator_key_rotated"']
    # A write of one cut short is passed over as an erasure's is.
    with journal.path.open("a") as f:
        f.write('{"kind": "token_retired", "token_id": "tk_')
    assert journal.entries() == kept


NOT_ENTRIES = {
    "an unknown kind": (b'{"kind": "webhook_deleted", "actor": "a", "recorded_at": "2026"}\n',
                        'not a journal entry: its "kind" is none this Banco knows:'
                        " 'webhook_deleted'"),
    "a kind that is a list": (b'{"kind": ["token_retired"]}\n', "not a journal entry"),
    "a token with no id": (b'{"kind": "token_retired", "role": "player", "subject": "pl_a",'
                           b' "actor": "a", "recorded_at": "2026-11-27T12:00:00+00:00"}\n',
                           'not a retired token: it has no "token_id"'),
    "a token of an operator": (b'{"kind": "token_retired", "token_id": "tk_1", "role":'
                               b' "operator", "subject": "x", "actor": "a",'
                               b' "recorded_at": "2026-11-27T12:00:00+00:00"}\n',
                               'not a retired token: its "role" is neither'),
    "a key with an id that is a number": (b'{"kind": "operator_key_revoked", "key_id": 7,'
                                          b' "actor": "a", "recorded_at":'
                                          b' "2026-11-27T12:00:00+00:00"}\n',
                                          'not a revoked operator key: its "key_id" is not an'
                                          ' id: 7'),
    "a rotation with no offset": (b'{"kind": "operator_key_rotated", "key_id": "ok_1",'
                                  b' "issued_at": "2026-11-27T12:00:00", "actor": "a",'
                                  b' "recorded_at": "2026-11-27T12:00:00+00:00"}\n',
                                  'not a rotated operator key: its "issued_at" has no UTC'
                                  ' offset'),
    "a whole line with no newline": (b'{"kind": "operator_key_revoked", "key_id": "ok_1"}',
                                     'not a revoked operator key: it has no "actor"'),
}


@pytest.mark.parametrize("case", NOT_ENTRIES)
def test_a_line_of_a_kind_that_is_wrong_is_named_with_its_kind(case: str, tmp_path: Path):
    content, why = NOT_ENTRIES[case]
    journal = FileJournal(tmp_path / "erasures.jsonl")
    journal.path.write_bytes(content)
    with pytest.raises(JournalError, match="line 1: not ") as refused:
        journal.entries()
    assert why in str(refused.value)


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
    "one line of text with no newline": (b"garbage without a newline", "line 1: not a journal entry"),
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
    # A JSON object without a kind is an erasure's line, named so; anything else cannot say
    # which kind it would be (a credential's line cut short in the middle, say).
    said = "an erasure" if content.startswith(b"{") else "a journal entry"
    with pytest.raises(JournalError, match=f"line 1: not {said}") as refused:
        journal.entries()
    assert why in str(refused.value)
    if said == "a journal entry":  # nor is a credential's line that is no JSON an "erasure"
        journal.path.write_bytes(b'{"kind": "token_retired", "token_id": "tk_2"\n')
        with pytest.raises(JournalError, match="line 1: not a journal entry: it is not JSON"):
            journal.entries()
