"""The token and auditor commands run on their own: on a connection of the session's database, in
a transaction of the caller's, with no app and no HTTP in sight."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from events.model import ConcurrencyConflict
from events.postgres import PostgresEventStore
from service.application import auditors, players, tokens
from service.application.auditors import RegisterAuditor
from service.application.errors import Conflict, NotFound
from service.application.players import ErasePlayer, RegisterPlayer
from service.application.tokens import ReissueToken, RevokeTokens, RotateTokens, token_hash
from service.http.app import REFUSED_STATUS
from tests.service.command_db import joined, meta


def registered(conn: psycopg.Connection, store: PostgresEventStore) -> tuple[str, dict[str, Any]]:
    """A new player and the token his registration issued."""
    command = RegisterPlayer("Ada")
    with conn.transaction():
        issued = players.register(joined(conn, store), command, meta("RegisterPlayer"))
    return command.player_id, issued


def live(conn: psycopg.Connection, role: str, subject: str) -> list[tuple[str, bytes]]:
    """The subject's working tokens: their ids and stored hashes."""
    return [(token_id, bytes(digest)) for token_id, digest in conn.execute(
        "SELECT token_id, token_hash FROM tokens WHERE role = %s AND subject = %s ORDER BY token_id",
        (role, subject)).fetchall()]


def changes(conn: psycopg.Connection, store: PostgresEventStore, stream: str,
            after: int = 0) -> list[tuple[str, str]]:
    """The token events of `stream` after version `after`: their types and the ids they name."""
    return [(e.type, e.data["token_id"]) for e in store.read_stream(stream, after, conn=conn)
            if e.type.startswith("Token")]


def version(conn: psycopg.Connection, stream: str) -> int:
    [v] = conn.execute("SELECT coalesce(max(version), 0) FROM events WHERE stream_id = %s",
                       (stream,)).fetchone() or [0]
    return int(v)


def count_events(conn: psycopg.Connection) -> int:
    [n] = conn.execute("SELECT count(*) FROM events").fetchone() or [0]
    return int(n)


def in_clear(conn: psycopg.Connection, token: str) -> int:
    """How many events or token rows hold `token` itself."""
    [n] = conn.execute(
        "SELECT (SELECT count(*) FROM events WHERE data::text LIKE %(t)s OR metadata::text LIKE %(t)s)"
        " + (SELECT count(*) FROM tokens t WHERE t::text LIKE %(t)s"
        "    OR position(convert_to(%(raw)s, 'UTF8') in t.token_hash) > 0)",
        {"t": f"%{token}%", "raw": token}).fetchone() or [0]
    return int(n)


def test_a_rotation_revokes_the_players_token_and_stores_the_new_one_only_hashed(conn, store):
    player_id, first = registered(conn, store)
    stream = players.stream(player_id)
    before = version(conn, stream)
    with conn.transaction():
        issued = tokens.rotate(joined(conn, store), RotateTokens("player", player_id),
                               meta("RotatePlayerToken", f"player:{player_id}"))
    assert (issued["role"], issued["subject"]) == ("player", player_id)
    assert issued["token_id"] != first["token_id"] and issued["token"] != first["token"]
    assert live(conn, "player", player_id) == [(issued["token_id"], token_hash(issued["token"]))]
    revoked, made = store.read_stream(stream, before, conn=conn)
    assert (revoked.type, revoked.data["token_id"]) == ("TokenRevoked", first["token_id"])
    assert (made.type, made.data["token_id"]) == ("TokenIssued", issued["token_id"])
    assert made.data["actor"] == f"player:{player_id}"
    assert made.metadata["command"] == "RotatePlayerToken"
    assert in_clear(conn, issued["token"]) == 0 and in_clear(conn, first["token"]) == 0


def test_a_rotation_for_no_one_or_an_erased_player_is_refused_and_writes_nothing(conn, store):
    for role, code in (("player", "player_not_found"), ("auditor", "auditor_not_found")):
        before = count_events(conn)
        with pytest.raises(NotFound) as refused, conn.transaction():
            tokens.rotate(joined(conn, store), RotateTokens(role, "xx_nobody"), meta("Rotate"))
        assert refused.value.code == code
        assert count_events(conn) == before

    player_id, _ = registered(conn, store)
    with conn.transaction():
        players.erase(joined(conn, store), ErasePlayer(player_id), meta("ErasePlayer"))
    before = count_events(conn)
    with pytest.raises(Conflict) as refused, conn.transaction():
        tokens.rotate(joined(conn, store), RotateTokens("player", player_id), meta("RotatePlayerToken"))
    assert refused.value.code == "player_erased" and REFUSED_STATUS[Conflict] == 409
    assert count_events(conn) == before
    assert live(conn, "player", player_id) == []


