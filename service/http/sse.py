"""Serving a Server-Sent Events stream: passed on to the worker's streamer where the server
hands connections over (`service.streaming.relay`), else from the request's own thread. Both move the
same follower on (a table's, `service.streaming.follower`, or the log's, `service.http.feed`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from flask import Response, request

from service.application import notify
from service.http import auth
from service.runtime import metrics
from service.runtime.slots import Gate, once
from service.streaming.fanout import BEAT_S, HAND_OFF, KEEP_ALIVE, Following, TakeOver
from service.streaming.relay import Relay


def offered() -> TakeOver | None:
    """The hand-over the server offers for this request, if it does (gunicorn does, for a GET
    on a plain HTTP/1 connection)."""
    return request.environ.get(HAND_OFF) if request.method == "GET" else None


def handed_over(relay: Relay, take: TakeOver, follower: Following, timeout: float,
                leave: Callable[[], None],
                give_back: Callable[[], None]) -> tuple[Iterator[bytes], Callable[[], None]]:
    """A stream's body, and what its response calls when it closes.

    The body sends the stream's head and what is due now from the request's thread (however
    far behind the client resumes), then hands the connection over and passes it, with where
    the follower stands, to the worker's streamer, which writes the rest; the thread is free.
    `leave` gives back what the request's follower held, when the response closes;
    `give_back` the stream's place: then too if the stream was never passed on, else when the
    streamer says it ended."""
    taken = False
    deadline = time.monotonic() + timeout
    since = auth.known_since()

    def body() -> Iterator[bytes]:
        nonlocal taken
        yield b": connected\n\n"
        for data in follower.news():
            yield data
            if time.monotonic() >= deadline:  # as `threaded`: the timeout ends a long backlog too
                return
        sock, chunked = take()
        taken = True
        relay.hand(sock, chunked, follower.spec(), deadline, since, give_back)

    def closed() -> None:
        leave()
        if not taken:
            give_back()

    return body(), closed


def response(body: Iterator[bytes], closed: Callable[[], None], closes: bool = False) -> Response:
    """A Server-Sent Events response; `closed` is called when it ends or its client leaves.
    `closes`: the connection ends with the stream (a handed-over one's, which the streamer
    closes), and the response says so (`Connection: close`): a client that took it for
    keep-alive would send its next request on a connection about to close, and have it reset."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if closes:
        headers["Connection"] = "close"
    response = Response(body, mimetype="text/event-stream", headers=headers)
    response.call_on_close(closed)
    return response


def threaded(follower: Following, waiter: notify.Waiter, timeout: float,
             gate: Gate | None = None) -> Iterator[bytes]:
    """A stream's body served by its request's thread, where the connection cannot be handed
    over (another server than gunicorn, TLS in gunicorn, HTTP/2): the follower moved on at each
    change `waiter` (subscribed by the caller) hears of, until `timeout`, or until the token
    that opened it is revoked, on any node. Past `gate` (if given) when a change wakes it."""
    deadline = time.monotonic() + timeout
    beat = time.monotonic()
    leave = once()  # the place taken at the gate, while it sends what a change brought
    metrics.OPEN_STREAMS.inc()
    try:
        yield b": connected\n\n"
        while time.monotonic() < deadline:
            sent = False
            for data in follower.news():
                # A revocation heard while the follower reads its backlog (the whole log, for a
                # feed opened from its start: page after page) ends the stream before its next
                # page, not once the backlog is sent to a caller now refused.
                if waiter.revoked:
                    return
                yield data
                sent = True
                # The timeout (its key's expiry among them) ends it after the page read, not once
                # the backlog is sent; a page whose read began before the timeout is sent, so that
                # a stream whose pages take longer than its timeout to read still moves its client
                # on.
                if time.monotonic() >= deadline:
                    return
            if sent:
                beat = time.monotonic()
            elif time.monotonic() - beat > BEAT_S:
                beat = time.monotonic()
                yield KEEP_ALIVE
            leave()
            changes = waiter.wait(max(0.0, min(notify.FALLBACK_S, deadline - time.monotonic())))
            if waiter.revoked:
                return
            if gate is not None:
                leave = gate.enter()
            follower.heard(changes)
    finally:
        leave()
        metrics.OPEN_STREAMS.dec()
