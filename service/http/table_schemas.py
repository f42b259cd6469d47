"""Request and response schemas of games, tables and hands."""

from __future__ import annotations

from typing import ClassVar

from marshmallow import Schema, fields, validate

from service.http.dispute_schemas import HandDisputeSchema
from service.http.paging import CursorOrFormerName
from service.http.play_schemas import GAMES, GameSchemas, ViewSchema
from service.http.unions import Alternatives, Strict, Union, tag

TABLE_ID = {"example": "tb_5c1e0a9b3d2f4e61"}
HAND_ID = {"example": "hd_0a1b2c3d4e5f6071"}
TABLE_STATUSES = ["open", "playing", "settling", "over"]
TABLE_STATUS = {"description": "open (between hands), playing, settling (a finished hand is being"
                               " paid) or over"}
HAND_STATUSES = ["playing", "settling", "settled"]


def game_name(**kwargs: object) -> fields.String:
    """A game's name, one of those served."""
    return fields.String(validate=validate.OneOf(list(GAMES)), **kwargs)  # type: ignore[arg-type]


class GameSchema(Schema):
    name = fields.String(required=True, metadata={"example": "sette-e-mezzo"})
    title = fields.String(required=True, metadata={"example": "Sette e mezzo"})
    min_players = fields.Integer(required=True, metadata={"example": 2})
    max_players = fields.Integer(required=True, metadata={"example": 12})
    variants = fields.List(fields.String(), required=True, metadata={
        "description": "Each is taken as `variant` when creating a table.",
        "example": ["banker:seat0", "banker:lot"]})
    variant_options = fields.Dict(
        keys=fields.String(), values=fields.Dict(), required=True, metadata={
            "description": "The table options each variant stands for: a table created with the"
                           " variant plays with them, and its options may repeat them.",
            "example": {"banker:seat0": {"banker": "seat0"}, "banker:lot": {"banker": "lot"}}})
    rules_source = fields.String(required=True, metadata={
        "example": "/v1/games/sette-e-mezzo/rules",
        "description": "The path of the game's rules page (text/markdown, no token needed)."})
    options = fields.Dict(required=True, metadata={
        "description": "The table options: each with its type, default and limits."})
    rules_version = fields.Integer(required=True, metadata={
        "description": "The current rules version: new tables play it; a table keeps the version"
                       " it was created with.", "example": 1})
    rules_versions = fields.List(fields.Integer(), required=True, metadata={
        "description": "Every rules version still served (tables created under each play on and"
                       " their hands are verified with it), oldest first.", "example": [1]})


class TableCreateSchema(Schema):
    game = fields.String(required=True, metadata={"example": "sette-e-mezzo"})
    variant = fields.String(load_default=None, allow_none=True, metadata={
        "description": "One of the game's `variants` (GET /v1/games), standing for its"
                       " `variant_options`.", "example": "banker:lot"})
    options = fields.Dict(load_default=dict, metadata={"example": {"min_bet": 1, "max_bet": 20}})


class SeatSchema(Schema):
    seat = fields.Integer(required=True, metadata={
        "description": "The seat's place in the hand's order (0 first): renumbered when a player"
                       " leaves; `turn.seat`, `you` and the actions' targets name this."})
    chair = fields.Integer(required=True, metadata={
        "description": "The chair the player sits in: kept while he is seated, whoever leaves."})
    player_id = fields.String(required=True)
    name = fields.String(required=True, allow_none=True, metadata={
        "description": "The player's name; null once he is erased.", "example": "Ada"})
    balance = fields.Integer(required=True, metadata={"description": "Treasure on the seat."})


class HandRefSchema(Schema):
    id = fields.String(required=True, metadata=HAND_ID)
    number = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(HAND_STATUSES),
                           metadata={"example": "playing"})


class TableBaseSchema(Schema):
    """What a table shows whatever its game; each game's table (`TableSchema`) adds the rest."""

    id = fields.String(required=True, metadata=TABLE_ID)
    variant = fields.String(allow_none=True, required=True, metadata={
        "description": "The listed variant (GET /v1/games) the table's options make it, or null"
                       " when they make none (the game has no variants, or a Siete y media table"
                       " without the 7½-takes-the-bank rule).", "example": "banker:lot"})
    rules_version = fields.Integer(required=True, metadata={
        "description": "The game's rules version the table plays: the one current when it was"
                       " created, for its whole life (GET /v1/games lists each game's current"
                       " version).", "example": 1})
    status = fields.String(required=True, validate=validate.OneOf(TABLE_STATUSES),
                           metadata=TABLE_STATUS)
    version = fields.Integer(required=True, metadata={"description": "Also the ETag; send it as If-Match."})
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    hand = fields.Nested(HandRefSchema, allow_none=True, required=True)
    you = fields.Integer(allow_none=True, required=True, metadata={"description": "Your seat, if any."})


