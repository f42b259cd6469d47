"""The fan-out's inbox (service/streaming/inbox.py): a task posted from any thread wakes the thread
that selects on it, however the posts fall between its reads."""

from __future__ import annotations

import selectors
import sys
import threading

import pytest

from service.streaming.inbox import Inbox

POSTS = 50_000  # per poster and round: enough for posts to land in every gap of the taker's loop
ROUNDS = 20


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_every_task_posted_wakes_the_taker_however_posts_and_takes_interleave(round_: int):
    """Two threads post as fast as they can while a third selects on the inbox with no other
    reason to wake (no timeout but a bound for a missed wake-up) and takes what came: every
    task is taken, and the taker is never left asleep with a task waiting."""
    inbox = Inbox()
    taken = 0
    done = threading.Event()

    def poster() -> None:
        for _ in range(POSTS):
            inbox.post(lambda: None)

    sel = selectors.DefaultSelector()
    sel.register(inbox.reader, selectors.EVENT_READ)

    def taker() -> None:
        nonlocal taken
        while taken < 2 * POSTS:
            if not sel.select(5.0):
                return  # asleep with tasks waiting: a post did not wake it
            for task in inbox.take():
                task()
                taken += 1
        done.set()

    # Threads take turns every microsecond rather than every 5 ms: posts then fall between any
    # two steps of the taker, as they do in a busy process.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=taker), *(threading.Thread(target=poster)
                                                     for _ in range(2))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        sys.setswitchinterval(interval)
        sel.close()
        inbox.close()
    assert done.is_set(), f"{2 * POSTS - taken} tasks posted were never woken for"
    assert taken == 2 * POSTS
    assert 0 < inbox.wakes <= 2 * POSTS
