"""What the application keeps beside the log about who may act: each player's sealing key, the
tokens' hashes, the auditors' rows, who was erased, and the operator's scoped keys.

None of it is an event: a key must be destroyable (erasure) and a token's hash must never reach
the log. A unit of work holds them with the rest of its work (`UnitOfWork.credentials`), so that
a registration, an erasure or a token's change commits, or not, with its events. Two implement
it: PostgreSQL's (`service.application.postgres_credentials`) and the twin in memory's
(`service.application.memory_unit_of_work`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, Protocol

Holder = Literal["player", "auditor"]

# The refusal's code when a subject is unknown.
NOT_FOUND = {"player": "player_not_found", "auditor": "auditor_not_found"}


class Credentials(Protocol):
    def lock_subject(self, role: Holder, subject: str) -> bool:
        """Hold the player or auditor for the rest of the work, so that two changes of one
        subject's tokens queue (NotFound when unknown); whether he was erased."""

    def new_key(self, player_id: str) -> bytes:
        """A new key to seal the player's personal data under, kept with the work."""

    def shred(self, player_id: str) -> None:
        """Destroy the player's key: what was sealed under it can no longer be read."""

    def add_token(self, digest: bytes, role: Holder, subject: str, token_id: str) -> None:
        """Keep a token's hash, under its id, for its subject."""

    def revoke_all(self, role: Holder, subject: str) -> list[str]:
        """Drop every token of the subject; their ids, in order."""

    def holder_of(self, token_id: str) -> tuple[Holder, str] | None:
        """The (role, subject) a live token is held by, or None."""

    def drop_token(self, token_id: str) -> bool:
        """Drop one token; False when it was gone already."""

    def add_auditor(self, auditor_id: str, name: str, created_at: datetime) -> None:
        """The auditor's row, as the API shows him."""

    def add_operator_key(self, key_id: str, digest: bytes, name: str, scopes: Sequence[str],
                         expires_at: datetime | None, created_at: datetime) -> None:
        """Keep an operator key's hash, under its id, with its name, scopes, expiry and when it
        was created (its event's `recorded_at`)."""

    def lock_operator_key(self, key_id: str) -> dict[str, Any]:
        """Hold the operator key for the rest of the work, so that two changes of it queue; it,
        as `operator_keys` shows it (NotFound `key_not_found` when unknown)."""

    def replace_operator_key(self, key_id: str, digest: bytes, rotated_at: datetime) -> None:
        """Replace a live key's hash at `rotated_at`: its old secret stops working."""

    def revoke_operator_key(self, key_id: str, revoked_at: datetime) -> None:
        """Drop a live key's hash at `revoked_at`: it stops working, and is listed as revoked."""

    def operator_keys(self) -> list[dict[str, Any]]:
        """Every operator key, live or not, oldest first: id, name, scopes, status (`active`,
        `expired`, `revoked`) and when it was created, rotated, revoked or expires."""
