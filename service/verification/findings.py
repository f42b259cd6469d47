"""What a verification reports: each check passed or failed, with its evidence and the event."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from events.model import StoredEvent


def ref(event: StoredEvent | None) -> dict[str, Any] | None:
    """The event a finding points at, as stream and version."""
    return None if event is None else {"stream": event.stream_id, "version": event.version}


@dataclass
class Check:
    """One check of one hand: passed or not, what it compared, and the first offending event."""

    name: str
    passed: bool
    evidence: dict[str, Any] = field(default_factory=dict)
    event: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        """The check as the API and `banco verify --json` report it."""
        return {"name": self.name, "passed": self.passed, "evidence": self.evidence,
                "event": self.event}


def passed(name: str, **evidence: Any) -> Check:
    """A check that held."""
    return Check(name, True, evidence)


def failed(name: str, at: StoredEvent | None, reason: str, **evidence: Any) -> Check:
    """A check that did not hold, naming the event where it broke."""
    where = f" at {at.stream_id} v{at.version}" if at is not None else ""
    return Check(name, False, {"reason": reason + where, **evidence}, ref(at))
