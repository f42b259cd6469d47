"""RQ jobs: importable module-level functions taking primitive arguments.

A job takes its connections from the worker's pool (`workers.context`).
"""

from __future__ import annotations

from typing import Any

from workers import context

# The balances projection against a recomputation from the log, account by account.
DRIFT = """
SELECT coalesce(p.account, l.account), coalesce(p.balance, 0), coalesce(l.balance, 0)
FROM balances p
FULL JOIN (
    SELECT account, sum(amount) AS balance FROM (
        SELECT data->>'from' AS account, -(data->>'amount')::bigint AS amount
        FROM events WHERE type = 'TreasurePosted'
        UNION ALL
        SELECT data->>'to', (data->>'amount')::bigint FROM events WHERE type = 'TreasurePosted'
    ) AS legs GROUP BY account
) l ON l.account = p.account
WHERE coalesce(p.balance, 0) <> coalesce(l.balance, 0)
"""


def check_ledger() -> dict[str, Any]:
    """Check that treasure is conserved, no balance is negative and balances match the log."""
    with context.pool().connection() as conn, conn.transaction():
        # One snapshot for every query, so concurrent postings cannot make the figures disagree.
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        row = conn.execute(
            "SELECT count(*), coalesce(sum(balance), 0),"
            " count(*) FILTER (WHERE balance < 0 AND account <> 'house:issued'),"
            " coalesce(max(last_position), 0) FROM balances"
        ).fetchone()
        assert row is not None
        accounts, total, negatives, position = row
        drift = conn.execute(DRIFT).fetchall()
    return {
        "accounts": accounts,
        "total": int(total),
        "negative_accounts": negatives,
        "drifting_accounts": [{"account": a, "projected": int(p), "from_log": int(log)}
                              for a, p, log in drift],
        "as_of_position": position,
        "ok": total == 0 and negatives == 0 and not drift,
    }
