"""`banco projections check`: do the projections hold what a replay of the log gives?

The check rebuilds every projection inside a transaction that is rolled back, after copying
what they hold, and compares the two row for row. It changes nothing, but it blocks writers
for as long as the rebuild takes, as a rebuild does: run it on a restored database before
the service is let back in, or at a quiet hour.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import psycopg
from psycopg import sql

from projections.rebuild import rebuild_all

# What `rebuild_all` rebuilds, each with its key.
PROJECTIONS = {"balances": ("account",), "balance_history": ("account", "position"),
               "players": ("player_id",), "tables": ("table_id",), "hands": ("hand_id",)}
# Columns that say when a row was written, not what the log holds: a table's `updated_at` is
# the time of its last write (the sweeper and the settlement's lag read it), which a replay
# cannot give back.
NOT_OF_THE_LOG = {"tables": ("updated_at",)}


@dataclass
class Difference:
    """A projection that differs from the replay: rows only it holds, rows only the replay
    gives, and for rows of one key in both, how many differ in each column."""

    held_only: int
    replayed_only: int
    columns: dict[str, int] = field(default_factory=dict)


def differences(conn: psycopg.Connection) -> dict[str, Difference]:
    """Each projection whose rows differ from a replay's; empty when they all agree."""
    found: dict[str, Difference] = {}
    with conn.transaction(force_rollback=True):
        for name in PROJECTIONS:
            conn.execute(sql.SQL("CREATE TEMP TABLE {} ON COMMIT DROP AS TABLE {}").format(
                sql.Identifier(f"held_{name}"), sql.Identifier(name)))
        rebuild_all(conn)
        for name, key in PROJECTIONS.items():
            columns = [c for (c,) in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema ="
                " current_schema() AND table_name = %s ORDER BY ordinal_position",
                (name,)).fetchall() if c not in NOT_OF_THE_LOG.get(name, ())]
            listed = sql.SQL(", ").join(map(sql.Identifier, columns))
            held, replayed = sql.Identifier(f"held_{name}"), sql.Identifier(name)
            counts = conn.execute(sql.SQL(
                "SELECT (SELECT count(*) FROM (SELECT {c} FROM {held} EXCEPT ALL"
                " SELECT {c} FROM {replayed}) AS a),"
                " (SELECT count(*) FROM (SELECT {c} FROM {replayed} EXCEPT ALL"
                " SELECT {c} FROM {held}) AS b)").format(
                    c=listed, held=held, replayed=replayed)).fetchone()
            assert counts is not None
            if counts != (0, 0):
                found[name] = Difference(int(counts[0]), int(counts[1]), _columns(
                    conn, name, key, [c for c in columns if c not in key]))
    return found


def _columns(conn: psycopg.Connection, name: str, key: tuple[str, ...],
             names: list[str]) -> dict[str, int]:
    """For the rows of one key in both, how many differ in each of `names` that differs."""
    joined = sql.SQL(" AND ").join(
        sql.SQL("h.{c} = r.{c}").format(c=sql.Identifier(c)) for c in key)
    per_column = sql.SQL(", ").join(
        sql.SQL("count(*) FILTER (WHERE h.{c} IS DISTINCT FROM r.{c})").format(
            c=sql.Identifier(c)) for c in names)
    row = conn.execute(sql.SQL("SELECT {} FROM {} h JOIN {} r ON {}").format(
        per_column, sql.Identifier(f"held_{name}"), sql.Identifier(name), joined)).fetchone()
    assert row is not None
    return {c: int(n) for c, n in zip(names, row, strict=True) if n}
