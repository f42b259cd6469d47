#!/usr/bin/env node
/**
 * banco-bot: a reference bot at a table, from the command line.
 *
 *   banco-bot --url http://127.0.0.1:8000 --token $TOKEN --game cassino --table tb_... [--buy-in 30]
 *             [--hands 1] [--deal]
 *
 * Without --table it opens a table of --game. With --buy-in it takes a seat first (unless seated).
 * Each move is printed as a line of JSON.
 */
import { parseArgs } from "node:util";

import { Banco, BancoError, ConnectionFailed, playTable, takeSeat, type Table } from "../src/index.js";

const USAGE = "usage: banco-bot --url URL --token TOKEN --game GAME [--table ID] [--buy-in N] "
  + "[--hands N] [--deal]   (--url and --token may come as BANCO_URL and BANCO_TOKEN)";
const OPTIONS = {
  url: { type: "string" }, token: { type: "string" }, game: { type: "string" },
  table: { type: "string" }, "buy-in": { type: "string" }, hands: { type: "string", default: "1" },
  deal: { type: "boolean", default: false }, help: { type: "boolean", default: false },
} as const;

/**
 * `args` with `--option VALUE` written `--option=VALUE` where VALUE begins with a dash and is no
 * option: a URL-safe token can begin with one, which parseArgs refuses as ambiguous.
 */
function dashesKept(args: string[]): string[] {
  const named = (arg: string) => arg.startsWith("--") && Object.hasOwn(OPTIONS, arg.slice(2).split("=")[0]!);
  // An option given without its value, which the next argument is.
  const valued = (arg: string) => arg.startsWith("--") && Object.hasOwn(OPTIONS, arg.slice(2))
    && OPTIONS[arg.slice(2) as keyof typeof OPTIONS].type === "string";
  const kept: string[] = [];
  for (const arg of args) {
    const last = kept[kept.length - 1];
    if (last !== undefined && valued(last) && arg.startsWith("-") && !named(arg)) {
      kept[kept.length - 1] = `${last}=${arg}`;
    } else {
      kept.push(arg);
    }
  }
  return kept;
}

/** What an id or a game's name is made of, as the Python bot checks it. */
const ID = /^[A-Za-z0-9_-]+$/;

/** What a token is made of, as `banco bot` checks it: printable ASCII, no space at either end. */
const TOKEN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** A usage error: one line saying what is wrong, exit 2. */
function usage(said: string): number {
  console.error(`banco-bot: ${said}`);
  return 2;
}

/** `text` as a whole number of at least 1, or what is wrong with it (a negative one, `-5`, is
 * a whole number less than 1, not something else). */
function whole(option: string, text: string): number | string {
  if (!/^[-+]?\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) return `${option}: '${text}' is not a whole number`;
  return Number(text) < 1 ? `${option}: ${Number(text)} is less than 1` : Number(text);
}

/** Whether `error`, Banco's answer to the bot's first request, says --url is not Banco's API:
 * a 404 with no route (`not_found`, where an unknown table is `table_not_found`), an answer that
 * is no problem document (a web page), or a success that is not JSON. */
