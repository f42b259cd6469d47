"""The operator's scoped keys on both units of work (tests/application/conftest.py), through the
bus: created, rotated and revoked, each an event of the key's stream, and the refusals, which
keep and write nothing. What only PostgreSQL shows (the hash stored, no secret in any row, the
key refused once revoked or expired) is tested in tests/service/test_operator_keys.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from service.application import operator_keys
from service.application.bus import handle
from service.application.errors import Conflict, Forbidden, Invalid, NotFound
from service.application.operator_keys import CreateKey, RevokeKey, RotateKey, secret_hash
from service.application.scopes import ALL
from tests.application.conftest import Work

META = {"actor": "operator:operator", "key_id": "bootstrap"}


def create(work: Work, name: str = "cashier", scopes: tuple[str, ...] = ("treasure:write",),
           **kw: Any) -> dict[str, Any]:
    with work() as uow:
        issued: dict[str, Any] = handle(CreateKey(name, scopes, **kw), uow, META)
    return issued


def listed(work: Work, key_id: str) -> dict[str, Any] | None:
    with work() as uow:
        return next((k for k in uow.credentials.operator_keys() if k["id"] == key_id), None)


def logged(work: Work, key_id: str) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    with work() as uow:
        return [(e.type, e.data, e.metadata)
                for e in uow.read_stream(operator_keys.stream(key_id), 0, 100)]


def test_a_key_is_made_with_its_scopes_name_and_expiry_and_shown_once(work: Work):
    expiry = datetime.now(UTC) + timedelta(days=30)
    issued = create(work, " cashier desk ", ("treasure:write", "players:read", "treasure:write"),
                    expires_at=expiry)
    key, secret = issued["key"], issued["secret"]
    assert secret.startswith(operator_keys.PREFIX) and key["id"].startswith("ok_")
    assert (key["name"], key["scopes"], key["status"]) == (
        "cashier desk", ["players:read", "treasure:write"], "active")
    shown = listed(work, key["id"])
    assert shown is not None and "hash" not in shown and secret not in str(shown)
    assert (shown["name"], shown["scopes"], shown["status"], shown["expires_at"]) == (
        "cashier desk", ["players:read", "treasure:write"], "active", expiry)
    [(kind, data, metadata)] = logged(work, key["id"])
    assert kind == "OperatorKeyCreated"
    assert data == {"key_id": key["id"], "name": "cashier desk",
                    "scopes": ["players:read", "treasure:write"],
                    "expires_at": expiry.isoformat(), "actor": "operator:operator"}
    assert metadata["key_id"] == "bootstrap"
    assert secret not in str(data) and secret_hash(secret).hex() not in str(data)


def test_a_rotation_replaces_the_secret_and_keeps_the_key(work: Work):
    first = create(work)
    key_id = first["key"]["id"]
    with work() as uow:
        rotated = handle(RotateKey(key_id), uow, META)
    assert rotated["key"]["id"] == key_id and rotated["secret"] != first["secret"]
    shown = listed(work, key_id)
    assert shown is not None and shown["status"] == "active" and shown["rotated_at"] is not None
    assert shown["scopes"] == ["treasure:write"]
    assert [(kind, data["key_id"]) for kind, data, _ in logged(work, key_id)] == [
        ("OperatorKeyCreated", key_id), ("OperatorKeyRotated", key_id)]


def test_a_revoked_key_stays_listed_and_is_never_rotated(work: Work):
    key_id = create(work)["key"]["id"]
    for _ in range(2):  # the second revocation changes nothing, and records nothing
        with work() as uow:
            handle(RevokeKey(key_id), uow, META)
    shown = listed(work, key_id)
    assert shown is not None and shown["status"] == "revoked" and shown["revoked_at"] is not None
    with pytest.raises(Conflict) as refused, work() as uow:
        handle(RotateKey(key_id), uow, META)
    assert refused.value.code == "key_revoked"
    assert [kind for kind, _, _ in logged(work, key_id)] == ["OperatorKeyCreated",
                                                             "OperatorKeyRevoked"]


@pytest.mark.parametrize("command", [RotateKey("ok_nobody"), RevokeKey("ok_nobody")],
                         ids=["rotate", "revoke"])
def test_an_unknown_key_is_not_found(work: Work, command: Any):
    with pytest.raises(NotFound) as refused, work() as uow:
        handle(command, uow, META)
    assert refused.value.code == "key_not_found"
    assert logged(work, "ok_nobody") == []


@pytest.mark.parametrize(("command", "error", "code"), [
    (CreateKey("  ", ("metrics:read",)), Invalid, "invalid_name"),
    (CreateKey("x" * 101, ("metrics:read",)), Invalid, "invalid_name"),
    (CreateKey("k", ()), Invalid, "unknown_scope"),
    (CreateKey("k", ("metrics:read", "root")), Invalid, "unknown_scope"),
    (CreateKey("k", ("metrics:read",), datetime.now(UTC) - timedelta(seconds=1)), Invalid,
     "expiry_passed"),
    (CreateKey("k", ("metrics:read",), datetime(9999, 12, 31, 23, tzinfo=timezone(-timedelta(hours=14)))),
     Invalid, "expiry_too_far"),
    (CreateKey("k", ("keys:admin", "treasure:write"), None, frozenset({"keys:admin"})), Forbidden,
     "scope_not_held"),
], ids=["blank", "long", "no-scope", "unknown-scope", "expired", "too-far", "not-held"])
def test_a_refused_key_is_neither_kept_nor_recorded(work: Work, command: CreateKey,
                                                    error: type[Exception], code: str):
    with work() as uow:
        before = uow.credentials.operator_keys()
    with pytest.raises(error) as refused, work() as uow:
        handle(command, uow, META)
    assert refused.value.code == code  # type: ignore[attr-defined]
    with work() as uow:
        assert uow.credentials.operator_keys() == before


def test_a_keys_expiry_is_at_most_ten_calendar_years_away(work: Work):
    """docs/operations.md: "at most ten years away". It was 3,660 days, ten years and a week."""
    farthest = operator_keys.farthest_expiry(datetime.now(UTC))
    assert farthest.year == datetime.now(UTC).year + 10
    with pytest.raises(Invalid) as refused, work() as uow:
        handle(CreateKey("k", ("metrics:read",), farthest + timedelta(days=2)), uow, META)
    assert refused.value.code == "expiry_too_far"
    with work() as uow:
        kept = handle(CreateKey("k", ("metrics:read",), farthest - timedelta(hours=1)), uow, META)
    assert kept["key"]["expires_at"] is not None
    assert operator_keys.farthest_expiry(datetime(2028, 2, 29, 12, tzinfo=UTC)) == datetime(
        2038, 2, 28, 12, tzinfo=UTC)


def test_a_key_grants_the_scopes_it_holds(work: Work):
    issued = create(work, "keys desk", ("keys:admin", "metrics:read"),
                    granting=frozenset({"keys:admin", "metrics:read"}))
    assert issued["key"]["scopes"] == ["keys:admin", "metrics:read"]
    assert create(work, "everything", tuple(ALL))["key"]["scopes"] == sorted(ALL)
