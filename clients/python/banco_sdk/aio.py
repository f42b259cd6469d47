"""`AsyncBanco`: the asynchronous client, the same as `Banco` for asyncio."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from datetime import datetime
from typing import Any, TypeVar

import httpx
from httpx_sse import EventSource

from banco_sdk import _core as core
from banco_sdk import errors, models
from banco_sdk._core import (
    Call,
    FeedEvent,
    GameTable,
    Retries,
    StreamEvent,
    TableEvent,
    TableRef,
    Versioned,
)

T = TypeVar("T")
TIMEOUT = httpx.Timeout(30.0, connect=10.0)


class AsyncBanco:
    """`Banco` for asyncio: the same methods, awaited (pages and streams are async iterators).

    A client of Banco's API speaking for one token (the operator key, an auditor's or a
    player's). Every write carries an `Idempotency-Key`, kept when it is retried; 429 and 503 are
    retried as `Retry-After` says, a lost connection after a short backoff, up to
    `retries.attempts` times; an error answer raises the `BancoError` of its status. A `url`
    that is not an http:// or https:// URL with a host is a ValueError saying what is wrong."""

    def __init__(self, url: str, token: str | None = None, *, retries: Retries | None = None,
                 timeout: httpx.Timeout = TIMEOUT, transport: httpx.AsyncBaseTransport | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        self.retries = retries or Retries()
        self._timeout = timeout
        self._http = httpx.AsyncClient(base_url=core.base_url(url), timeout=timeout, transport=transport,
                                  headers={"Accept": "application/json", **auth, **(headers or {})})

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncBanco:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def call(self, call: Call[T]) -> T:
        """Send `call`, retrying as the policy says, and read its answer."""
        headers, failures = call.request_headers(), 0
        while True:
            try:
                response = await self._http.request(call.method, call.path, params=call.query(),
                                              content=call.content(), headers={
                                                  **headers, **({"Content-Type": "application/json"}
                                                                if call.body is not None else {})})
            except httpx.TransportError as exc:
                wait = self.retries.wait(failures) if call.retry_on(exc) else None
                if wait is None:
                    raise errors.connection_failed(exc) from exc
            else:
                if response.is_success:
                    return call.parse(response)
                wait = self.retries.wait(failures, response)
                if wait is None:
                    raise errors.from_response(response, core.retry_after(response))
            failures += 1
            await asyncio.sleep(wait)

    # Who, what games.

    async def me(self) -> models.Me:
        return await self.call(core.me())

    async def games(self) -> list[models.Game]:
        return await self.call(core.games())

    async def game(self, slug: str) -> models.Game:
        return await self.call(core.game(slug))

    # Operator keys (the scope `keys:admin`).

    async def create_key(self, name: str, scopes: list[str], *, expires_at: datetime | str | None = None,
                   idempotency_key: str | None = None) -> models.KeyIssued:
        """A scoped operator key: its `secret` is shown in this answer only."""
        return await self.call(core.create_key(name, scopes, expires_at, idempotency_key))

    async def keys(self) -> models.KeyList:
        """Every operator key (never a secret), and the scopes a key may hold."""
        return await self.call(core.keys())

    async def key(self, key_id: str) -> models.Key:
        return await self.call(core.key(key_id))

    async def rotate_key(self, key_id: str, *, idempotency_key: str | None = None) -> models.KeyIssued:
        """A new secret for the key (the old one stops working), shown in this answer only."""
        return await self.call(core.rotate_key(key_id, idempotency_key))

    async def revoke_key(self, key_id: str, *, idempotency_key: str | None = None) -> None:
        """The key stops working, its open streams end."""
        return await self.call(core.revoke_key(key_id, idempotency_key))

    # Players, wallets, auditors.

    async def create_player(self, name: str, *, idempotency_key: str | None = None) -> models.PlayerCreated:
        return await self.call(core.create_player(name, idempotency_key))

    async def player(self, player_id: str) -> models.Player:
        return await self.call(core.player(player_id))

    async def players(self, *, limit: int | None = None) -> AsyncIterator[models.PlayerSummary]:
        """Every player, newest first, page after page."""
        cursor: str | None = None
        while True:
            page = await self.call(core.players_page(cursor, limit))
            for item in page.items:
                yield item
            if not (cursor := page.next_cursor):
                return

    async def deposit(self, player_id: str, amount: int, reason: str, *,
                idempotency_key: str | None = None) -> models.TransferResult:
        return await self.call(core.transfer("deposits", player_id, amount, reason, idempotency_key))

    async def withdraw(self, player_id: str, amount: int, reason: str, *,
                 idempotency_key: str | None = None) -> models.TransferResult:
        return await self.call(core.transfer("withdrawals", player_id, amount, reason, idempotency_key))

    async def balance(self, player_id: str) -> models.Balance:
        return await self.call(core.balance(player_id))

    async def balance_history(self, player_id: str, *, limit: int | None = None, since: str | None = None,
                        until: str | None = None, reason: str | None = None, table: str | None = None,
                        hand: str | None = None) -> AsyncIterator[models.HistoryRow]:
        """The wallet's postings, oldest first, page after page (filters as the API's)."""
        filters = core.history_filters(since=since, until=until, reason=reason, table=table, hand=hand)
        cursor: int | None = None
        while True:
            page = await self.call(core.history_page(player_id, cursor, limit, filters))
            for item in page.items:
                yield item
            if (cursor := page.next_cursor) is None:
                return

    async def create_auditor(self, name: str, *, idempotency_key: str | None = None) -> models.AuditorCreated:
        return await self.call(core.create_auditor(name, idempotency_key))

    # Tables.

    async def create_table(self, game: str, *, variant: str | None = None,
                     options: Mapping[str, Any] | None = None,
                     idempotency_key: str | None = None) -> GameTable:
        return await self.call(core.create_table(game, variant, options, idempotency_key))

    async def table(self, table: TableRef) -> GameTable:
        """The table as this token may see it, with the `version` `act` sends as If-Match."""
        return await self.call(core.get_table(table))

    async def tables(self, *, game: str | None = None, status: str | None = None,
               limit: int | None = None) -> AsyncIterator[models.TableSummary]:
        """Every table (of `game`, in `status`), newest first, page after page."""
        cursor: str | None = None
        while True:
            page = await self.call(core.tables_page(game, status, cursor, limit))
            for item in page.items:
                yield item
            if not (cursor := page.next_cursor):
                return

    async def join(self, table: TableRef, *, buy_in: int | None = None, age: int | None = None,
             seed: str | None = None, idempotency_key: str | None = None) -> models.Joined:
        return await self.call(core.join(table, buy_in, age, seed, idempotency_key))

    async def leave(self, table: TableRef, player_id: str, *,
              idempotency_key: str | None = None) -> models.Left:
        """The player leaves the table, cashed out; with an `Idempotency-Key`, the same on every
        retry, so a leave that did commit is answered as before."""
        return await self.call(core.leave(table, player_id, idempotency_key))

    async def deal(self, table: TableRef, *, idempotency_key: str | None = None) -> GameTable:
        """Deal the next hand. Given the table read (not its id), only while it is still at that
        version: two players dealing at once deal one hand (the other gets `PreconditionFailed`)."""
        return await self.call(core.deal(table, idempotency_key))

    async def act(self, table: Versioned, action: Any, *, idempotency_key: str | None = None) -> GameTable:
        """Play `action` (a dict or an action model: an offered one with its ranges chosen, see
        `as_action`) at the version of `table` as read: `PreconditionFailed` if it moved on. The
        table, not its id (which has no version): an id is a TypeError, nothing sent."""
        return await self.call(core.act(table, action, idempotency_key))

    async def hand(self, hand_id: str) -> models.Hand:
        return await self.call(core.hand(hand_id))

    async def wait_settled(self, hand_id: str, *, timeout: float = 30.0, every: float = 0.1) -> models.Hand:
        """The hand once the worker settled it (`TimeoutError` after `timeout` seconds)."""
        deadline = time.monotonic() + timeout
        while (found := await self.hand(hand_id)).status != "settled":
            if time.monotonic() > deadline:
                raise TimeoutError(f"hand {hand_id} is still {found.status}")
            await asyncio.sleep(every)
        return found

    async def table_events(self, table: TableRef, *, after: int = 0,
                     limit: int | None = None) -> AsyncIterator[TableEvent]:
        """The table's events after version `after`, as this token may see them, up to its
        version when the last page was read."""
        while True:
            page = await self.call(core.events_page(table, after, limit))
            for item in page.items:
                yield item
            after = page.next_after if page.next_after is not None else after
            if not page.more:
                return

    async def feed(self, *, after: int = 0, types: str | list[str] | None = None,
             limit: int | None = None) -> AsyncIterator[FeedEvent]:
        """The log's events after position `after`, in the feed's order, until a page comes back
        empty (nothing more committed yet: ask again later from the last `position`)."""
        while True:
            page = await self.call(core.feed_page(after, core.types_param(types), limit))
            if not page.items:
                return
            for item in page.items:
                yield item
            after = page.next_after

    async def feed_head(self) -> int:
        """The position of the log's last event now: `feed(after=...)` from it reads only what
        commits from now on."""
        return (await self.call(core.feed_page("latest", None, 1))).next_after

    # Streams.

    def stream(self, table: TableRef, *, after: int | None = None, turns: bool = False,
               events: bool = True, timeout: float | None = None, last_event_id: str | None = None,
               follow: bool = True) -> AsyncGenerator[StreamEvent, None]:
        """The table's events (and with `turns`, the table as `event: table` when it is this
        player's turn) as Server-Sent Events. A cut connection is resumed with `Last-Event-ID`,
        so nothing is missed or repeated; when the server ends the stream (its `timeout`), it
        is opened again from the same place while `follow`, else the iteration ends."""
        params = core.table_stream_params(after, turns, events, timeout)
        return self._sse(f"/v1/tables/{core.table_id(table)}/stream", params, timeout,
                         last_event_id, follow)

    def feed_stream(self, *, after: core.FeedPlace | None = None, types: str | list[str] | None = None,
                    timeout: float | None = None, last_event_id: str | None = None,
                    follow: bool = True) -> AsyncGenerator[StreamEvent, None]:
        """The log's events as Server-Sent Events (`id:` their position), resumed as `stream`;
        `after="latest"`: only those committed from now on."""
        params = core.feed_stream_params(after, core.types_param(types), timeout)
        return self._sse("/v1/feed/stream", params, timeout, last_event_id, follow)

    async def _sse(self, path: str, params: dict[str, Any], timeout: float | None,
             last_event_id: str | None, follow: bool) -> AsyncGenerator[StreamEvent, None]:
        place, failures = core.StreamPlace(last_event_id), 0
        read_timeout = core.stream_timeout(timeout, self._timeout)
        while True:
            wait: float | None
            try:
                async with self._http.stream("GET", path, params=params, headers=place.headers(),
                                       timeout=read_timeout) as response:
                    if response.is_success:
                        async for sse in EventSource(response).aiter_sse():
                            if (event := place.take(sse)) is not None:
                                failures = 0
                                yield event
                        if not follow:
                            return
                        continue
                    await response.aread()
                    wait = self.retries.wait(failures, response)
                    if wait is None:
                        raise errors.from_response(response, core.retry_after(response))
            except httpx.TransportError as exc:  # a cut: go on from the last id received
                wait = self.retries.wait(failures)
                if wait is None:
                    raise errors.connection_failed(exc) from exc
            failures += 1
            await asyncio.sleep(wait)