function notBanco(error: unknown): boolean {
  if (error instanceof SyntaxError) return true;
  return error instanceof BancoError && !(error instanceof ConnectionFailed)
    && (error.code === "not_found" || error.code === `http_${error.status}`);
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: dashesKept(process.argv.slice(2)), options: OPTIONS }));
  } catch (error) {
    return usage(`${(error as Error).message} (see --help)`);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const { game } = values;
  const url = values.url ?? process.env.BANCO_URL;
  const token = values.token ?? process.env.BANCO_TOKEN;
  // Each mistake said exactly, in one line: which option, and what is wrong with its value.
  if (!url || !token || !game) {
    const missing = Object.entries({ "--url": url, "--token": token, "--game": game }).flatMap(([name, value]) => value ? [] : [name]);
    const named = missing.length === 1 ? `${missing[0]} is` : `${missing.slice(0, -1).join(", ")} and ${missing.at(-1)} are`;
    return usage(`${named} required (--url and --token may come as BANCO_URL and BANCO_TOKEN)`);
  }
  // A character a header cannot carry was thrown by fetch as a TypeError about a ByteString.
  if (!TOKEN.test(token)) {
    return usage("--token: the token holds characters a token never has (spaces, or quotes pasted with it?)");
  }
  for (const [option, value] of [["--game", game], ["--table", values.table]] as const) {
    // Sent as it is, an id with a '/' or a '?' would reach another route and be answered 404.
    if (value !== undefined && !ID.test(value)) {
      return usage(`${option}: '${value}' is not an id: letters, digits, '-' and '_' only`);
    }
  }
  const hands = whole("--hands", values.hands);
  const buyIn = values["buy-in"] === undefined ? undefined : whole("--buy-in", values["buy-in"]);
  if (typeof hands === "string") return usage(hands);
  if (typeof buyIn === "string") return usage(buyIn);
  let banco: Banco;
  try {
    banco = new Banco({ url, token });
  } catch (error) {  // a URL that is none, or Banco's with /v1: one line, not a stack trace
    console.error(`banco-bot: --url: ${(error as Error).message}`);
    return 2;
  }
  let table: Table;
  try {
    table = values.table === undefined ? await banco.createTable({ game }) : await banco.table(values.table);
  } catch (error) {
    // No Banco at --url is the user's mistake, as a URL that is none is (exit 2); one lost
    // while the bot plays is not (exit 1).
    if (error instanceof ConnectionFailed) return usage(error.message);
    // A table of a game Banco does not have: --game is wrong, said with the games there are
    // (it was thrown as the table's refusal, "422 unknown_game", exit 1).
    if (error instanceof BancoError && error.code === "unknown_game") {
      const games = (await banco.games()).map((known) => known.name).join(", ");
      return usage(`--game: no game '${game}' at ${banco.url}; its games: ${games}`);
    }
    // A token Banco does not know, or a table it does not have, is the option's mistake (they
    // were thrown as Banco's refusal, "401 unauthorized" or "404 table_not_found", exit 1).
    if (error instanceof BancoError && error.status === 401) {
      return usage(`--token: ${banco.url} refused the token: ${error.detail}`);
    }
    if (error instanceof BancoError && error.code === "table_not_found") {
      return usage(`--table: no table ${values.table} at ${banco.url}`);
    }
    if (notBanco(error)) {
      const answer = error instanceof BancoError ? `HTTP ${error.status}` : "its answer is not JSON";
      return usage(`--url: ${banco.url} does not look like a Banco API (${answer})`);
    }
    throw error;
  }
  if (typeof table?.game !== "string" || typeof table.id !== "string") {
    return usage(`--url: ${banco.url} does not look like a Banco API (its answer is not a table)`);
  }
  if (values.table === undefined) console.log(JSON.stringify({ table: table.id, game }));
  if (table.game !== game) {
    console.error(`banco-bot: table ${table.id} plays ${table.game}, not ${game}`);
    return 2;
  }
  if (buyIn !== undefined && table.you === null) {
    // Another bot may sit at the same moment: a lost race is tried again.
    table = await takeSeat(banco, table.id, { buy_in: buyIn });
    console.log(JSON.stringify({ seat: table.you }));
  }
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  const end = await playTable(banco, table.id, {
    hands, deal: values.deal, signal: stop.signal,
    onMove: (at, action) => console.log(JSON.stringify({ version: at.version, action })),
  });
  console.log(JSON.stringify({ status: end.status, seats: end.seats }));
  return 0;
}

main().then((code) => process.exit(code), (error: unknown) => {
  // A refusal is the user's to read, not a stack trace.
  console.error(`banco-bot: ${error instanceof BancoError ? error.message : String(error)}`);
  process.exit(1);
});
