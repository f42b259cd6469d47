"""What the sync and the async clients share, with no I/O: each request described as a `Call`
(method, path, body, how its answer is read), the retry policy, and a stream's place."""

from __future__ import annotations

import email.utils
import json
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Generic, Literal, Protocol, TypeVar
from urllib.parse import quote, urlsplit

import httpx
from pydantic import BaseModel, Field, TypeAdapter

from banco_sdk import models

T = TypeVar("T")

# A table as the API shows it, typed by its game (the `Table` union's members).
GameTable = (models.SetteEMezzoTable | models.SieteYMediaTable | models.CasinoPirateTable
             | models.PiratePairsTable | models.CassinoTable)
# Read by its `game`, as the spec's `Table` discriminates.
TABLE: TypeAdapter[GameTable] = TypeAdapter(Annotated[GameTable, Field(discriminator="game")])
# An event of a table's, and of the log's feed, typed by its `type` (the spec's `TableEvent` and
# `FeedEvent` unions' members): an engine's event is its type's `...Game<Type>` member, its data
# typed as the game's (a member hidden from the caller left out).
TableEvent = (models.TableEventTreasurePosted | models.TableEventPlayerRegistered
    | models.TableEventPlayerErased | models.TableEventAuditorRegistered
    | models.TableEventTokenChanged | models.TableEventOperatorKeyCreated
    | models.TableEventOperatorKeyChanged | models.TableEventDisputeOpened
    | models.TableEventDisputeEvidenceAttached | models.TableEventDisputeReadjudicated
    | models.TableEventDisputeResolved | models.TableEventDisputeRejected
    | models.TableEventTableCreated
    | models.TableEventPlayerSeated | models.TableEventPlayerLeft | models.TableEventHandBegan
    | models.TableEventHandSettled | models.TableEventSeedRevealed | models.TableEventTableEnded
    | models.TableEventDeadlineSet | models.TableEventSettlementClaimed
    | models.TableEventGameHandStarted | models.TableEventGameTurnPassed
    | models.TableEventGameStakeAnnounced | models.TableEventGameBetPlaced
    | models.TableEventGameSatOut | models.TableEventGameDeckShuffled
    | models.TableEventGameCardDealt
    | models.TableEventGameCardTurnedUp | models.TableEventGameCardsShown
    | models.TableEventGameStakeLost | models.TableEventGameStood
    | models.TableEventGameHandSplit | models.TableEventGamePlayerCalled
    | models.TableEventGameCallDecided | models.TableEventGameSkeletonDeclared
    | models.TableEventGameVolunteered | models.TableEventGameShortfallRecorded
    | models.TableEventGameHandEnded | models.TableEventGameHandOpened
    | models.TableEventGameCardsDealt | models.TableEventGameOpeningCardChosen
    | models.TableEventGameOpeningCardsRevealed | models.TableEventGamePlayerAttacked
    | models.TableEventGamePlayerChallenged | models.TableEventGamePlayerAccused
    | models.TableEventGameCardDrawn | models.TableEventGameDiscardsReshuffled
    | models.TableEventGamePlayerEliminated | models.TableEventGameGameWon
    | models.TableEventGameRoundStarted | models.TableEventGameStakesPaid
    | models.TableEventGameDealerCardsDrawn | models.TableEventGameDealerChosen
    | models.TableEventGameTableDealt | models.TableEventGameCardsCaptured
    | models.TableEventGameBuildMade | models.TableEventGameBuildReserved
    | models.TableEventGameBuildExtended | models.TableEventGameCardTrailed
    | models.TableEventGameLeftoversTaken | models.TableEventGameRoundScored)