def test_revoking_leaves_the_subject_no_token_and_revoking_again_appends_nothing(conn, store):
    player_id, first = registered(conn, store)
    stream = players.stream(player_id)
    before = version(conn, stream)
    with conn.transaction():
        tokens.revoke(joined(conn, store), RevokeTokens("player", player_id), meta("RevokePlayerToken"))
    assert live(conn, "player", player_id) == []
    assert changes(conn, store, stream, before) == [("TokenRevoked", first["token_id"])]
    events = count_events(conn)
    with conn.transaction():
        tokens.revoke(joined(conn, store), RevokeTokens("player", player_id), meta("RevokePlayerToken"))
    assert count_events(conn) == events
    with pytest.raises(NotFound) as refused, conn.transaction():
        tokens.revoke(joined(conn, store), RevokeTokens("player", "pl_nobody"), meta("RevokePlayerToken"))
    assert refused.value.code == "player_not_found"


def test_a_reissue_replaces_that_one_token_and_none_once_it_is_gone(conn, store):
    player_id, first = registered(conn, store)
    stream = players.stream(player_id)
    before = version(conn, stream)
    with conn.transaction():
        issued = tokens.reissue(joined(conn, store), ReissueToken(first["token_id"]), meta("ReissueToken"))
    assert issued is not None and issued["subject"] == player_id
    assert live(conn, "player", player_id) == [(issued["token_id"], token_hash(issued["token"]))]
    assert changes(conn, store, stream, before) == [("TokenRevoked", first["token_id"]),
                                                    ("TokenIssued", issued["token_id"])]
    assert in_clear(conn, issued["token"]) == 0

    # The token it replaced, one revoked since, and one never issued: nothing to replace.
    with conn.transaction():
        tokens.revoke(joined(conn, store), RevokeTokens("player", player_id), meta("RevokePlayerToken"))
    events = count_events(conn)
    for gone in (first["token_id"], issued["token_id"], "tk_nothing"):
        with conn.transaction():
            assert tokens.reissue(joined(conn, store), ReissueToken(gone), meta("ReissueToken")) is None
    assert count_events(conn) == events
    assert live(conn, "player", player_id) == []


def test_an_auditor_is_registered_with_a_token_stored_only_hashed(conn, store):
    command = RegisterAuditor("Eve")
    with conn.transaction():
        issued = auditors.register(joined(conn, store), command, meta("RegisterAuditor"))
    auditor_id = command.auditor_id
    assert auditor_id.startswith("au_")
    assert (issued["role"], issued["subject"]) == ("auditor", auditor_id)
    auditor = auditors.load(conn, auditor_id)
    assert (auditor["id"], auditor["name"]) == (auditor_id, "Eve")
    registration, made = store.read_stream(auditors.stream(auditor_id), conn=conn)
    assert registration.type == "AuditorRegistered"
    assert registration.data == {"auditor_id": auditor_id, "name": "Eve"}
    assert auditor["created_at"] == registration.recorded_at
    assert (made.type, made.data["token_id"]) == ("TokenIssued", issued["token_id"])
    assert live(conn, "auditor", auditor_id) == [(issued["token_id"], token_hash(issued["token"]))]
    assert in_clear(conn, issued["token"]) == 0
    assert in_clear(conn, issued["token_id"]) > 0  # what the probe looks for, it finds

    # His token rotates as a player's does; an auditor is never erased.
    with conn.transaction():
        rotated = tokens.rotate(joined(conn, store), RotateTokens("auditor", auditor_id),
                                meta("RotateAuditorToken"))
    assert live(conn, "auditor", auditor_id) == [(rotated["token_id"], token_hash(rotated["token"]))]


def test_no_auditor_is_a_not_found_and_one_id_is_registered_once(conn, store):
    with pytest.raises(NotFound) as refused:
        auditors.load(conn, "au_nobody")
    assert refused.value.code == "auditor_not_found" and auditors.find(conn, "au_nobody") is None

    command = RegisterAuditor("Eve")
    with conn.transaction():
        first = auditors.register(joined(conn, store), command, meta("RegisterAuditor"))
    events = count_events(conn)
    with pytest.raises(ConcurrencyConflict), conn.transaction():
        auditors.register(joined(conn, store), RegisterAuditor("Mallory", command.auditor_id),
                          meta("RegisterAuditor"))
    assert count_events(conn) == events
    assert auditors.load(conn, command.auditor_id)["name"] == "Eve"
    assert live(conn, "auditor", command.auditor_id) == [(first["token_id"],
                                                         token_hash(first["token"]))]
