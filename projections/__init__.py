"""Read models rebuilt from the event log: balances, balance history, players, tables.

Each is updated in the transaction that appends its events (the unit of work projects what it
appends: `service.application.postgres_unit_of_work`), and rebuilt from the log by
`projections.rebuild`."""
