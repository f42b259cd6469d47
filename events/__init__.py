"""Event types, the event store (PostgreSQL and an in-memory twin) and its migrations."""
