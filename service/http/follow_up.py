"""What the API does when a command moved a table's play on (`commands.TablePlayed`): the table,
as written, handed to its followers in this process and to every streamer of its node, which
render it once its notice comes; and, once committed, the settlement or next deadline queued,
the timeout of the turn it ended cancelled (`workers.deferred_jobs`), and the move counted.

Redis being down loses nothing: the deadline and the `settling` status are in PostgreSQL, where
the worker's sweeper finds them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from service.application.bus import Subscriber
from service.application.commands import TablePlayed
from service.application.unit_of_work import UnitOfWork
from service.runtime import metrics
from workers.deferred_jobs import DeferredJobs

if TYPE_CHECKING:
    from service.streaming.feeds import Feeds
    from service.streaming.relay import Relay

# The counters of the commands counted when they commit.
COUNTED = {"OpenHand": metrics.HANDS_DEALT, "Act": metrics.ACTIONS}


def subscriber(jobs: DeferredJobs, feeds: Feeds, relay: Relay) -> Subscriber:
    def table_played(notice: TablePlayed, uow: UnitOfWork) -> None:
        snapshot = replace(notice.table, state=None)  # what the jobs need of it
        uow.after_commit(lambda: jobs.after(snapshot, notice.ended))
        feeds.offer(notice.table)
        relay.offer(notice.table)
        counter = COUNTED.get(notice.command)
        if counter is not None:
            uow.after_commit(counter.labels(game=notice.table.game).inc)
    return table_played
