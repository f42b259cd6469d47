"""`Idempotency-Key` on POST and DELETE: a retry gets the first response back and writes
nothing (a leave retried after its answer was lost is the leave's answer, not a 404 `not_seated`).

The key's record is inserted in the request's own transaction once the caller is let in
(`auth.require`: a caller who may not make the request is told so, and a method a route does
not serve is a 405, whatever key he sent), before the view runs, and filled with the response
before commit. A concurrent retry blocks on that row until the first request
ends: it then replays the committed response, or, if the first rolled back, runs itself.

A record holds for `BANCO_IDEMPOTENCY_RETENTION_S` (the workers purge it after,
workers/purges.py); past that the key is new again, purged or not. A response that
issued a bearer token is kept without it, under the token's id: its replay issues a new token
in place of that one, so a client who lost the answer gets a working token, and the last answer
given always holds the only one that works. Such a replay locks the token's holder (his row)
before the record, the order an erasure takes them in. A webhook subscription's answer is kept without its
signing secret, which its replay reads back from where it is sealed. A stream ticket's answer is
kept without the ticket: its replay issues a new one for the same stream. An operator key's
answer is kept without its secret, which only its hash outlives: its replay rotates the key.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson
import psycopg
from flask import Flask, Response, current_app, g, request
from psycopg.types.json import Jsonb

from service.application import tokens, webhook_subscriptions
from service.http import auth, db, operator_keys, stream_tickets
from service.http.context import IDEMPOTENCY_KEY, handle
from service.http.contract import IDEMPOTENCY_KEY_PATTERN
from service.http.problems import Problem

HEADER = IDEMPOTENCY_KEY
WRITES = ("POST", "DELETE")  # the methods that take the header (PUT and PATCH are not served)
REPLAYED = "Idempotent-Replayed"
KEPT_HEADERS = ("Content-Type", "Location", "ETag")


def _request_hash(as_sent: bool = False) -> bytes:
    h = hashlib.sha256()
    for part in (request.method, request.path, request.query_string.decode()):
        h.update(part.encode() + b"\0")
    h.update(request.get_data(cache=True) if as_sent else _body())
    return h.digest()


def _body() -> bytes:
    """The body as the request means it: a JSON body in one spelling, keys sorted and no
    spaces, so that a client that serialises it again for its retry sends the same request.
    Anything else (a body that is no JSON, which the view refuses) as its bytes."""
    raw = request.get_data(cache=True)
    if request.mimetype == "application/json" and raw:
        try:
            return orjson.dumps(orjson.loads(raw), option=orjson.OPT_SORT_KEYS)
        except orjson.JSONDecodeError:
            pass
    return raw


def _before() -> Response | None:
    key = request.headers.get(HEADER)
    if request.method not in WRITES or key is None:
        return None
    if not re.fullmatch(IDEMPOTENCY_KEY_PATTERN, key):
        raise Problem(422, "invalid_idempotency_key",
                      "Idempotency-Key must be 1 to 200 printable ASCII characters")
    who = auth.principal().key
    digest = _request_hash()
    retention = current_app.config["BANCO"].idempotency_retention_s
    c = db.conn()
    # Three tries: the purge may delete an expired record between two of these statements.
    for _ in range(3):
        inserted = c.execute(
            "INSERT INTO idempotency_keys (principal, key, request_hash) VALUES (%s, %s, %s)"
            " ON CONFLICT DO NOTHING RETURNING 1",
            (who, key, digest),
        ).fetchone()
        # An expired record is no record, whether or not the purge has reached it yet.
        renewed = inserted or c.execute(
            "UPDATE idempotency_keys SET request_hash = %s, status = NULL, body = NULL,"
            " headers = NULL, token_id = NULL, created_at = now()"
            " WHERE principal = %s AND key = %s AND created_at <= now() - make_interval(secs => %s)"
            " RETURNING 1",
            (digest, who, key, retention),
        ).fetchone()
        if renewed:
            db.before_commit(lambda response: _keep(response, who, key))
            return None
        _lock_token_holder(who, key)
        row = c.execute(
            "SELECT request_hash, status, body, headers, token_id FROM idempotency_keys"
            " WHERE principal = %s AND key = %s FOR UPDATE",
            (who, key),
        ).fetchone()
        if row is not None:
            return _replay(row, digest, who, key)
    raise Problem(409, "conflict", "this Idempotency-Key is being renewed; retry")


def _lock_token_holder(who: str, key: str) -> None:
    """Lock the row of the player (or auditor) the kept answer issued a token to, if it did and
    that token still works: before the record, for one lock order.

    An erasure locks the player's row, then the kept answers that hold his name
    (`forget_name`); a replay reissuing a token locks its subject's row too (`tokens.reissue`).
    Were the replay to lock the record first and his row second, the two would deadlock, and
    one would be a 503. Both take his row first. Read in one statement, the record and its token
    agree: a reissue changes both in one transaction, and a record whose token is gone keeps it
    (its replay is a 409, which locks no subject), so the subject locked is the record's own."""
    row = db.conn().execute(
        "SELECT t.role, t.subject FROM idempotency_keys k JOIN tokens t USING (token_id)"
        " WHERE k.principal = %s AND k.key = %s", (who, key)).fetchone()
    if row is not None:
        db.uow().credentials.lock_subject(row[0], row[1])


