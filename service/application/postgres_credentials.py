"""The credentials (`service.application.credentials`) in PostgreSQL: rows of `player_keys`,
`tokens`, `players` and `auditors`, written in the unit of work's transaction. Dropping a token
also tells every node, once committed, to end its holder's open streams (`notify.revoked`)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, cast

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
        rows = conn.execute("DELETE FROM tokens WHERE role = %s AND subject = %s"
                            " RETURNING token_id", (role, subject)).fetchall()
        if rows:
            notify.revoked(conn, f"{role}:{subject}")
        return sorted(token_id for (token_id,) in rows)

    def holder_of(self, token_id: str) -> tuple[Holder, str] | None:
        row = self._uow.connection.execute("SELECT role, subject FROM tokens WHERE token_id = %s",
                                           (token_id,)).fetchone()
        return None if row is None else (cast(Holder, row[0]), str(row[1]))

    def drop_token(self, token_id: str) -> bool:
        conn = self._uow.connection
        row = conn.execute("DELETE FROM tokens WHERE token_id = %s RETURNING role, subject",
                           (token_id,)).fetchone()
        if row is None:
            return False
        notify.revoked(conn, f"{row[0]}:{row[1]}")
        return True

    def add_auditor(self, auditor_id: str, name: str, created_at: datetime) -> None:
        self._uow.connection.execute(
            "INSERT INTO auditors (auditor_id, name, created_at) VALUES (%s, %s, %s)",
            (auditor_id, name, created_at))
