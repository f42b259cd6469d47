"""Who acts: the operator, an auditor or a player. The API authenticates one per request; the
application decides what each may see and do by it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from service.application.scopes import ALL

Role = Literal["operator", "auditor", "player"]

# The id the bootstrap operator key (`BANCO_OPERATOR_KEY`) is named by in log lines and events.
BOOTSTRAP_KEY_ID = "bootstrap"


@dataclass(frozen=True)
class Principal:
    """An authenticated caller; `subject` is the player id for players, the key's id for an
    operator's scoped key (`operator` for the bootstrap key).

    `key_id` names the credential that acted (a token's or a key's id, never the secret);
    `scopes` is what an operator's key may do (`service.application.scopes`), until
    `expires_at` when it expires."""

    role: Role
    subject: str
    key_id: str | None = field(default=None, compare=False)
    scopes: frozenset[str] = field(default=ALL, compare=False)
    expires_at: datetime | None = field(default=None, compare=False)  # an operator key's

    @property
    def key(self) -> str:
        return f"{self.role}:{self.subject}"

    def may(self, scope: str) -> bool:
        """Whether this caller holds `scope`: an operator's key must; players and auditors are
        judged by their role alone."""
        return self.role != "operator" or scope in self.scopes


# There is one operator; he holds no seat, so he sees a table as a spectator does.
OPERATOR = Principal("operator", "operator", BOOTSTRAP_KEY_ID)