def _replay(row: tuple[Any, ...], digest: bytes, who: str, key: str) -> Response:
    request_hash, status, body, headers, token_id = row
    # A record kept before bodies were compared as JSON holds the hash of the bytes sent.
    if bytes(request_hash) != digest and bytes(request_hash) != _request_hash(as_sent=True):
        raise Problem(422, "idempotency_key_reused",
                      "this Idempotency-Key was used for a different request")
    body = bytes(body)
    if token_id is not None:
        issued = handle(tokens.ReissueToken(token_id))
        if issued is None:
            if orjson.loads(body).get("player", {}).get("erased"):
                raise Problem(409, "player_erased", "the player this request registered was erased:"
                              " no token is issued to him")
            raise Problem(409, "token_revoked",
                          "the token this request issued was revoked or replaced since; have a new"
                          " one issued with POST /v1/players/{id}/token or /v1/auditors/{id}/token")
        body = orjson.dumps({**orjson.loads(body), "token": issued["token"]})
        db.conn().execute("UPDATE idempotency_keys SET token_id = %s WHERE principal = %s AND key = %s",
                          (issued["token_id"], who, key))
    body = _with_secret(body)
    if status in (200, 201) and request.path.startswith(operator_keys.PATH):
        body = operator_keys.again(body)
    if status == 201 and request.path == stream_tickets.PATH:
        body = orjson.dumps(stream_tickets.again(orjson.loads(body)))
    response = Response(body, status=status, headers=headers)
    response.headers[REPLAYED] = "true"
    return response


def _with_secret(body: bytes) -> bytes:
    """A subscription's kept answer with its secret put back (it is kept without it)."""
    if not body.startswith(b'{"subscription"'):
        return body
    doc = orjson.loads(body)
    if "secret" in doc:
        return body
    secret = webhook_subscriptions.secret_of(db.conn(), doc["subscription"]["id"])
    return orjson.dumps({**doc, "secret": secret})


def hold_kept_answers() -> None:
    """Wait until every request keeping an answer has committed it, and hold off those to come
    until this transaction ends. An erasure takes it first, before the player's row: a request
    that read his name before the erasure and kept its answer after `forget_name` had looked
    would keep the name for a day. Each request claims its key (an INSERT: ROW EXCLUSIVE) at its
    start and keeps its answer with its COMMIT, so SHARE ROW EXCLUSIVE waits for the requests
    under way and makes the next ones claim theirs once his name is unreadable. An erasure is
    rare; keyed writes wait the few milliseconds it takes."""
    db.conn().execute("LOCK TABLE idempotency_keys IN SHARE ROW EXCLUSIVE MODE")


def forget_name(player_id: str, c: psycopg.Connection | None = None) -> None:
    """Blank an erased player's name in every kept answer that shows it, whoever is to replay it:
    a join's, a deal's, a move's or a leave's table holds every seated player's name, and any
    of them may be replayed for a day. Run in the erasure's transaction, after his row is
    locked (a replay that reissues his token takes the same order). Only answers naming his id
    are read back: an erasure is rare, a scan of a day's answers is its cost."""
    c = db.conn() if c is None else c
    rows = c.execute("SELECT principal, key, body FROM idempotency_keys WHERE body IS NOT NULL"
                     " AND position(%s::bytea IN body) > 0 FOR UPDATE",
                     (player_id.encode(),)).fetchall()
    for who, key, body in rows:
        kept = orjson.loads(body)
        if _forgotten(kept, player_id):
            c.execute("UPDATE idempotency_keys SET body = %s WHERE principal = %s AND key = %s",
                      (orjson.dumps(kept), who, key))


def _forgotten(doc: Any, player_id: str) -> bool:
    """Blank, in place, the name of every object of `doc` that is the player's (a seat's
    `player_id`, a player's `id`), marking it erased where the object says whether he is.
    Whether anything changed."""
    changed = False
    if isinstance(doc, dict):
        if player_id in (doc.get("player_id"), doc.get("id")) and doc.get("name") is not None:
            doc["name"] = None
            changed = True
        if player_id == doc.get("id") and doc.get("erased") is False:
            doc["erased"] = changed = True
        for value in doc.values():
            changed = _forgotten(value, player_id) or changed
    elif isinstance(doc, list):
        for value in doc:
            changed = _forgotten(value, player_id) or changed
    return changed


def _keep(response: Response, who: str, key: str) -> None:
    """Fill the key's record with the response it answers, sent with the COMMIT."""
    if not response.is_streamed:
        headers = {h: response.headers[h] for h in KEPT_HEADERS if h in response.headers}
        body = response.get_data()
        token_id = g.pop("issued_token_id", None)
        if token_id is not None:
            # Kept without the token: a replay issues a new one in its place.
            body = orjson.dumps({k: v for k, v in orjson.loads(body).items() if k != "token"})
        if g.pop("issued_secret", False):  # never kept in clear: a replay unseals it again
            body = orjson.dumps({k: v for k, v in orjson.loads(body).items() if k != "secret"})
        if g.pop("issued_ticket", False):  # never kept: a replay issues another
            body = orjson.dumps(stream_tickets.kept(orjson.loads(body)))
        # Sent with the COMMIT, in its round trip; a database gone by then is the COMMIT's 503.
        db.with_commit(
            "UPDATE idempotency_keys SET status = %s, body = %s, headers = %s, token_id = %s"
            " WHERE principal = %s AND key = %s",
            (response.status_code, body, Jsonb(headers), token_id, who, key),
        )


def init_app(app: Flask) -> None:
    auth.on_admitted(_before)
