"""What the application refuses, in its own terms.

Each refusal carries a stable `code` for programs and a `detail` for people. The API maps each
kind to its HTTP status in one place (`service.http.errors`); a worker running the same commands
catches them as they are, with no HTTP in sight.
"""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """A command the application will not carry out."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class NotFound(Refused):
    """What the command names does not exist (a table, a seat)."""


class Conflict(Refused):
    """The command does not fit the state things are in now: a hand in play, a full table."""


class Invalid(Refused):
    """The command itself is wrong, whatever the state: an unknown game, an illegal move."""


class Forbidden(Refused):
    """The caller may not give this command here: a player acting for a seat not his."""


class PreconditionRequired(Refused):
    """The command must name the version it was decided on, and did not name exactly one."""


class Stale(Refused):
    """The command was decided on a version of the table that is no longer the latest."""
