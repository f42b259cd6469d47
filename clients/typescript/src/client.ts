import createClient, { type Client } from "openapi-fetch";

import type { paths } from "./schema.js";
import { follow, type FollowOptions, type StreamMessage } from "./sse.js";
import { DEFAULT_RETRY, newIdempotencyKey, retryingFetch, type RetryPolicy } from "./transport.js";
import type {
  Balance, FeedEvent, Game, GameInfo, Hand, HistoryFilters, HistoryPage, HistoryRow, Join, Joined, Left, Me,
  Key, KeyIssued, KeyList, PlayerCreated, PlayerSummary, Scope, Table, TableCreate, TableEvent, TableSummary,
  TransferResult, Action,
} from "./types.js";

export interface BancoOptions {
  /** Banco's address, such as `http://127.0.0.1:8000`: without the `/v1` each call adds. */
  url: string;
  /** A bearer token: the operator key, an auditor's or a player's. */
  token: string;
  /** The `fetch` to send with (default: the global one). */
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  /** Makes each write's Idempotency-Key (default: a random UUID). */
  idempotencyKey?: () => string;
}

/** Options of a single write. */
export interface WriteOptions {
  /** The write's Idempotency-Key: give your own to retry it yourself later, safely. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface TableStreamOptions extends FollowOptions {
  /** Also send the table (`event: table`) when the reader has something to do in it. */
  turns?: boolean;
  /** Send the table's events (default true). */
  events?: boolean;
  /** Where to start when no `lastEventId` is given: after this table version. */
  after?: number;
  /** Seconds each connection lasts before the server ends it (and this follows on). */
  timeout?: number;
}

export interface FeedStreamOptions extends FollowOptions {
  /** Where to start when no `lastEventId` is given: after this position, or `"latest"`: only
   * the events committed from now on. */
  after?: number | "latest";
  /** Only these event types. */
  types?: string[];
  timeout?: number;
}

/** A message of a table's stream: one of its events, or (`event: "table"`) the table itself. */
export type TableMessage = StreamMessage<TableEvent | Table>;

// The ETag each table was read with; a table read from a stream carries its version alone.
const etags = new WeakMap<object, string>();

/** The `If-Match` for a table as read: its ETag, or its version quoted. */
export function ifMatch(table: Table): string {
  return etags.get(table) ?? `"${table.version}"`;
}

function remember<T extends object>(value: T, response: Response, table: Table = value as unknown as Table): T {
  const etag = response.headers.get("ETag");
  if (etag !== null) etags.set(table, etag);
  return value;
}

function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && "legal_actions" in value && "game" in value;
}

/**
 * `url` as the client's base (no trailing slash), or a TypeError saying in one line what is wrong
 * with it: not an http:// or https:// URL with a host, or an address ending in the /v1 the client
 * adds to each call itself (Banco would answer each `/v1/v1/...` with a bare 404).
 */
export function baseUrl(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || !["http:", "https:"].includes(parsed.protocol) || parsed.hostname === "") {
    throw new TypeError(`'${url}' is not an http:// or https:// URL with a host`);
  }
  const base = url.replace(/\/+$/, "");
  if (new URL(base).pathname.endsWith("/v1")) {
    throw new TypeError(`'${url}' ends in /v1: give Banco's address without it ('${base.slice(0, -3)}');`
      + " the client adds /v1 to each call");
  }
  return base;
}

/**
 * Banco's API for one token. Every write carries an `Idempotency-Key` (the same one on each of
 * its retries), 429 and 503 are retried after their `Retry-After` when it is within
 * `retry.maxDelayMs` (else thrown at once, with `retryAfter`), and any other failure is
 * thrown as a `BancoError` (a `ConnectionFailed` when Banco could not be reached). `api` is the
 * whole API, typed from `openapi.yaml` (openapi-fetch), with the same behaviour, for what the
 * methods here do not cover.
 */
