"""What the API does when a command moved a table's play on (`commands.TablePlayed`): the table,
as written, handed to its followers in this process and to every streamer of its node, which
render it once its notice comes; and, once committed, the settlement or next deadline queued,
the timeout of the turn it ended cancelled (`workers.deferred_jobs`), and the move counted.

Redis being down loses nothing: the deadline and the `settling` status are in PostgreSQL, where
the worker's sweeper finds them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import current_app

from games import frozen
from service.application.commands import TablePlayed
from service.application.unit_of_work import UnitOfWork
from service.runtime import metrics

if TYPE_CHECKING:
    from service.streaming.feeds import Feeds
    from service.streaming.relay import Relay
    from workers.deferred_jobs import DeferredJobs

# The counters of the commands counted when they commit.
COUNTED = {"OpenHand": metrics.HANDS_DEALT, "Act": metrics.ACTIONS}


def table_played(notice: object, uow: UnitOfWork) -> None:
    """The bus's subscriber in the API, told in the request that gave the command: the app's
    jobs, followers and relay as they are then."""
    if not isinstance(notice, TablePlayed):
        return
    jobs: DeferredJobs = current_app.extensions["banco.jobs"]
    feeds: Feeds = current_app.extensions["banco.feeds"]
    relay: Relay = current_app.extensions["banco.relay"]
    snapshot = frozen.replace(notice.table, state=None)  # what the jobs need of it
    uow.after_commit(lambda: jobs.after(snapshot, notice.ended))
    feeds.offer(notice.table)
    relay.offer(notice.table)
    counter = COUNTED.get(notice.command)
    if counter is not None:
        uow.after_commit(metrics.labelled(counter, notice.table.game).inc)
