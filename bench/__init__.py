"""Benchmarks of the foundation, each measured against a ceiling taken in the same run.

`python -m bench append` times appends through the event store against raw INSERTs into an equal
table; `python -m bench rebuild` times the projection rebuild against the same aggregate done in
SQL. Every run creates a database of its own and drops it afterwards.
"""
