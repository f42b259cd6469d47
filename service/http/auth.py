"""Who is calling: the operator, an auditor or a player, from `Authorization: Bearer`, or, on a
stream's GET only, from the stream ticket in its `?ticket=` (`service.http.tickets`).

The operator calls with the bootstrap key (`BANCO_OPERATOR_KEY`), which holds every scope, or
with a scoped key of his (`bok_...`, `service.application.operator_keys`), which holds only
its own: each operator route names the scope it needs (`require(..., scope=)`), and a key
without it is refused 403 `missing_scope`, naming the scope."""

from __future__ import annotations

import contextlib
import hmac
import time
from collections.abc import Callable
from datetime import datetime
from functools import wraps
from typing import Any, TypeVar, get_args

import psycopg
from flask import current_app, g, request

from service.application import operator_keys
from service.application.principal import OPERATOR, Principal, Role
from service.application.scopes import SCOPES
from service.application.tokens import token_hash
from service.http import contract, db, tickets
from service.http.blueprint import refuse_what_it_does_not_take
from service.http.problems import Problem

F = TypeVar("F", bound=Callable[..., Any])


def _authenticate() -> Principal:
    ticket = tickets.sent()
    if ticket is not None and not tickets.accepted_here():
        raise Problem(401, "ticket_not_accepted", "a stream ticket opens only the stream it was"
                      " issued for (its GET); send Authorization: Bearer <token> here")
    header = request.headers.get("Authorization", "")
    if ticket is not None and not header:
        return _by_ticket(ticket)
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise Problem(401, "unauthorized", "send Authorization: Bearer <token>")
    if token.startswith(tickets.PREFIX):
        raise Problem(401, "ticket_not_a_token", "a stream ticket is no bearer token: it opens"
                      " only the stream it was issued for, sent as ?ticket= on its GET")
    g.credential = digest = token_hash(token)
    operator_key = current_app.config["BANCO"].operator_key
    if hmac.compare_digest(token.encode(), operator_key.encode()):
        return OPERATOR
    # Tokens and keys are looked up by their SHA-256: the stored value reveals nothing, and the
    # lookup time does not depend on how much of a guessed token is right. An operator's key
    # is told by its prefix, so either is one statement, sent with the view's first read.
    if token.startswith(operator_keys.PREFIX):
        with db.pipelined() as c:
            cursor = c.execute(_KEY, (digest,))
            _read_with_token()
        found = cursor.fetchone()
        if found is None or not found[3]:
            # A key that no longer works (expired, revoked, or this secret rotated away) is
            # named by its id in the request's log line, as the key that tried: never by the
            # secret or its hash. The caller is told no more than for an unknown key.
            g.refused_key_id = _retired(_RETIRED_KEY, digest) if found is None else found[0]
            raise Problem(401, "unauthorized", "unknown, revoked or expired operator key")
        return _key_principal(found[0], found[1], found[2])
    with db.pipelined() as c:
        cursor = c.execute(_TOKEN, (digest,))
        _read_with_token()
    row = cursor.fetchone()
    if row is None:
        # A token revoked or replaced is named by its id in the log line, as a dead key is.
        g.refused_key_id = _retired(_RETIRED_TOKEN, digest)
        raise Problem(401, "unauthorized", "unknown or revoked token")
    return Principal(row[0], row[1], row[2])


# An operator key that works: not revoked (its hash is dropped then) and not expired.
_LIVE_KEY = ("SELECT key_id, scopes, expires_at FROM operator_keys WHERE key_hash = %s"
             " AND (expires_at IS NULL OR expires_at > now())")


# The key a secret is, and whether it works (an expired key's hash is still its own).
_KEY = ("SELECT key_id, scopes, expires_at, expires_at IS NULL OR expires_at > now()"
        " FROM operator_keys WHERE key_hash = %s")
_TOKEN = "SELECT role, subject, token_id FROM tokens WHERE token_hash = %s"