FeedEvent = (models.FeedEventTreasurePosted | models.FeedEventPlayerRegistered
    | models.FeedEventPlayerErased | models.FeedEventAuditorRegistered
    | models.FeedEventTokenChanged | models.FeedEventOperatorKeyCreated
    | models.FeedEventOperatorKeyChanged | models.FeedEventDisputeOpened
    | models.FeedEventDisputeEvidenceAttached | models.FeedEventDisputeReadjudicated
    | models.FeedEventDisputeResolved | models.FeedEventDisputeRejected
    | models.FeedEventTableCreated
    | models.FeedEventPlayerSeated | models.FeedEventPlayerLeft | models.FeedEventHandBegan
    | models.FeedEventHandSettled | models.FeedEventSeedRevealed | models.FeedEventTableEnded
    | models.FeedEventDeadlineSet | models.FeedEventSettlementClaimed
    | models.FeedEventGameHandStarted | models.FeedEventGameTurnPassed
    | models.FeedEventGameStakeAnnounced | models.FeedEventGameBetPlaced
    | models.FeedEventGameSatOut | models.FeedEventGameDeckShuffled
    | models.FeedEventGameCardDealt
    | models.FeedEventGameCardTurnedUp | models.FeedEventGameCardsShown
    | models.FeedEventGameStakeLost | models.FeedEventGameStood | models.FeedEventGameHandSplit
    | models.FeedEventGamePlayerCalled | models.FeedEventGameCallDecided
    | models.FeedEventGameSkeletonDeclared | models.FeedEventGameVolunteered
    | models.FeedEventGameShortfallRecorded | models.FeedEventGameHandEnded
    | models.FeedEventGameHandOpened | models.FeedEventGameCardsDealt
    | models.FeedEventGameOpeningCardChosen | models.FeedEventGameOpeningCardsRevealed
    | models.FeedEventGamePlayerAttacked | models.FeedEventGamePlayerChallenged
    | models.FeedEventGamePlayerAccused | models.FeedEventGameCardDrawn
    | models.FeedEventGameDiscardsReshuffled | models.FeedEventGamePlayerEliminated
    | models.FeedEventGameGameWon | models.FeedEventGameRoundStarted
    | models.FeedEventGameStakesPaid | models.FeedEventGameDealerCardsDrawn
    | models.FeedEventGameDealerChosen | models.FeedEventGameTableDealt
    | models.FeedEventGameCardsCaptured | models.FeedEventGameBuildMade
    | models.FeedEventGameBuildReserved | models.FeedEventGameBuildExtended
    | models.FeedEventGameCardTrailed | models.FeedEventGameLeftoversTaken
    | models.FeedEventGameRoundScored)
# Read by its `type`, as the spec's unions discriminate.
TABLE_EVENT: TypeAdapter[TableEvent] = TypeAdapter(Annotated[TableEvent, Field(discriminator="type")])
FEED_EVENT: TypeAdapter[FeedEvent] = TypeAdapter(Annotated[FeedEvent, Field(discriminator="type")])


def base_url(url: str) -> str:
    """`url` as the clients' base (no trailing slash), or a ValueError saying in words what is
    wrong with it: not an http:// or https:// URL with a host, a malformed IPv6 address, a
    port that is not one (httpx would say `InvalidURL` with a traceback, or fail later), or an
    address that ends in /v1, which the clients add to every call themselves (Banco would
    answer each `/v1/v1/...` with a bare 404)."""
    try:
        parts = urlsplit(url)
    except ValueError as e:  # "Invalid IPv6 URL"
        raise ValueError(f"{url!r} is not a URL: {e}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// URL with a host")
    try:
        parts.port  # noqa: B018 - read for its refusal of a port that is not one
    except ValueError:
        raise ValueError(f"{url!r} has a port that is not a port") from None
    try:
        httpx.URL(url)
    except httpx.InvalidURL as e:  # what urlsplit lets pass and httpx does not
        raise ValueError(f"{url!r} is not a URL: {e}") from None
    base = url.rstrip("/")
    if urlsplit(base).path.endswith("/v1"):
        raise ValueError(f"{url!r} ends in /v1: give Banco's address without it ({base[:-3]!r});"
                         " the client adds /v1 to each call")
    return base


class Versioned(Protocol):
    """A table as read: its id, and the version its `If-Match` names."""

    @property
    def id(self) -> str: ...

    @property
    def version(self) -> int: ...


TableRef = str | Versioned  # a table's id, or the table read


def table_id(table: TableRef) -> str:
    """The table's id, as a path segment (`segment`)."""
    return segment(table if isinstance(table, str) else table.id)