export class Banco {
  readonly api: Client<paths>;
  readonly url: string;
  private readonly options: BancoOptions;

  /** Throws a TypeError saying what is wrong with `options.url` (see `baseUrl`). */
  constructor(options: BancoOptions) {
    this.options = options;
    this.url = baseUrl(options.url);
    const policy = { ...DEFAULT_RETRY, ...options.retry };
    const base = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.api = createClient<paths>({
      baseUrl: this.url,
      headers: { Authorization: `Bearer ${options.token}` },
      fetch: retryingFetch(base, policy, options.idempotencyKey ?? newIdempotencyKey, this.url),
    });
  }

  /** The same client speaking with another token. */
  as(token: string): Banco {
    return new Banco({ ...this.options, token });
  }

  private static key(options?: WriteOptions): Record<string, string> {
    return options?.idempotencyKey === undefined ? {} : { "Idempotency-Key": options.idempotencyKey };
  }

  async me(): Promise<Me> {
    return (await this.api.GET("/v1/me")).data!;
  }

  /** A scoped operator key (the scope `keys:admin`): its `secret` is in this answer only. */
  async createKey(name: string, scopes: Scope[], options?: WriteOptions & { expiresAt?: Date | string }
  ): Promise<KeyIssued> {
    const at = options?.expiresAt;
    return (await this.api.POST("/v1/keys", {
      body: { name, scopes, ...(at === undefined ? {} : { expires_at: at instanceof Date ? at.toISOString() : at }) },
      headers: Banco.key(options), signal: options?.signal,
    })).data!;
  }

  /** Every operator key (never a secret), and the scopes a key may hold. */
  async keys(): Promise<KeyList> {
    return (await this.api.GET("/v1/keys")).data!;
  }

  async key(keyId: string): Promise<Key> {
    return (await this.api.GET("/v1/keys/{key_id}", { params: { path: { key_id: keyId } } })).data!;
  }

  /** A new secret for the key (the old one stops working), in this answer only. */
  async rotateKey(keyId: string, options?: WriteOptions): Promise<KeyIssued> {
    return (await this.api.POST("/v1/keys/{key_id}/rotation", {
      params: { path: { key_id: keyId } }, headers: Banco.key(options), signal: options?.signal,
    })).data!;
  }

  /** The key stops working and its open streams end; revoking it again changes nothing. */
  async revokeKey(keyId: string, options?: WriteOptions): Promise<void> {
    await this.api.DELETE("/v1/keys/{key_id}", {
      params: { path: { key_id: keyId } }, headers: Banco.key(options), signal: options?.signal,
    });
  }

  async games(): Promise<GameInfo[]> {
    return (await this.api.GET("/v1/games")).data!;
  }

  async createPlayer(name: string, options?: WriteOptions): Promise<PlayerCreated> {
    return (await this.api.POST("/v1/players", {
      body: { name }, headers: Banco.key(options), signal: options?.signal,
    })).data!;
  }

  async deposit(playerId: string, amount: number, reason: string, options?: WriteOptions
  ): Promise<TransferResult> {
    return (await this.api.POST("/v1/players/{player_id}/deposits", {
      params: { path: { player_id: playerId } }, body: { amount, reason },
      headers: Banco.key(options), signal: options?.signal,
    })).data!;
  }

  async withdraw(playerId: string, amount: number, reason: string, options?: WriteOptions
  ): Promise<TransferResult> {
    return (await this.api.POST("/v1/players/{player_id}/withdrawals", {
      params: { path: { player_id: playerId } }, body: { amount, reason },
      headers: Banco.key(options), signal: options?.signal,
    })).data!;
  }

  async balance(playerId: string): Promise<Balance> {
    return (await this.api.GET("/v1/players/{player_id}/balance", {
      params: { path: { player_id: playerId } },
    })).data!;
  }

  async createTable(body: TableCreate, options?: WriteOptions): Promise<Table> {
    const { data, response } = await this.api.POST("/v1/tables", {
      body, headers: Banco.key(options), signal: options?.signal,
    });
    return remember(data!, response);
  }

