"""The ledger accounts an engine's postings move treasure between, at a table.

Settlement writes the transfers this gives (`service.application.settling`), and the audit
recomputes them from the log to check what was written (`service.verification.rules_check`).
"""

from __future__ import annotations

from collections.abc import Sequence

from events import ledger
from games.contract import Posting
from projections.tables import TableRow


def account(table: TableRow, name: str) -> str:
    """The ledger account of an engine account (`seat:<n>`, `escrow`, `pot`)."""
    if name == "escrow":
        return f"escrow:{table.table_id}:{table.hand_id}"
    if name == "pot":
        return f"pot:{table.table_id}:pot"
    return ledger.seat(table.table_id, table.player_at(int(name.split(":", 1)[1])))


def transfers(table: TableRow, postings: Sequence[Posting]) -> list[ledger.Transfer]:
    """The engine's `postings` at `table`'s hand as the ledger's transfers."""
    return [ledger.Transfer(account(table, p.from_account), account(table, p.to_account), p.amount,
                            p.reason, table=table.table_id, hand=table.hand_id) for p in postings]
