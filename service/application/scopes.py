"""What an operator's API key may do: each operator route needs one scope, named here.

A scoped key (`service.application.operator_keys`) holds some of them; the bootstrap key
(`BANCO_OPERATOR_KEY`) holds every one. Players and auditors hold none: their roles decide for
them, as before. Reading and writing are separate scopes, so that a monitoring system can read
without being able to move money, and a cashier can move money without reading the audit trail.
"""

from __future__ import annotations

# Each scope and what it opens, in the order the docs and the console list them.
SCOPES: dict[str, str] = {
    "players:read": "List players, read one, his balance and its history.",
    "players:write": "Register players, issue and revoke their tokens, erase them.",
    "treasure:read": "Read every account's balance at a point of the log.",
    "treasure:write": "Deposit to and withdraw from players' wallets.",
    "tables:read": "List and read tables, their hands (and a hand's replay), events and"
                   " streams.",
    "tables:write": "Create and close tables, deal hands, remove a player from his seat.",
    "auditors:admin": "Register auditors, read them, issue and revoke their tokens.",
    "audit:read": "Run and read ledger checks, read checkpoints, follow the log's feed, verify"
                  " a hand and take its evidence bundle.",
    "audit:write": "Record checkpoints of the event log.",
    "disputes:read": "List and read disputes about hands.",
    "disputes:write": "Open disputes, attach evidence, re-adjudicate hands, resolve disputes"
                      " with corrective postings, reject them.",
    "webhooks:admin": "Create, read, pause, resume, replay and delete webhook subscriptions"
                      " (creating and replaying one, which send the feed's events, need"
                      " audit:read too).",
    "metrics:read": "Scrape /metrics.",
    "jobs:read": "Read the job queue's counts and failed jobs.",
    "jobs:admin": "Requeue a failed job.",
    "keys:admin": "Create, list, rotate and revoke operator keys (granting only scopes it holds).",
}

ALL = frozenset(SCOPES)