def segment(value: str) -> str:
    """`value` (an id, a game's name) as one segment of a request's path: every character but
    letters, digits and `-._~` percent-encoded, `/` included, and a segment of dots (`.`, `..`,
    which a URL's path would resolve away) written `%2E`: an id that is not one reaches no other
    endpoint (the server answers 404), as the TypeScript SDK's paths do. An empty one, which
    would make the path another endpoint's, is a ValueError."""
    if not value:
        raise ValueError("an id is never empty")
    quoted = quote(value, safe="")
    return quoted.replace(".", "%2E") if quoted.strip(".") == "" else quoted


def if_match(table: Versioned) -> str:
    return f'"{table.version}"'


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request and how to read its answer. A POST or a DELETE is a write: it carries an
    `Idempotency-Key`, the same on every retry of it (a DELETE retried without one would be
    answered as a second request: a seat left already is 404 `not_seated`)."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    params: Mapping[str, Any] | None = None
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    idempotency_key: str | None = None

    @property
    def write(self) -> bool:
        return self.method in ("POST", "DELETE")

    def request_headers(self) -> dict[str, str]:
        """The headers of every try: a write's key is drawn once, here, when none was given."""
        headers = dict(self.headers)
        if self.write:
            headers["Idempotency-Key"] = self.idempotency_key or uuid.uuid4().hex
        return headers

    def query(self) -> dict[str, Any] | None:
        if self.params is None:
            return None
        return {k: v for k, v in self.params.items() if v is not None}

    def content(self) -> bytes | None:
        return None if self.body is None else json.dumps(self.body).encode()

    def retry_on(self, error: httpx.TransportError) -> bool:
        """Whether a lost connection may be tried again: a read or a keyed write always (the key
        makes a write that did commit answer as before and change nothing); any other request
        only when it never reached the server."""
        return self.method == "GET" or self.write or isinstance(error, httpx.ConnectError)


def model(cls: type[BaseModel]) -> Callable[[httpx.Response], Any]:
    return lambda response: cls.model_validate_json(response.content)


def table(response: httpx.Response) -> GameTable:
    return TABLE.validate_json(response.content)


@dataclass(frozen=True)
class Retries:
    """How often and how long the client waits on 429 / 503 (as `Retry-After` says) or on a
    lost connection (`backoff`, doubling), before it raises."""

    attempts: int = 3  # tries after the first
    max_wait: float = 30.0  # a `Retry-After` longer than this is not waited for
    backoff: float = 0.25

    def wait(self, failures: int, response: httpx.Response | None = None) -> float | None:
        """Seconds to wait before try `failures + 1`, or None to give up."""
        if failures >= self.attempts:
            return None
        if response is None:
            return min(self.backoff * 2 ** failures, self.max_wait)
        if response.status_code not in (429, 503):
            return None
        after = retry_after(response)
        if after is None:
            return min(self.backoff * 2 ** failures, self.max_wait)
        return after if after <= self.max_wait else None


