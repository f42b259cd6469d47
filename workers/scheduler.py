"""RQ's scheduler, in the process of its own RQ forks for it, ended by a Redis outage with one
line instead of RQ's traceback and multiprocessing's: its worker starts another once Redis is
back (`Worker.revive_scheduler`). Any other failure still ends it with its traceback."""

from __future__ import annotations

import logging
import os
import sys
import traceback
from multiprocessing.context import ForkProcess

from rq.scheduler import RQScheduler

from workers.queues import REDIS_AWAY

log = logging.getLogger("rq.scheduler")  # RQ's own scheduler logs here too


class Scheduler(RQScheduler):
    def start(self) -> ForkProcess:
        # RQ's start, with `_run` in the new process instead of RQ's `run`.
        self._status = self.Status.STARTED
        self._connection = None  # a connection is not carried across the fork
        process = ForkProcess(target=_run, args=(self,), name="Scheduler")
        process.start()
        self._process = process  # type: ignore[assignment]  # RQ's, typed by its first value, None
        return process


def _run(scheduler: Scheduler) -> None:
    log.info("Scheduler for %s started with PID %d", ", ".join(scheduler._queue_names), os.getpid())
    try:
        scheduler.work()
    except REDIS_AWAY as e:
        log.warning("Scheduler (PID %d) stopped: Redis is away (%s); its worker starts another"
                    " once Redis is back", os.getpid(), e)
        sys.exit(1)
    except BaseException:
        log.error("Scheduler (PID %d) failed:\n%s", os.getpid(), traceback.format_exc())
        raise
    log.info("Scheduler (PID %d) stopped", os.getpid())
