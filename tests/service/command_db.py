"""What the tests of the application's handlers on PostgreSQL share, beside the `store` and `conn`
fixtures of tests/service/conftest.py: the unit of work in the test's connection, and the
metadata a request would give their events."""

from __future__ import annotations

from typing import Any

from service.application.postgres_unit_of_work import PostgresUnitOfWork

# The handlers' unit of work, in the test's connection and transaction.
joined = PostgresUnitOfWork.joining


def meta(command: str, actor: str = "operator:operator") -> dict[str, Any]:
    return {"actor": actor, "request_id": None, "correlation_id": None,
            "causation_id": None, "idempotency_key": None, "command": command}