def retry_after(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds, given as seconds or as an HTTP date."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(frozen=True)
class StreamEvent:
    """One Server-Sent Event of a stream: its `id` (a table's version, or a position in the log),
    its `event` (an event's type, or `table`) and its JSON `data`."""

    id: str
    event: str
    data: Any

    def table(self) -> GameTable:
        """The table of an `event: table` (a stream opened with `turns=True`)."""
        return TABLE.validate_python(self.data)

    def table_event(self) -> TableEvent:
        return TABLE_EVENT.validate_python(self.data)

    def feed_event(self) -> FeedEvent:
        return FEED_EVENT.validate_python(self.data)


class StreamPlace:
    """Where a stream stands: the id last received, sent back as `Last-Event-ID` when it
    resumes, so the server goes on right after it (no gap, no repeat)."""

    def __init__(self, last_event_id: str | None) -> None:
        self.last_event_id = last_event_id

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        return headers

    def take(self, event: Any) -> StreamEvent | None:
        """The event received (an `httpx_sse.ServerSentEvent`), its place kept; None for what
        carries no data (comments, a bare `retry:`)."""
        if not event.data:
            return None
        if event.id:
            self.last_event_id = event.id
        return StreamEvent(event.id, event.event, json.loads(event.data))


STREAM_READ_S = 30.0  # read timeout past the stream's own `timeout` (keep-alives come sooner)


def stream_timeout(server_timeout: float | None, base: httpx.Timeout) -> httpx.Timeout:
    return httpx.Timeout(base.connect, read=(server_timeout or 60.0) + STREAM_READ_S,
                         write=base.write, pool=base.pool)


def as_action(offer: Any, choose: Callable[[int, int], int] = min) -> dict[str, Any]:
    """An offered legal action made into one to send: each `{min, max}` range replaced by
    `choose(min, max)` (the least, by default), the rest as offered."""
    data = offer.model_dump(exclude_none=True, by_alias=True) if isinstance(offer, BaseModel) else dict(offer)
    sent: dict[str, Any] = {}
    for key, value in data.items():
        if is_range(value):
            sent[key] = choose(value["min"], value["max"])
        elif isinstance(value, dict) and value and all(is_range(v) for v in value.values()):
            sent[key] = {k: choose(v["min"], v["max"]) for k, v in value.items()}
        else:
            sent[key] = value
    return sent


def is_range(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"min", "max"}


def action_body(action: Any) -> dict[str, Any]:
    if isinstance(action, BaseModel):
        return action.model_dump(exclude_none=True, by_alias=True)
    return dict(action)


# The API's requests.

def me() -> Call[models.Me]:
    return Call("GET", "/v1/me", model(models.Me))


def games() -> Call[list[models.Game]]:
    return Call("GET", "/v1/games", lambda r: [models.Game.model_validate(g) for g in r.json()])


def game(slug: str) -> Call[models.Game]:
    return Call("GET", f"/v1/games/{segment(slug)}", model(models.Game))


def create_key(name: str, scopes: list[str], expires_at: datetime | str | None,
               key: str | None) -> Call[models.KeyIssued]:
    when = expires_at.isoformat() if isinstance(expires_at, datetime) else expires_at
    body = {k: v for k, v in {"name": name, "scopes": scopes, "expires_at": when}.items()
            if v is not None}
    return Call("POST", "/v1/keys", model(models.KeyIssued), body=body, idempotency_key=key)


def keys() -> Call[models.KeyList]:
    return Call("GET", "/v1/keys", model(models.KeyList))


def key(key_id: str) -> Call[models.Key]:
    return Call("GET", f"/v1/keys/{segment(key_id)}", model(models.Key))


def rotate_key(key_id: str, key: str | None) -> Call[models.KeyIssued]:
    return Call("POST", f"/v1/keys/{segment(key_id)}/rotation", model(models.KeyIssued), idempotency_key=key)


def revoke_key(key_id: str, key: str | None) -> Call[None]:
    return Call("DELETE", f"/v1/keys/{segment(key_id)}", lambda response: None, idempotency_key=key)


def create_player(name: str, key: str | None) -> Call[models.PlayerCreated]:
    return Call("POST", "/v1/players", model(models.PlayerCreated), body={"name": name},
                idempotency_key=key)


def player(player_id: str) -> Call[models.Player]:
    return Call("GET", f"/v1/players/{segment(player_id)}", model(models.Player))


def players_page(cursor: str | None, limit: int | None) -> Call[models.PlayerPage]:
    return Call("GET", "/v1/players", model(models.PlayerPage), {"cursor": cursor, "limit": limit})


def transfer(kind: str, player_id: str, amount: int, reason: str,
             key: str | None) -> Call[models.TransferResult]:
    return Call("POST", f"/v1/players/{segment(player_id)}/{kind}", model(models.TransferResult),
                body={"amount": amount, "reason": reason}, idempotency_key=key)


def balance(player_id: str) -> Call[models.Balance]:
    return Call("GET", f"/v1/players/{segment(player_id)}/balance", model(models.Balance))


def history_page(player_id: str, cursor: int | None, limit: int | None,
                 filters: Mapping[str, Any]) -> Call[models.HistoryPage]:
    return Call("GET", f"/v1/players/{segment(player_id)}/balance-history", model(models.HistoryPage),
                {**filters, "cursor": cursor, "limit": limit}, headers={"Accept": "application/json"})


def create_auditor(name: str, key: str | None) -> Call[models.AuditorCreated]:
    return Call("POST", "/v1/auditors", model(models.AuditorCreated), body={"name": name},
                idempotency_key=key)


def create_table(game: str, variant: str | None, options: Mapping[str, Any] | None,
                 key: str | None) -> Call[GameTable]:
    body: dict[str, Any] = {"game": game}
    if variant is not None:
        body["variant"] = variant
    if options:
        body["options"] = dict(options)
    return Call("POST", "/v1/tables", table, body=body, idempotency_key=key)


def get_table(ref: TableRef) -> Call[GameTable]:
    return Call("GET", f"/v1/tables/{table_id(ref)}", table)


def tables_page(game: str | None, status: str | None, cursor: str | None,
                limit: int | None) -> Call[models.TablePage]:
    return Call("GET", "/v1/tables", model(models.TablePage),
                {"game": game, "status": status, "cursor": cursor, "limit": limit})


def join(ref: TableRef, buy_in: int | None, age: int | None, seed: str | None,
         key: str | None) -> Call[models.Joined]:
    body = {k: v for k, v in {"buy_in": buy_in, "age": age, "seed": seed}.items() if v is not None}
    return Call("POST", f"/v1/tables/{table_id(ref)}/seats", model(models.Joined), body=body,
                idempotency_key=key)


def leave(ref: TableRef, player_id: str, key: str | None) -> Call[models.Left]:
    return Call("DELETE", f"/v1/tables/{table_id(ref)}/seats/{segment(player_id)}", model(models.Left),
                idempotency_key=key)


def deal(ref: TableRef, key: str | None) -> Call[GameTable]:
    """Deal the next hand; from a table read, only if it is still at the version read."""
    headers = {} if isinstance(ref, str) else {"If-Match": if_match(ref)}
    return Call("POST", f"/v1/tables/{table_id(ref)}/hands", table, headers=headers,
                idempotency_key=key)


def act(ref: Versioned, action: Any, key: str | None) -> Call[GameTable]:
    """Play `action` at the version of the table as read. Unlike `deal`, it takes no id: a move
    is made only at the version its player saw (If-Match, which Banco requires of a move), an id
    has none, and reading the table here for one would play at whatever it has become. An id, or
    anything else with no `version`, is a TypeError saying so, before anything is sent."""
    if isinstance(ref, str):
        raise TypeError(f"act() takes the table as read (from table()), for its version"
                        f" (If-Match), not its id {ref!r}: act(table({ref!r}), action)")
    if not isinstance(getattr(ref, "version", None), int):
        raise TypeError(f"act() takes the table as read (from table()), for its version"
                        f" (If-Match), not a {type(ref).__name__}")
    return Call("POST", f"/v1/tables/{table_id(ref)}/actions", table, body=action_body(action),
                headers={"If-Match": if_match(ref)}, idempotency_key=key)


def hand(hand_id: str) -> Call[models.Hand]:
    return Call("GET", f"/v1/hands/{segment(hand_id)}", model(models.Hand))


def events_page(ref: TableRef, after: int, limit: int | None) -> Call[models.EventPage]:
    return Call("GET", f"/v1/tables/{table_id(ref)}/events", model(models.EventPage),
                {"after": after, "limit": limit})


# `after` of the feed and its stream: a position, or the log's last event when asked.
FeedPlace = int | Literal["latest"]


def feed_page(after: FeedPlace, types: str | None, limit: int | None) -> Call[models.FeedPage]:
    return Call("GET", "/v1/feed", model(models.FeedPage), {"after": after, "types": types, "limit": limit})


def types_param(types: str | list[str] | tuple[str, ...] | None) -> str | None:
    return types if types is None or isinstance(types, str) else ",".join(types)


def table_stream_params(after: int | None, turns: bool, events: bool,
                        timeout: float | None) -> dict[str, Any]:
    return {k: v for k, v in {"after": after, "turns": str(turns).lower(), "events": str(events).lower(),
                              "timeout": timeout}.items() if v is not None}


def feed_stream_params(after: FeedPlace | None, types: str | None,
                       timeout: float | None) -> dict[str, Any]:
    return {k: v for k, v in {"after": after, "types": types, "timeout": timeout}.items() if v is not None}


HISTORY_FILTERS = {"since": "from", "until": "to", "reason": "reason", "table": "table", "hand": "hand"}


def history_filters(**given: Any) -> dict[str, Any]:
    return {HISTORY_FILTERS[k]: v for k, v in given.items() if v is not None}