  /** The table as this token may see it; it keeps its ETag for `act`. */
  async table(tableId: string, signal?: AbortSignal): Promise<Table> {
    const { data, response } = await this.api.GET("/v1/tables/{table_id}", {
      params: { path: { table_id: tableId } }, signal,
    });
    return remember(data!, response);
  }

  /** Take a seat, moving `buy_in` from the wallet to it. */
  async join(tableId: string, body: Join = {}, options?: WriteOptions): Promise<Joined> {
    const { data, response } = await this.api.POST("/v1/tables/{table_id}/seats", {
      params: { path: { table_id: tableId } }, body, headers: Banco.key(options),
      signal: options?.signal,
    });
    return remember(data!, response, data!.table);
  }

  async leave(tableId: string, playerId: string, options?: WriteOptions): Promise<Left> {
    return (await this.api.DELETE("/v1/tables/{table_id}/seats/{player_id}", {
      params: { path: { table_id: tableId, player_id: playerId } }, headers: Banco.key(options),
      signal: options?.signal,
    })).data!;
  }

  /** Deal the next hand. Given the table as read, only at that version (412 otherwise). */
  async deal(table: string | Table, options?: WriteOptions): Promise<Table> {
    const id = typeof table === "string" ? table : table.id;
    const headers = { ...Banco.key(options), ...(typeof table === "string" ? {} : { "If-Match": ifMatch(table) }) };
    const { data, response } = await this.api.POST("/v1/tables/{table_id}/hands", {
      params: { path: { table_id: id } }, headers, signal: options?.signal,
    });
    return remember(data!, response);
  }

  /** Play `action` at the table as it was read: its version goes as `If-Match`, so a move made
   * on a table that changed since is a 412 and changes nothing. Returns the table after it.
   * Unlike `deal`, it takes no id (a TypeError): a move is made only at the version seen. */
  async act(table: Table, action: Action, options?: WriteOptions): Promise<Table> {
    // Its type says a table, but a caller in JavaScript may give an id, which has no version:
    // said here, nothing sent, rather than a move at `/v1/tables/undefined`.
    const given: unknown = table;
    if (typeof given !== "object" || given === null || typeof (given as Table).version !== "number") {
      throw new TypeError("act() takes the table as read (from table()), for its version (If-Match), not "
        + (typeof given === "string" ? `its id '${given}': act(await table('${given}'), action)` : String(given)));
    }
    const { data, response } = await this.api.POST("/v1/tables/{table_id}/actions", {
      params: { path: { table_id: table.id }, header: { "If-Match": ifMatch(table) } }, body: action,
      headers: Banco.key(options), signal: options?.signal,
    });
    return remember(data!, response);
  }

  async hand(handId: string): Promise<Hand> {
    return (await this.api.GET("/v1/hands/{hand_id}", { params: { path: { hand_id: handId } } })).data!;
  }

  /** Every table, newest first, page after page. */
  async *tables(query: { game?: Game; status?: TableSummary["status"]; limit?: number } = {}
  ): AsyncGenerator<TableSummary> {
    let cursor: string | null | undefined;
    do {
      const page = (await this.api.GET("/v1/tables", { params: { query: { ...query, cursor } } })).data!;
      yield* page.items;
      cursor = page.next_cursor;
    } while (cursor !== null);
  }

  /** Every player, newest first, page after page (operator, auditor). */
  async *players(query: { limit?: number } = {}): AsyncGenerator<PlayerSummary> {
    let cursor: string | null | undefined;
    do {
      const page = (await this.api.GET("/v1/players", { params: { query: { ...query, cursor } } })).data!;
      yield* page.items;
      cursor = page.next_cursor;
    } while (cursor !== null);
  }