def _turn(game: GameSchemas) -> type[Strict]:
    """Whose move it is at a table of `game`, and what the game waits for."""
    return type(f"{game.title}TurnSchema", (Strict,), {
        "__doc__": "Whose move it is and what the game waits for of him.",
        "seat": fields.Integer(required=True),
        "waiting_for": fields.String(required=True, validate=validate.OneOf(game.waiting_for)),
        "role": fields.String(required=True, validate=validate.OneOf(game.roles)),
        "deadline": fields.DateTime(metadata={
            "description": "When the turn times out, once its deadline is set."}),
    })


def _table(name: str, game: GameSchemas) -> type[Schema]:
    """The table of one game: its options, turn, view and legal actions are the game's."""
    return type(f"{game.title}TableSchema", (TableBaseSchema,), {
        "__doc__": f"A table of {name}.",
        "game": tag(name),
        "options": fields.Nested(game.options, required=True),
        "turn": fields.Nested(_turn(game), allow_none=True, required=True, metadata={
            "description": "Whose move it is while a hand is in play; else null."}),
        "view": fields.Nested(game.view, allow_none=True, required=True, metadata={
            "description": "The hand in play (or the last one) as you may see it."}),
        "legal_actions": fields.List(fields.Nested(game.legal_action), required=True, metadata={
            "description": "The actions open to you now: send one back (its ranges chosen)."}),
    })


class TableSchema(Union):
    """A table as you may see it, its game's: `game` tells which, and with it the type of its
    `options`, `turn`, `view` and `legal_actions`."""

    tag = "game"
    alternatives: ClassVar[Alternatives] = {name: _table(name, game) for name, game in GAMES.items()}


class TableListQuerySchema(Schema):
    # Listed as the games' enum; a name outside it is the 422 `unknown_game` a table's creation
    # answers too (the view's), not a schema's `invalid_input`.
    game = fields.String(load_default=None, allow_none=True, metadata={
        "enum": list(GAMES), "description": "Only the tables of this game."})
    player = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=100),
                           metadata={"description": "Only the tables this player sits at: a player"
                                     " may ask for his own, the operator and auditors for any."})
    status = fields.String(load_default=None, allow_none=True,
                           validate=validate.OneOf(["open", "playing", "settling", "over"]))
    cursor = fields.String(load_default=None, allow_none=True, metadata={
        "description": "The `next_cursor` of the page before: the list goes on after that table."
                       " Only under the filters (`game`, `status`, `player`) of the list that"
                       " gave it: under others it is a 422 invalid_cursor."})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class TableSummarySchema(Schema):
    id = fields.String(required=True, metadata=TABLE_ID)
    game = game_name(required=True)
    status = fields.String(required=True, validate=validate.OneOf(TABLE_STATUSES),
                           metadata=TABLE_STATUS)
    players = fields.Integer(required=True)
    hands = fields.Integer(required=True)


class TablePageSchema(Schema):
    items = fields.List(fields.Nested(TableSummarySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True, metadata={
        "description": "Send as `cursor`, with the same filters, for the next page; null on the"
                       " last page. Opaque: it names the page's last table and the filters it"
                       " was listed under."})


class JoinSchema(Schema):
    buy_in = fields.Integer(load_default=None, allow_none=True, strict=True,
                            validate=validate.Range(min=1, max=10**9),
                            metadata={"description": "Treasure moved from your wallet to the seat "
                                      "(Casino pirate: exactly the table's buy_in, the default;"
                                      " another amount is a 422 buy_in_fixed). Pirate pairs"
                                      " and Cassino: at least the table's stake, less is a 422"
                                      " buy_in_too_low naming min_buy_in."})
    age = fields.Integer(load_default=None, allow_none=True, strict=True,
                         validate=validate.Range(min=0, max=150))
    seed = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200),
                         metadata={"description": "Your own text mixed into every shuffle. It is"
                                   " shown to the table once a hand settles and kept in clear for"
                                   " its verification, even after an erasure: put nothing"
                                   " personal in it."})


class JoinedSchema(Schema):
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)
    table = fields.Nested(TableSchema, required=True)


class LeftSchema(Schema):
    player_id = fields.String(required=True)
    cash_out = fields.Integer(required=True)


class EventsQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0),
                           metadata={"description": "The last version you have (at most the "
                                     "table's: past it is a 422 after_beyond_version)."})
    wait = fields.Float(load_default=0, validate=validate.Range(min=0, max=30),
                        metadata={"description": "Seconds to wait for news (long poll); no"
                                  " longer than an operator key has before it expires. A token"
                                  " or key revoked while it waits is answered 401."})
    limit = fields.Integer(load_default=200, validate=validate.Range(min=1, max=1000))


