"""Stream tickets: a short-lived credential good for one stream's GET, for a browser's
EventSource, which cannot send `Authorization`.

A caller asks for one with his bearer token (`POST /v1/stream-tickets`,
`service.http.stream_tickets`) and opens the stream with `?ticket=`. A ticket is kept in Redis
only as its SHA-256, under a key that expires with it, beside whom it speaks for (role and
subject), the one stream it opens (its path) and the SHA-256 of the token it was issued with. It
authenticates only the GET of that stream (`service.http.auth`), until it expires, and only
while that token still works: a revoked token's tickets die with it. Anywhere else it is refused,
and it is never a bearer token.

A ticket is not single-use: an EventSource reconnects by itself, to the URL it opened and with
`Last-Event-ID`, whenever its stream ends (`timeout`) or its connection drops, and the same
ticket lets it back in until the ticket expires. Past that, the reconnection is refused (401
`invalid_ticket`), the EventSource closes, and its page asks for a new ticket and opens the
stream again with `after=` the last id it received (a new EventSource sends no `Last-Event-ID`).
A stream already open goes on past its ticket's expiry, to its `timeout`, as one opened with a
token does; both end when the token is revoked.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import orjson
import redis
from flask import current_app, request
from marshmallow import fields

from service.application.principal import Role
from service.application.tokens import token_hash
from service.http.blueprint import given_more_than_once, given_twice

F = TypeVar("F", bound=Callable[..., Any])

PREFIX = "bst_"  # tells a ticket from a bearer token (`bnc_`) at a glance, and in a 401
QUERY = "ticket"
_LONGEST = 100  # no ticket is longer: nothing longer is looked up


@dataclass(frozen=True)
class Held:
    """What a ticket was issued for."""

    role: Role
    subject: str
    path: str  # the stream's, e.g. `/v1/tables/tb_.../stream`
    credential: bytes  # the SHA-256 of the bearer token it was issued with


def _key(namespace: str, ticket: str) -> str:
    # Per deployment (its queue's name, as its jobs are): Banco services sharing a Redis must
    # not take each other's tickets.
    return f"banco:ticket:{namespace}:{token_hash(ticket).hex()}"


def _client() -> redis.Redis:
    return cast(redis.Redis, current_app.extensions["banco.redis"])


def _namespace() -> str:
    return str(current_app.config["BANCO"].queue_name)


def issue(role: Role, subject: str, path: str, credential: bytes, ttl_s: int) -> str:
    """A new ticket (to show once) for `path`'s stream, speaking for `role`/`subject` while the
    token hashed as `credential` works, for `ttl_s` seconds."""
    ticket = PREFIX + secrets.token_urlsafe(32)
    held = {"role": role, "subject": subject, "path": path, "credential": credential.hex()}
    _client().set(_key(_namespace(), ticket), orjson.dumps(held), ex=ttl_s)
    return ticket


def held(ticket: str) -> Held | None:
    """What `ticket` was issued for, or None when it is unknown or expired."""
    if not ticket.startswith(PREFIX) or len(ticket) > _LONGEST or not ticket.isascii():
        return None
    raw = _client().get(_key(_namespace(), ticket))
    if raw is None:
        return None
    found = orjson.loads(cast(bytes, raw))
    return Held(found["role"], found["subject"], found["path"], bytes.fromhex(found["credential"]))


def accepted(fn: F) -> F:
    """Let a stream's GET view be opened with a ticket issued for its path, as well as with a
    bearer token. (Outermost of the view's decorators, so that the view's class holds it.)"""
    fn._stream_ticket = True  # type: ignore[attr-defined]
    return fn


def accepted_here() -> bool:
    """Whether this request's view takes a ticket (`accepted`)."""
    view = current_app.view_functions.get(request.endpoint or "")
    view_class = getattr(view, "view_class", None)
    method = getattr(view_class, request.method.lower(), None) if view_class else view
    return bool(getattr(method, "_stream_ticket", False))


def sent() -> str | None:
    """The ticket in this request's query, if any. Two are refused before either is looked up:
    which one speaks for the caller, nothing says."""
    sent_ = request.args.getlist(QUERY)
    if len(sent_) > 1:
        raise given_twice({QUERY: [given_more_than_once(QUERY)]})
    return sent_[0] if sent_ else None


def query_field() -> fields.String:
    """The `ticket` query parameter of a stream that takes one."""
    return fields.String(metadata={
        "description": "A stream ticket issued for this stream (`POST /v1/stream-tickets`), in"
                       " place of `Authorization`: for a browser's EventSource, which cannot"
                       " send headers."})
