"""`POST /v1/stream-tickets`: a short-lived ticket that opens one stream without a token, for a
browser's EventSource, which cannot send `Authorization` (`service.http.tickets` keeps them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flask import current_app, g
from flask.views import MethodView
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from projections import tables
from service.application.errors import NotFound
from service.http import db, tickets
from service.http.auth import credential, principal, require, require_scope
from service.http.blueprint import Blueprint
from service.http.problems import Problem

blp = Blueprint("stream-tickets", __name__, url_prefix="/v1/stream-tickets",
                description="Short-lived tickets that open one stream without a token, for a"
                            " browser's EventSource.")

PATH = "/v1/stream-tickets"
STREAMS = ("table", "feed")


class StreamTicketRequestSchema(Schema):
    stream = fields.String(required=True, validate=validate.OneOf(STREAMS), metadata={
        "description": "`table`: a table's stream (`GET /v1/tables/{table_id}/stream`, name the"
                       " table in `table_id`); `feed`: the log's (`GET /v1/feed/stream`,"
                       " operator and auditors).", "example": "table"})
    table_id = fields.String(validate=validate.Length(min=1, max=100), metadata={
        "description": "The table whose stream the ticket opens: with `stream: table` only.",
        "example": "tb_3f9a1c2b7d4e5f60"})

    @validates_schema
    def _table_named_for_a_table(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("stream") == "table" and "table_id" not in data:
            raise ValidationError("Missing data for required field.", "table_id")
        if data.get("stream") == "feed" and "table_id" in data:
            raise ValidationError("The log's feed is no table's.", "table_id")


class StreamTicketSchema(Schema):
    ticket = fields.String(required=True, metadata={
        "description": "Shown only in this response. Send it as `?ticket=` on the GET of `path`,"
                       " and nowhere else.", "example": "bst_Jx0aN8…"})
    path = fields.String(required=True, metadata={
        "description": "The stream it opens.", "example": "/v1/tables/tb_3f9a1c2b7d4e5f60/stream"})
    url = fields.String(required=True, metadata={
        "description": "`path` with the ticket, relative to the API's base: what to give"
                       " `new EventSource(...)`; add `after=` when resuming.",
        "example": "/v1/tables/tb_3f9a1c2b7d4e5f60/stream?ticket=bst_Jx0aN8…"})
    expires_at = fields.DateTime(required=True, metadata={
        "description": "When it stops opening its stream (a stream it opened goes on)."})
    expires_in = fields.Integer(required=True, metadata={
        "description": "Seconds from now to `expires_at`.", "example": 60})


def stream_path(body: dict[str, Any]) -> str:
    """The path of the stream `body` names, once the caller may follow it."""
    if body["stream"] == "feed":
        if principal().role == "player":
            raise Problem(403, "forbidden", "players may not follow the log's feed")
        require_scope("audit:read")  # as the feed's stream asks of an operator's key
        return "/v1/feed/stream"
    require_scope("tables:read")
    table_id = body["table_id"]
    if table_id not in tables.versions(db.conn(), [table_id]):
        raise NotFound("table_not_found", f"no table {table_id}")
    return f"/v1/tables/{table_id}/stream"


def issued(path: str) -> dict[str, Any]:
    """A new ticket for `path`'s stream, as the caller, tied to the token he sent."""
    sent_with = credential()
    if sent_with is None:  # a ticket's request: `auth` takes none here, so none gets this far
        raise Problem(401, "unauthorized", "send Authorization: Bearer <token>")
    who = principal()
    ttl = int(current_app.config["BANCO"].stream_ticket_ttl_s)
    ticket = tickets.issue(who.role, who.subject, path, sent_with, ttl)
    # Its request's idempotency record keeps the answer without the ticket; a replay issues
    # another (`again`).
    g.issued_ticket = True
    return {"ticket": ticket, "path": path, "url": f"{path}?{tickets.QUERY}={ticket}",
            "expires_at": datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=ttl),
            "expires_in": ttl}


def kept(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer as its idempotency record keeps it: without the ticket."""
    return {k: v for k, v in answer.items() if k not in ("ticket", "url")}


def again(kept_answer: dict[str, Any]) -> dict[str, Any]:
    """A kept answer replayed: with a new ticket for the same stream, from now."""
    answer = issued(kept_answer["path"])
    g.pop("issued_ticket", None)
    return StreamTicketSchema().dump(answer)


@blp.route("")
class StreamTickets(MethodView):
    @require("operator", "auditor", "player")
    @blp.operation("issueStreamTicket", 403, 404)
    @blp.arguments(StreamTicketRequestSchema)
    @blp.response(201, StreamTicketSchema)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """A ticket that opens one stream without a token, for a browser's EventSource

        A browser's `EventSource` cannot send `Authorization`, and a token in a URL would be
        seen wherever URLs are (history, proxies, logs) for as long as it works. Ask for a
        ticket with your token instead, and open the stream with it:
        `new EventSource(base + answer.url)`. The ticket speaks for you, with what you may see
        (a player sees only his own cards), only on the GET of `path`, and only until
        `expires_at` (`BANCO_STREAM_TICKET_TTL_S`, 60 seconds by default); it stops working
        too when the token it was asked with is revoked. Banco keeps only its hash, and never
        logs it.

        It is not single-use: the EventSource reconnects by itself to the URL it opened, with
        `Last-Event-ID`, and the same ticket lets it back in until it expires. Past that the
        reconnection is refused (401 `invalid_ticket`) and the EventSource closes: ask for a
        new ticket and open the stream again with `&after=` the last event id received. A
        stream already open goes on past its ticket's expiry, to its `timeout`.

        Refused: a ticket as a bearer token (401 `ticket_not_a_token`), on any other endpoint
        (401 `ticket_not_accepted`), once expired or its token revoked (401 `invalid_ticket`),
        on another stream than its own (403 `ticket_wrong_stream`). Beside an `Authorization`
        header, the token speaks and the ticket is not read. A player may not have one for
        the log's feed (403), nor one for a table that does not exist (404); an operator key
        needs the scope its stream needs (`audit:read` for the feed, `tables:read` for a
        table's; 403 `missing_scope`). Replayed with its
        `Idempotency-Key`, the answer holds a new ticket.
        """
        return issued(stream_path(body))
