"""The credentials (`service.application.credentials`) in PostgreSQL: rows of `player_keys`,
`tokens`, `players`, `auditors` and `operator_keys`, written in the unit of work's transaction.
Dropping a token or an operator key's hash also tells every node, once committed, to end its
holder's open streams (`notify.revoked`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from events import personal_data
from service.application import notify
from service.application.credentials import NOT_FOUND, Holder
from service.application.errors import NotFound

if TYPE_CHECKING:
    from service.application.postgres_unit_of_work import PostgresUnitOfWork

# The row that says the subject exists (and whether he was erased), locked.
_SUBJECT = {
    "player": "SELECT erased_at IS NOT NULL FROM players WHERE player_id = %s FOR NO KEY UPDATE",
    "auditor": "SELECT false FROM auditors WHERE auditor_id = %s FOR NO KEY UPDATE",
}


# An operator key as `Credentials.operator_keys` shows it; its status as of the statement.
_KEY_COLUMNS = ("key_id, name, scopes, CASE WHEN revoked_at IS NOT NULL THEN 'revoked'"
                " WHEN expires_at <= now() THEN 'expired' ELSE 'active' END,"
                " expires_at, created_at, rotated_at, revoked_at")


# A key's hash kept as it is replaced or dropped: a request with the old secret is still
# refused, and its log line names the key (service/http/auth.py).
_RETIRE = ("INSERT INTO operator_key_retired_hashes (key_hash, key_id, retired_at)"
           " SELECT key_hash, key_id, %s FROM operator_keys WHERE key_id = %s"
           " AND key_hash IS NOT NULL")


# The hashes of the tokens a statement deletes (`gone`), kept for the same end as `_RETIRE`.
_RETIRE_TOKENS = ("retired AS (INSERT INTO retired_token_hashes (token_hash, token_id)"
                  " SELECT token_hash, token_id FROM gone)")


def _key(row: tuple[Any, ...]) -> dict[str, Any]:
    key_id, name, scopes, status, expires_at, created_at, rotated_at, revoked_at = row
    return {"id": key_id, "name": name, "scopes": list(scopes), "status": status,
            "expires_at": expires_at, "created_at": created_at, "rotated_at": rotated_at,
            "revoked_at": revoked_at}


class PostgresCredentials:
    def __init__(self, uow: PostgresUnitOfWork) -> None:
        self._uow = uow

    def lock_subject(self, role: Holder, subject: str) -> bool:
        row = self._uow.connection.execute(_SUBJECT[role], (subject,)).fetchone()
        if row is None:
            raise NotFound(NOT_FOUND[role], f"no {role} {subject}")
        return bool(row[0])

    def new_key(self, player_id: str) -> bytes:
        return personal_data.new_key(self._uow.connection, player_id)

    def shred(self, player_id: str) -> None:
        personal_data.shred(self._uow.connection, player_id)

    def add_token(self, digest: bytes, role: Holder, subject: str, token_id: str) -> None:
        self._uow.connection.execute(
            "INSERT INTO tokens (token_hash, role, subject, token_id) VALUES (%s, %s, %s, %s)",
            (digest, role, subject, token_id))

    def revoke_all(self, role: Holder, subject: str) -> list[str]:
        conn = self._uow.connection
        rows = conn.execute(
            "WITH gone AS (DELETE FROM tokens WHERE role = %s AND subject = %s"
            " RETURNING token_hash, token_id), " + _RETIRE_TOKENS + " SELECT token_id FROM gone",
            (role, subject)).fetchall()
        if rows:
            notify.revoked(conn, f"{role}:{subject}")
        return sorted(token_id for (token_id,) in rows)

    def holder_of(self, token_id: str) -> tuple[Holder, str] | None:
        row = self._uow.connection.execute("SELECT role, subject FROM tokens WHERE token_id = %s",
                                           (token_id,)).fetchone()
        return None if row is None else (cast(Holder, row[0]), str(row[1]))

    def drop_token(self, token_id: str) -> bool:
        conn = self._uow.connection
        row = conn.execute(
            "WITH gone AS (DELETE FROM tokens WHERE token_id = %s"
            " RETURNING token_hash, token_id, role, subject), " + _RETIRE_TOKENS
            + " SELECT role, subject FROM gone", (token_id,)).fetchone()
        if row is None:
            return False
        notify.revoked(conn, f"{row[0]}:{row[1]}")
        return True

    def add_auditor(self, auditor_id: str, name: str, created_at: datetime) -> None:
        self._uow.connection.execute(
            "INSERT INTO auditors (auditor_id, name, created_at) VALUES (%s, %s, %s)",
            (auditor_id, name, created_at))

    def add_operator_key(self, key_id: str, digest: bytes, name: str, scopes: Sequence[str],
                         expires_at: datetime | None, created_at: datetime) -> None:
        self._uow.connection.execute(
            "INSERT INTO operator_keys (key_id, key_hash, name, scopes, expires_at, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (key_id, digest, name, list(scopes), expires_at, created_at))

    def lock_operator_key(self, key_id: str) -> dict[str, Any]:
        row = self._uow.connection.execute(
            f"SELECT {_KEY_COLUMNS} FROM operator_keys WHERE key_id = %s FOR NO KEY UPDATE",
            (key_id,)).fetchone()
        if row is None:
            raise NotFound("key_not_found", f"no operator key {key_id}")
        return _key(row)

    def replace_operator_key(self, key_id: str, digest: bytes, rotated_at: datetime) -> None:
        conn = self._uow.connection
        conn.execute(_RETIRE, (rotated_at, key_id))
        conn.execute("UPDATE operator_keys SET key_hash = %s, rotated_at = %s"
                     " WHERE key_id = %s", (digest, rotated_at, key_id))
        notify.revoked(conn, f"operator:{key_id}")

    def revoke_operator_key(self, key_id: str, revoked_at: datetime) -> None:
        conn = self._uow.connection
        conn.execute(_RETIRE, (revoked_at, key_id))
        conn.execute("UPDATE operator_keys SET key_hash = NULL, revoked_at = %s"
                     " WHERE key_id = %s", (revoked_at, key_id))
        notify.revoked(conn, f"operator:{key_id}")

    def operator_keys(self) -> list[dict[str, Any]]:
        rows = self._uow.connection.execute(
            f"SELECT {_KEY_COLUMNS} FROM operator_keys ORDER BY created_at, key_id").fetchall()
        return [_key(row) for row in rows]