  /** A wallet's history, oldest first, page after page. */
  async *balanceHistory(playerId: string, filters: HistoryFilters & { limit?: number } = {}
  ): AsyncGenerator<HistoryRow> {
    let cursor: number | null | undefined;
    do {
      const page = (await this.api.GET("/v1/players/{player_id}/balance-history", {
        params: { path: { player_id: playerId }, query: { ...filters, cursor } },
        headers: { Accept: "application/json" },
      })).data as HistoryPage;
      yield* page.items;
      cursor = page.next_cursor;
    } while (cursor !== null);
  }

  /** A table's events after version `after`, up to its version now. */
  async *tableEvents(tableId: string, query: { after?: number; limit?: number } = {}
  ): AsyncGenerator<TableEvent> {
    let after = query.after ?? 0;
    for (;;) {
      const page = (await this.api.GET("/v1/tables/{table_id}/events", {
        params: { path: { table_id: tableId }, query: { after, limit: query.limit } },
      })).data!;
      yield* page.items;
      after = page.next_after;
      if (!page.more) return;
    }
  }

  /** The log's events after position `after`, as far as has committed (operator, auditor). */
  async *feed(query: { after?: number; types?: string[]; limit?: number } = {}): AsyncGenerator<FeedEvent> {
    let after = query.after ?? 0;
    for (;;) {
      const page = (await this.api.GET("/v1/feed", {
        params: { query: { after, limit: query.limit, types: query.types?.join(",") } },
      })).data!;
      if (page.items.length === 0) return;
      yield* page.items;
      after = page.next_after;
    }
  }

  /** The position of the log's last event now: `feed({ after })` from it reads only what
   * commits from now on (operator, auditor). */
  async feedHead(): Promise<number> {
    return (await this.api.GET("/v1/feed", { params: { query: { after: "latest", limit: 1 } } })).data!
      .next_after;
  }

  /**
   * A table's stream: its events (`event` is their type, `data` the event), and with `turns`
   * the table itself (`event: "table"`) whenever this token has something to do, followed across
   * the server's ends and cut connections by `Last-Event-ID`, with no gap and no repeat.
   */
  followTable(tableId: string, options: TableStreamOptions = {}): AsyncGenerator<TableMessage> {
    const { turns, events, after, timeout } = options;
    return follow<TableEvent | Table>(async (lastEventId, signal) => (await this.api.GET(
      "/v1/tables/{table_id}/stream", {
        params: {
          path: { table_id: tableId }, query: { turns, events, after, timeout },
          header: lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId },
        },
        headers: { Accept: "text/event-stream" }, parseAs: "stream", signal,
      })).response, options);
  }

  /** The tables this token is shown by a stream of its turns (`turns`, no events): each time
   * it has something to do at the table (legal actions in the hand in play, or a seat at the
   * table open for its next hand: so once each hand is settled, even one it had no move in), and
   * when the table ends. A table no newer than one this stream already gave is dropped: the
   * server may show a version again, or an older one after a newer, and a move sent at it could
   * only be refused (412 `stale_version`). */
  async *turns(tableId: string, options: Omit<TableStreamOptions, "turns" | "events"> = {}
  ): AsyncGenerator<Table> {
    let seen = -Infinity;
    for await (const message of this.followTable(tableId, { ...options, turns: true, events: false })) {
      if (message.event !== "table" || !isTable(message.data) || message.data.version <= seen) continue;
      seen = message.data.version;
      yield message.data;
    }
  }

  /** The log's feed as a stream, followed by `Last-Event-ID` (operator, auditor). */
  followFeed(options: FeedStreamOptions = {}): AsyncGenerator<StreamMessage<FeedEvent>> {
    const { after, types, timeout } = options;
    return follow<FeedEvent>(async (lastEventId, signal) => (await this.api.GET("/v1/feed/stream", {
      params: {
        query: { after, types: types?.join(","), timeout },
        header: lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId },
      },
      headers: { Accept: "text/event-stream" }, parseAs: "stream", signal,
    })).response, options);
  }
}
