import type { components, operations } from "./schema.js";

type S = components["schemas"];

/** A table as its reader may see it: narrow it by `game` to its game's `view` and actions. */
export type Table = S["Table"];
export type Game = Table["game"];
/** The table of one game. */
export type TableOf<G extends Game> = Extract<Table, { game: G }>;
/** What a table offers its reader now, ranges unchosen. */
export type LegalAction = Table["legal_actions"][number];
/** An action to send: an offered one with its ranges chosen. */
export type Action = S["Action"];
export type TableSummary = S["TableSummary"];
export type TableEvent = S["TableEvent"];
export type FeedEvent = S["FeedEvent"];
/** The body a webhook's URL receives: one event of the log, as `data`. */
export type WebhookEvent = S["WebhookEvent"];
/** The `data:` of a message of the log's stream. */
export type FeedStreamMessage = S["FeedStreamMessage"];
export type Hand = S["Hand"];
export type Player = S["Player"];
export type PlayerCreated = S["PlayerCreated"];
export type PlayerSummary = S["PlayerSummary"];
export type HistoryRow = S["HistoryRow"];
export type HistoryPage = S["HistoryPage"];
export type TransferResult = S["TransferResult"];
export type Joined = S["Joined"];
export type Left = S["Left"];
export type Balance = S["Balance"];
export type GameInfo = S["Game"];
export type Me = S["Me"];
/** An operator key as listed (never its secret), and one just made or rotated, with its secret. */
export type Key = S["Key"];
export type KeyIssued = S["KeyIssued"];
export type KeyList = S["KeyList"];
/** A scope an operator key may hold. */
export type Scope = S["KeyCreate"]["scopes"][number];
export type Join = S["Join"];
export type TableCreate = S["TableCreate"];
export type HistoryFilters = Omit<NonNullable<operations["getBalanceHistory"]["parameters"]["query"]>,
  "cursor" | "limit">;
