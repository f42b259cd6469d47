"""Text cells of the CSV exports, written so that a spreadsheet shows them and runs nothing.

A spreadsheet opening a CSV takes a cell that begins with `=`, `+`, `-` or `@` for a formula (and
some, one that begins with a tab or a carriage return): a reason the operator typed, or any
other text a client chose, would run as one (`=HYPERLINK(...)`). As OWASP's "CSV Injection"
recommends, such a cell is written with a `'` before it, which spreadsheets read as "this is
text" and do not show. Text is accepted as given and kept so (the JSON answers show it as it
is); only the CSV writes it escaped. Numbers (amounts, balances, positions) are written as
numbers: a negative amount begins with `-` and is no formula.

PostgreSQL writes every CSV (COPY), so the escape is SQL, in the query COPY runs: the rows
still stream from the server without becoming Python objects.
"""

from __future__ import annotations

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
# In SQL: the printable ones quoted, tab and carriage return by their codes.
_FIRSTS = ", ".join(f"'{c}'" if c.isprintable() else f"chr({ord(c)})" for c in TRIGGERS)


def sql(column: str, name: str) -> str:
    """`column`'s text, with a `'` before it when it begins as a formula would, as a select
    item named `name`."""
    return (f"CASE WHEN left({column}, 1) IN ({_FIRSTS}) THEN chr(39) || {column}"
            f" ELSE {column} END AS {name}")