# Which key or token a secret was, once it no longer is one (a hash it held before a rotation,
# a revocation or an erasure): asked only of a request about to be refused, so that a request
# that is let in pays nothing for it.
_RETIRED_KEY = "SELECT key_id FROM operator_key_retired_hashes WHERE key_hash = %s"
_RETIRED_TOKEN = "SELECT token_id FROM retired_token_hashes WHERE token_hash = %s"


def _retired(sql: str, digest: bytes) -> str | None:
    row = db.conn().execute(sql, (digest,)).fetchone()
    return None if row is None else str(row[0])


def _key_principal(key_id: str, scopes: list[str], expires_at: datetime | None) -> Principal:
    return Principal("operator", key_id, key_id, frozenset(scopes), expires_at)


def _by_ticket(ticket: str) -> Principal:
    """Whom `ticket` speaks for, on the stream it was issued for, while the token it was issued
    with works. (Beside `Authorization`, the token speaks, and the ticket is not read.)"""
    held = tickets.held(ticket)
    if held is None:
        raise Problem(401, "invalid_ticket", "unknown or expired stream ticket: ask"
                      " POST /v1/stream-tickets for a new one")
    if held.path != request.path:
        raise Problem(403, "ticket_wrong_stream", "this ticket opens another stream")
    operator_key = current_app.config["BANCO"].operator_key
    who: Principal | None = None
    if held.role == "operator" and held.subject == OPERATOR.subject:
        if hmac.compare_digest(held.credential, token_hash(operator_key)):
            who = OPERATOR
    elif held.role == "operator":
        key = db.conn().execute(_LIVE_KEY + " AND key_id = %s",
                                (held.credential, held.subject)).fetchone()
        who = None if key is None else _key_principal(key[0], key[1], key[2])
    else:
        token = db.conn().execute(
            "SELECT token_id FROM tokens WHERE token_hash = %s AND role = %s AND subject = %s",
            (held.credential, held.role, held.subject)).fetchone()
        who = None if token is None else Principal(held.role, held.subject, token[0])
    if who is None:
        # The key or token the ticket was issued with, named in the log line.
        if held.role == "operator":
            g.refused_key_id = (OPERATOR.key_id if held.subject == OPERATOR.subject
                                else held.subject)
        else:
            retired = db.conn().execute(
                "SELECT token_id FROM retired_token_hashes WHERE token_hash = %s",
                (held.credential,)).fetchone()
            g.refused_key_id = None if retired is None else retired[0]
        raise Problem(401, "invalid_ticket", "the token this ticket was issued with was revoked:"
                      " ask POST /v1/stream-tickets for a new one with a token that works")
    return who


def credential() -> bytes | None:
    """The SHA-256 of the bearer token this request was authenticated with (None with a
    ticket): what a ticket issued now is tied to."""
    principal()
    found: bytes | None = g.get("credential")
    return found


def _read_with_token() -> None:
    """Send the first read of the view about to run with the token's, if its class names one
    for the method (`read_with_token`: method -> function of the request's unit of work and the
    view's arguments, which prefetches through it): one round trip for both, and for a write
    request's BEGIN. The view finds it read in the unit of work, and uses it only once the
    caller is known to be allowed (`require`)."""
    view = current_app.view_functions.get(request.endpoint or "")
    early = getattr(getattr(view, "view_class", None), "read_with_token", {}).get(request.method)
    if early is not None:
        # An argument PostgreSQL cannot hold (a NUL) is refused as it is encoded, before it is
        # sent: the view reads again and answers for it, after the caller's token.
        with contextlib.suppress(psycopg.DataError):
            early(db.uow(), **(request.view_args or {}))


def principal() -> Principal:
    """The caller of this request (401 when unauthenticated)."""
    # Asked for five times or more a request (the limit, `require`, the view, its response):
    # `g` is looked up once a call, not three times.
    here = g._get_current_object()
    who: Principal | None = getattr(here, "principal", None)
    if who is None:
        here.known_at = time.monotonic()
        who = here.principal = _authenticate()
    return who


