/**
 * Reference bots: a simple, legal strategy for each game, and a loop that sits at a table and
 * plays it from a stream of its turns. Built only on the client: they run in Node and in
 * browsers alike.
 */
import { concrete } from "./actions.js";
import { Banco } from "./client.js";
import { BancoError } from "./errors.js";
import type { Action, Join, LegalAction, Table, TableOf } from "./types.js";

/** Half points: the 7½ family counts in halves (15 is 7½). The banker draws to 5, as the
 * games' own timeout rule does (`banker_stand_at`). */
const STAND_AT = 10;

type SevenHalfTable = TableOf<"sette-e-mezzo"> | TableOf<"siete-y-media"> | TableOf<"casino-pirate">;

function offered<T extends LegalAction>(table: { legal_actions: T[] }, type: string): T[] {
  return table.legal_actions.filter((offer) => offer.type === type);
}

/** The 7½ family: stake the least, draw while under 5 (the banker as a player), then stand, or
 * for Casino pirate's meneur call the players; reveal when called. Never volunteers nor concedes. */
export function sevenHalf(table: SevenHalfTable): Action | null {
  const offers = (table.legal_actions as LegalAction[])
    .filter((offer) => offer.type !== "volunteer" && offer.type !== "concede");
  if (offers.length === 0) return null;
  const view = table.view;
  const own = view === null ? undefined : table.turn?.role === "banker" ? view.bank
    : view.hands.find((hand) => hand.seat === table.you && hand.status === "open");
  const total = own?.total ?? STAND_AT;
  const byType = (type: string) => offers.find((offer) => offer.type === type);
  const hit = byType("hit");
  const settle = byType("stand") ?? byType("call");
  const choice = (total < STAND_AT ? hit ?? settle : settle ?? hit)
    ?? byType("reveal") ?? offers[0]!;
  return concrete(choice);
}

/** Pirate pairs: open with the first card offered, attack while a card can be played, else
 * challenge, else accuse; draw only when nothing else is open. */
export function piratePairs(table: TableOf<"pirate-pairs">): Action | null {
  for (const type of ["choose", "attack", "challenge", "accuse", "draw"]) {
    const offer = offered(table, type)[0];
    if (offer !== undefined) return concrete(offer);
  }
  return table.legal_actions[0] === undefined ? null : concrete(table.legal_actions[0]);
}

/** Cassino: the capture that takes the most cards, else trail the first card offered, else the
 * first move offered (a build's owner may not trail). */
export function cassino(table: TableOf<"cassino">): Action | null {
  const captures = table.legal_actions.flatMap((offer) => offer.type === "capture" ? [offer] : []);
  if (captures.length > 0) {
    return concrete(captures.reduce((best, offer) => offer.take.length > best.take.length ? offer : best));
  }
  const move = offered(table, "trail")[0] ?? table.legal_actions[0];
  return move === undefined ? null : concrete(move);
}

/** The move the reference bot makes at `table`, or null when it has nothing to do. */
export function chooseAction(table: Table): Action | null {
  if (table.legal_actions.length === 0) return null;
  switch (table.game) {
    case "sette-e-mezzo":
    case "siete-y-media":
    case "casino-pirate":
      return sevenHalf(table);
    case "pirate-pairs":
      return piratePairs(table);
    case "cassino":
      return cassino(table);
  }
}

export interface BotOptions {
  /** Hands to play before leaving off (default 1). */
  hands?: number;
  /** Deal the next hand when the table is open (any seated player may). */
  deal?: boolean;
  /** The strategy (default: `chooseAction`). */
  strategy?: (table: Table) => Action | null;
  /** Hands that do not count: those up to this one (default: the hand at the table when the
   * bot comes, if it is over; null counts every hand). */
  since?: string | null;
  /** Told of every move sent. */
  onMove?: (table: Table, action: Action) => void;
  signal?: AbortSignal;
}

const RACES = new Set([409, 412]);

/** Take a seat at `tableId` with `body`, again from the table as it now is when another
 * player's seat was written first (409, 412); the table as seated (unchanged if already). */
export async function takeSeat(banco: Banco, tableId: string, body: Join, tries = 10): Promise<Table> {
  for (let attempt = 1; ; attempt++) {
    const table = await banco.table(tableId);
    if (table.you !== null) return table;
    try {
      return (await banco.join(tableId, body)).table;
    } catch (error) {
      if (!(error instanceof BancoError && RACES.has(error.status)) || attempt >= tries) throw error;
    }
  }
}

/** A move that lost a race: the table moved on first (409, 412), or another seat's move ended
 * the table, which cashed every seat out (403 `not_seated`). */
function lostRace(error: unknown): boolean {
  return error instanceof BancoError
    && (RACES.has(error.status) || (error.status === 403 && error.code === "not_seated"));
}

/**
 * Sit at `tableId` (already seated) and play until `hands` hands dealt since have ended or the
 * table is over: every time the table's stream of turns shows something to do, play the
 * strategy's move with the table's version as If-Match, and go on from the table each move
 * returns; a table the stream shows that is no newer than the last one the bot had is skipped.
 * A move that lost a race (`lostRace`) is played again from the table as it now is. With
 * `deal`, a seated bot deals when the table is open (a deal refused waits for the next change).
 * Returns the table as last seen.
 */
export async function playTable(banco: Banco, tableId: string, options: BotOptions = {}): Promise<Table> {
  const { hands = 1, deal = false, strategy = chooseAction, onMove, signal } = options;
  const played = new Set<string>();
  let before = options.since;
  if (before === undefined) {
    const table = await banco.table(tableId, signal);
    before = table.status === "open" || table.status === "over" ? table.hand?.id ?? null : null;
  }
  let last: Table | undefined;
  for await (let table of banco.turns(tableId, { signal })) {
    // The stream may still show a version the bot's own move (or its read after a lost race)
    // has gone past: a move at it could only be refused as stale.
    if (last !== undefined && table.version <= last.version) continue;
    for (;;) {
      last = table;
      if (table.hand !== null && table.hand.id !== before) played.add(table.hand.id);
      if (table.status === "over" || (table.status === "open" && played.size >= hands)) return table;
      const action = table.status === "playing" ? strategy(table) : null;
      if (action !== null) {
        try {
          onMove?.(table, action);
          table = await banco.act(table, action, { signal });
        } catch (error) {
          if (!lostRace(error)) throw error;
          table = await banco.table(tableId, signal);
        }
        continue;
      }
      if (table.status === "open" && deal && table.you !== null) {
        try {
          table = await banco.deal(table, { signal });
          continue;
        } catch (error) {
          // Another seat dealt first, or the table cannot deal yet (too few players): the
          // stream shows the table again when someone else changes it.
          if (!(error instanceof BancoError && RACES.has(error.status))) throw error;
        }
      }
      break;  // nothing to do until the stream shows the table again
    }
  }
  if (last === undefined) throw new Error("the table's stream ended before it showed the table");
  return last;
}
