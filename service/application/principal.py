"""Who acts: the operator, an auditor or a player. The API authenticates one per request; the
application decides what each may see and do by it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["operator", "auditor", "player"]


@dataclass(frozen=True)
class Principal:
    """An authenticated caller; `subject` is the player id for players."""

    role: Role
    subject: str

    @property
    def key(self) -> str:
        return f"{self.role}:{self.subject}"


# There is one operator; he holds no seat, so he sees a table as a spectator does.
OPERATOR = Principal("operator", "operator")
