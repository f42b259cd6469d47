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

# Accounts of tables that are over and still hold treasure: an ended table pays everything out
# (its seats to the wallets, a game's pot back to its payers), so any is treasure left behind.
STRANDED = """
SELECT b.account, b.balance FROM balances b
JOIN tables t ON t.table_id = split_part(b.account, ':', 2)
WHERE b.balance <> 0 AND split_part(b.account, ':', 1) IN ('seat', 'pot', 'escrow')
  AND t.status = 'over'
ORDER BY b.account
"""


def check_ledger() -> dict[str, Any]:
    """Check that treasure is conserved, no balance is negative, balances match the log, and no
    ended table still holds treasure."""
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
        stranded = conn.execute(STRANDED).fetchall()
    return {
        "accounts": accounts,
        "total": int(total),
        "negative_accounts": negatives,
        "drifting_accounts": [{"account": a, "projected": int(p), "from_log": int(log)}
                              for a, p, log in drift],
        "stranded_accounts": [{"account": a, "balance": int(b)} for a, b in stranded],
        "as_of_position": position,
        "ok": total == 0 and negatives == 0 and not drift and not stranded,
    }
