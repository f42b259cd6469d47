"""Registration, erasure, tokens and auditors on both units of work (tests/application/
conftest.py), through the bus: what they record, the credentials they keep beside the log, and
their refusals, which keep and write nothing. What only PostgreSQL shows (the hashes stored, no
token in clear in any row) is tested in tests/service/test_token_commands.py and
test_player_commands.py."""

from __future__ import annotations

from typing import Any

import pytest

from events.model import ConcurrencyConflict
from service.application import auditors, players
from service.application.auditors import RegisterAuditor
from service.application.bus import handle
from service.application.errors import Conflict, NotFound
from service.application.players import Deposit, ErasePlayer, RegisterPlayer
from service.application.tokens import ReissueToken, RevokeTokens, RotateTokens
from tests.application.conftest import Work

META = {"actor": "operator:operator"}


def register(work: Work, name: str = "Ada") -> tuple[str, dict[str, Any]]:
    command = RegisterPlayer(name)
    with work() as uow:
        issued = handle(command, uow, META)
    return command.player_id, issued


def holder(work: Work, token_id: str) -> tuple[str, str] | None:
    with work() as uow:
        return uow.credentials.holder_of(token_id)


def logged(work: Work, stream: str) -> list[tuple[str, Any]]:
    """The stream's events: their types, and the token each names."""
    with work() as uow:
        return [(e.type, e.data.get("token_id")) for e in uow.read_stream(stream, 0, 100)]


def test_a_registration_seals_the_name_and_issues_a_first_token(work: Work):
    # A name with a space: the sealed text is base64url, which a short name like "Ada" may
    # appear in by chance (it did, once), and a space never can.
    name = "Ada Lovelace"
    player_id, issued = register(work, name)
    assert (issued["role"], issued["subject"]) == ("player", player_id)
    assert holder(work, issued["token_id"]) == ("player", player_id)
    with work() as uow:
        row = uow.player(player_id)
        [registration, _] = uow.read_stream(players.stream(player_id), 0, 10)
    assert row is not None and row["name"] == name and row["erased"] is False
    assert name not in str(registration.data) and issued["token"] not in str(registration.data)
    assert logged(work, players.stream(player_id)) == [("PlayerRegistered", None),
                                                        ("TokenIssued", issued["token_id"])]


def test_a_rotation_replaces_every_token_and_a_reissue_replaces_one(work: Work):
    player_id, first = register(work)
    with work() as uow:
        rotated = handle(RotateTokens("player", player_id), uow, META)
    assert holder(work, first["token_id"]) is None
    assert holder(work, rotated["token_id"]) == ("player", player_id)
    with work() as uow:
        reissued = handle(ReissueToken(rotated["token_id"]), uow, META)
    assert reissued is not None and holder(work, reissued["token_id"]) == ("player", player_id)
    assert holder(work, rotated["token_id"]) is None
    before = logged(work, players.stream(player_id))
    assert before[1:] == [("TokenIssued", first["token_id"]),
                          ("TokenRevoked", first["token_id"]),
                          ("TokenIssued", rotated["token_id"]),
                          ("TokenRevoked", rotated["token_id"]),
                          ("TokenIssued", reissued["token_id"])]
    for gone in (first["token_id"], rotated["token_id"], "tk_never"):
        with work() as uow:
            assert handle(ReissueToken(gone), uow, META) is None
    with work() as uow:
        handle(RevokeTokens("player", player_id), uow, META)
    with work() as uow:
        handle(RevokeTokens("player", player_id), uow, META)  # none left: nothing appended
    assert logged(work, players.stream(player_id)) == [
        *before, ("TokenRevoked", reissued["token_id"])]


def test_an_erasure_forgets_the_name_revokes_the_tokens_and_happens_once(work: Work):
    player_id, issued = register(work, "Grace")
    with work() as uow:
        handle(Deposit(player_id, 20, "seed"), uow, META)
    with work() as uow:
        assert handle(ErasePlayer(player_id), uow, META) is True
    with work() as uow:
        row = uow.player(player_id)
        assert uow.balance(f"wallet:{player_id}") == 20
    assert row is not None and row["name"] is None and row["erased"] is True
    assert holder(work, issued["token_id"]) is None
    after = logged(work, players.stream(player_id))
    with work() as uow:
        assert handle(ErasePlayer(player_id), uow, META) is False
    with pytest.raises(Conflict) as erased, work() as uow:
        handle(RotateTokens("player", player_id), uow, META)
    assert erased.value.code == "player_erased"
    assert logged(work, players.stream(player_id)) == after
    with pytest.raises(NotFound) as nobody, work() as uow:
        handle(ErasePlayer("pl_nobody"), uow, META)
    assert nobody.value.code == "player_not_found"
    with pytest.raises(NotFound) as no_auditor, work() as uow:
        handle(RotateTokens("auditor", "au_nobody"), uow, META)
    assert no_auditor.value.code == "auditor_not_found"


def test_an_auditor_is_registered_once_with_a_token(work: Work):
    command = RegisterAuditor("Eve")
    with work() as uow:
        issued = handle(command, uow, META)
    assert holder(work, issued["token_id"]) == ("auditor", command.auditor_id)
    with pytest.raises(ConcurrencyConflict), work() as uow:
        handle(RegisterAuditor("Mallory", command.auditor_id), uow, META)
    # The refused registration kept no token and no row: his first stands alone.
    with work() as uow:
        rotated = handle(RotateTokens("auditor", command.auditor_id), uow, META)
    assert holder(work, issued["token_id"]) is None
    assert [t for kind, t in logged(work, auditors.stream(command.auditor_id))
            if kind == "TokenRevoked"] == [issued["token_id"]]
    assert holder(work, rotated["token_id"]) == ("auditor", command.auditor_id)