def still_works(conn: psycopg.Connection) -> bool:
    """Whether the bearer token or key this request came with works still: asked when a
    revocation of its holder's was heard while the request waited (the notice names the holder,
    and may be of another of his tokens)."""
    who, digest = principal(), g.get("credential")
    if who == OPERATOR or digest is None:  # the bootstrap key is revoked by a restart
        return True
    sql = _LIVE_KEY if who.role == "operator" else _TOKEN
    return conn.execute(sql, (digest,)).fetchone() is not None


def while_valid(seconds: float) -> float:
    """`seconds`, cut to what is left before the caller's key expires: a stream or a long poll
    opened with a key ends when the key does, as the key's next request would be refused.
    (What a revocation ends is heard from its notice, `service.application.notify`.)"""
    expires_at = principal().expires_at
    if expires_at is None:
        return seconds
    left = (expires_at - datetime.now(expires_at.tzinfo)).total_seconds()
    return max(0.0, min(seconds, left))


def known_since() -> float:
    """When the caller's token was last known good (monotonic clock, the machine's): as it was
    looked up. A revocation heard after it may have come after the look-up."""
    return float(g.get("known_at", time.monotonic()))


def require_scope(scope: str) -> None:
    """Refuse (403 `missing_scope`, naming it) an operator's key that does not hold `scope`:
    for a view whose scope depends on what it is asked (a stream ticket's stream)."""
    who = principal()
    if not who.may(scope):
        raise Problem(403, "missing_scope", f"this operator key ({who.key_id}) lacks the scope"
                      f" {scope}", scope=scope)


# What runs once a caller is let in, before the view: the replay of a write sent again with its
# Idempotency-Key (`service.http.idempotency`, which sets it), so that a caller who may not make
# the request, or a method the route does not serve, is answered so, whatever keys he sent.
_admitted: list[Callable[[], Any]] = []


def on_admitted(check: Callable[[], Any]) -> None:
    """Have `check` run once a request is let in; a response it returns is the answer."""
    if check not in _admitted:
        _admitted.append(check)


def require(*roles: Role, self_param: str | None = None, scope: str | None = None
            ) -> Callable[[F], F]:
    """Allow `roles`; with `self_param`, also a player acting on his own id (else 403). The
    operator, when allowed, must hold `scope`, which every route that allows him names (None:
    any of his keys, for what any caller may do, or a view that checks it by `require_scope`).
    Every endpoint but the probes and the `public` ones passes here, so here too it refuses
    what the view would ignore."""
    if scope is not None and scope not in SCOPES:
        raise ValueError(f"no such scope: {scope}")

    def decorate(fn: F) -> F:
        @wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            who = principal()
            if not (who.role in roles or (self_param and who.role == "player"
                                          and kwargs.get(self_param) == who.subject)):
                raise Problem(403, "forbidden", f"{who.role}s may not do this")
            if scope is not None and who.role == "operator":
                require_scope(scope)
            refuse_what_it_does_not_take(fn)
            for check in _admitted:
                if (answer := check()) is not None:
                    return answer
            return fn(*args, **kwargs)

        # Some caller gets a 403 unless every role may call it, whatever the id, or some
        # operator key may lack its scope.
        restricted = bool(self_param) or set(roles) != set(get_args(Role)) or scope is not None
        return contract.authenticated(wrapper, restricted,
                                      scope if "operator" in roles else None)

    return decorate


def public(fn: F) -> F:
    """Let anyone call `fn`, with a token or none: for what holds no one's data (the games and
    their rules). What the view would ignore is still refused, as behind `require`."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        refuse_what_it_does_not_take(fn)
        return fn(*args, **kwargs)

    return contract.open_to_all(wrapper)
