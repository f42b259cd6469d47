"""The unit of work: one transaction's reads, its writes, and what follows its commit.

A command's handler reads through it (the table, its seats' balances, a hand, a stream's
events), queues its writes on it (events to append, the tables and hands they change), and
flushes them; its caller commits. Nothing is written before the flush, and nothing is visible to
anyone else before the commit. A read that needs what was queued (a seat's balance after a
posting) flushes first, so a handler always reads its own writes.

Two implement it: PostgreSQL's (`service.application.postgres_unit_of_work`), which keeps an
action to three round trips, and a twin in memory over the in-memory event store
(`service.application.memory_unit_of_work`) for the application's tests of logic; one contract
(tests/application) runs the commands on both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from events import ledger
from events.model import NewEvent, StoredEvent
from projections.tables import TableRow
from service.application.credentials import Credentials


class UnitOfWork(Protocol):
    @property
    def credentials(self) -> Credentials:
        """Keys and tokens, kept beside the log and committed with the rest of the work."""

    # Reads -----------------------------------------------------------------------------------

    def prefetch_table(self, table_id: str) -> None:
        """Start the table's read now, with whatever the caller sends; `table` finishes it."""

    def table(self, table_id: str, balances: bool = False) -> TableRow | None:
        """The table's row (with its seats' balances if asked), or None."""

    def seat_balances(self, table: TableRow) -> dict[str, int]:
        """The seats' balances by player, every queued posting included."""

    def player(self, player_id: str) -> dict[str, Any] | None:
        """The player's row (`projections.players.find`), or None."""

    def balance(self, account: str) -> int:
        """The account's balance, every queued posting included (0 for one never posted to)."""

    def hand(self, hand_id: str) -> dict[str, Any] | None:
        """The hand's row (`projections.tables.HAND_COLUMNS`), or None."""

    def read_stream(self, stream_id: str, after: int, limit: int) -> list[StoredEvent]:
        """Up to `limit` of the stream's events after version `after`."""

    def queue_behind(self, stream_id: str) -> None:
        """Wait for the stream's other writers, and hold them off until this work ends: what is
        read after it is what the append will find. For a command that names no version (a
        join, a leave, a deal, a close, a dispute's note): two sent at once are done one after
        the other instead of the second failing on its append. Moves, which name the version
        they were decided on, never wait here."""

    # Writes ----------------------------------------------------------------------------------

    def append(self, stream_id: str, events: Sequence[NewEvent],
               expected_version: int | None) -> None:
        """Queue `events` for `stream_id` at `expected_version` (None: wherever it stands).
        Their TreasurePosted events are checked (no account but the house's overdrawn) and
        projected into the balances with them."""

    def save(self, table: TableRow, actor: str | None) -> None:
        """Queue the table's row, saved as the table stands when the work is flushed, its change
        told to its followers at commit, naming the `actor` whose command made it."""

    def hand_began(self, table: TableRow, commitment: str, first_version: int,
                   at: datetime) -> None:
        """Queue the row of the hand `table` just opened."""

    def hand_status(self, hand_id: str, status: str, last_version: int | None = None,
                    postings: list[dict[str, Any]] | None = None,
                    at: datetime | None = None) -> None:
        """Queue the hand's new status, and what it comes with."""

    def after_commit(self, fn: Callable[[], None], first: bool = False) -> None:
        """Run `fn` once the work has committed (never if it rolls back)."""

    def publish(self, notice: Any) -> None:
        """Queue a notice of what a command did (`commands.TablePlayed`) for the bus to tell the
        process's subscribers once the command's handler returns."""

    def collect_notices(self) -> list[Any]:
        """The notices published since the last collection, in order; the queue emptied."""

    def flush(self) -> list[StoredEvent]:
        """Write every queued write; the events stored, in the order they were queued.

        Raises ConcurrencyConflict when a stream moved past its expected version, and
        ledger.InsufficientTreasure when a posting would overdraw an account: nothing queued is
        then written."""

    def commit(self) -> None:
        """Flush, make the work durable and visible, then run the `after_commit` functions."""

    def rollback(self) -> None:
        """Forget what was queued and undo what was sent."""


def transfers_of(events: Sequence[NewEvent]) -> list[ledger.Transfer]:
    """The transfers the TreasurePosted events among `events` make."""
    return [ledger.Transfer(e.data["from"], e.data["to"], e.data["amount"], e.data["reason"],
                            e.data.get("table"), e.data.get("hand"))
            for e in events if e.type == "TreasurePosted"]