class StreamQuerySchema(Schema):
    after = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0),
                           metadata={"description": "The table version to go on after, when no"
                                     " `Last-Event-ID` is sent; one past the table's is a 422."})
    timeout = fields.Float(load_default=60, validate=validate.Range(min=0.1, max=600),
                           metadata={"description": "Seconds before the server ends the stream"
                                     " (sooner if the operator key expires, or the token or key"
                                     " is revoked). A page of events whose reading began before"
                                     " then is sent first."})
    events = fields.Boolean(load_default=True, metadata={
        "description": "Send the table's events as you may see them (one SSE event each)."})
    turns = fields.Boolean(load_default=False, metadata={
        "description": "Also send `event: table`, the table as GET /v1/tables/{id} shows it to"
                       " you, whenever someone else's command changes it (your own requests'"
                       " responses show you the table) and you have something to do: legal actions in"
                       " the hand in play, or a seat at a table open for its next hand; and once"
                       " when the table has ended."
                       " A client that follows its turns this way need not ask for them."})


class TableEventSchema(Schema):
    version = fields.Integer(required=True)
    recorded_at = fields.String(required=True)
    kind = fields.String(required=True, metadata={"example": "game"})
    type = fields.String(required=True, metadata={"example": "CardDealt"})
    hand = fields.String(allow_none=True)
    data = fields.Dict(required=True)


class EventPageSchema(Schema):
    items = fields.List(fields.Nested(TableEventSchema), required=True)
    version = fields.Integer(required=True, metadata={
        "description": "The table's version now, whether or not `limit` cut the page short of it."})
    next_after = fields.Integer(required=True, metadata={
        "description": "The `after` to ask for the next page: the last item's version, or this"
                       " request's `after` when the page is empty."})
    more = fields.Boolean(required=True, metadata={
        "description": "Whether the table has events after `next_after` (`next_after` <"
                       " `version`): ask again with `after=next_after` until it is false."})


class HandSeatSchema(Schema):
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True, allow_none=True, metadata={
        "description": "The player's name; null once he is erased.", "example": "Ada"})
    age = fields.Integer(allow_none=True)
    seed = fields.String(allow_none=True, metadata={
        "description": "The player's own text mixed into the shuffle, if he gave one."})


class HandPostingSchema(Strict):
    from_ = fields.String(required=True, data_key="from", attribute="from",
                          metadata={"example": "escrow:tb_5c1e0a9b3d2f4e61:hd_0a1b2c3d4e5f6071"})
    to = fields.String(required=True)
    amount = fields.Integer(required=True)
    reason = fields.String(required=True)


class HandSchema(Schema):
    id = fields.String(required=True, metadata=HAND_ID)
    table_id = fields.String(required=True, metadata=TABLE_ID)
    number = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(HAND_STATUSES),
                           metadata={"example": "settled"})
    seats = fields.List(fields.Nested(HandSeatSchema), required=True, metadata={
        "description": "The seats as the hand was dealt."})
    commitment = fields.String(required=True)
    rules_version = fields.Integer(required=True, metadata={
        "description": "The game's rules version the hand was played (and is verified) with:"
                       " its table's.", "example": 1})
    server_seed = fields.String(allow_none=True, required=True, metadata={
        "description": "Revealed once the hand is settled (Casino pirate: to auditors only)."})
    postings = fields.List(fields.Nested(HandPostingSchema), allow_none=True, required=True,
                           metadata={"description": "The treasure the settlement moved, once"
                                                    " settled."})
    outcome = fields.Nested(ViewSchema, allow_none=True, required=True, metadata={
        "description": "The final state of the hand as you may see it, once settled."})
    opened_at = fields.DateTime(required=True)
    settled_at = fields.DateTime(allow_none=True, required=True)
    disputes = fields.List(fields.Nested(HandDisputeSchema), metadata={
        "description": "The disputes about the hand that you may read (as GET /v1/disputes"
                       " lists them: a player those of his hands, a key only with"
                       " `disputes:read`), oldest first, with the corrective postings their"
                       " resolutions made (GET /v1/hands/{hand_id} only)."})


class HandListQuerySchema(CursorOrFormerName):
    FORMER, DEFAULT = "after", 0

    cursor = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0),
                            metadata={"description": "The `next_cursor` of the page before: the"
                                      " list goes on after that hand. Not with `after`."})
    after = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0),
                           metadata={"description": "The number of the last hand you have (0, the"
                                     " default: from the first): the same as `cursor`, kept for"
                                     " the clients that page with it. Not with `cursor`."})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class HandPageSchema(Schema):
    items = fields.List(fields.Nested(HandSchema), required=True)
    next_cursor = fields.Integer(allow_none=True, required=True, metadata={
        "description": "The number of the page's last hand, to send as `cursor` for the next"
                       " page; null on the last page."})
