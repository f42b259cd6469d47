/** The reference bot from the command line (`banco-bot`, dist/bin/banco-bot.js), as an operator runs
 * it to fill a table. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { Banco, chooseAction, concrete, playTable, type Action, type Table } from "../src/index.js";
import { closedUrl, newPlayer, operator, server } from "./live.js";

const CLI = fileURLToPath(new URL("../bin/banco-bot.js", import.meta.url));
const EXAMPLE = fileURLToPath(new URL("../examples/bot.js", import.meta.url));
const PACKAGE = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

async function bot(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return node(CLI, ...args);
}

async function node(script: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return nodeWith({}, script, ...args);
}

async function nodeWith(env: Record<string, string>, script: string, ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args],
      { timeout: 60_000, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test("two bots take their seats at a Cassino table and play a round to its settlement", async () => {
  const { url } = server();
  const op = operator();
  const [ann, bob] = [await newPlayer(50), await newPlayer(50)];
  const table = await op.createTable({ game: "cassino" });
  const runs = await Promise.all([
    bot("--url", url, "--token", ann.token, "--game", "cassino", "--table", table.id, "--buy-in", "20", "--deal"),
    bot("--url", url, "--token", bob.token, "--game", "cassino", "--table", table.id, "--buy-in", "20"),
  ]);
  for (const r of runs) assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  const moves = runs.flatMap((r) => r.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>))
    .filter((line) => "action" in line);
  assert.ok(moves.length >= 2, `moves: ${moves.length}`);
  const last = await op.table(table.id);
  assert.ok(last.hand !== null && (await op.hand(last.hand.id)).status === "settled");
  assert.equal(last.seats.reduce((sum, s) => sum + s.balance, 0), 40);
});

test("a mistake on the command line is a message and an exit status, not a stack trace", async () => {
  const { url, key } = server();
  const missing = await bot("--url", url);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--token and --game are required/);
  const table = await operator().createTable({ game: "cassino" });
  const wrong = await bot("--url", url, "--token", key, "--game", "pirate-pairs", "--table", table.id);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /plays cassino, not pirate-pairs/);
  // A table or a token Banco does not know is the option's mistake too (it was "404
  // table_not_found" and "401 unauthorized", exit 1).
  const unknown = await bot("--url", url, "--token", key, "--game", "cassino", "--table", "tb_0000000000000000");
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.equal(unknown.stderr, `banco-bot: --table: no table tb_0000000000000000 at ${url}\n`);
  const refused = await bot("--url", url, "--token", "not-a-token", "--game", "cassino", "--table", table.id);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, new RegExp(`^banco-bot: --token: ${url} refused the token: .+\n$`));
  assert.doesNotMatch(unknown.stderr + refused.stderr, /at .*\.js:\d+/);
});

test("each mistake in the options is said exactly, in one line, exit 2, before Banco is asked", async () => {
  const { url, key } = server();
  const table = await operator().createTable({ game: "cassino" });
  const given = ["--url", url, "--token", key, "--game", "cassino"];
  const games = (await operator().games()).map((game) => game.name).join(", ");
  const said: [string[], string][] = [
    [[...given, "--table", table.id, "--hands", "0"], "--hands: 0 is less than 1"],
    [[...given, "--table", table.id, "--buy-in", "abc"], "--buy-in: 'abc' is not a whole number"],
    [[...given, "--table", table.id, "--hands", "2.5"], "--hands: '2.5' is not a whole number"],
    // A negative one was said to be no whole number, not what it is: less than 1.
    [[...given, "--table", table.id, "--buy-in", "-5"], "--buy-in: -5 is less than 1"],
    // Without --table, a game Banco does not have was its refusal to open the table, exit 1.
    [[...given.slice(0, -1), "nope"], `--game: no game 'nope' at ${url}; its games: ${games}`],
    [[...given, "--table", "a/b"], "--table: 'a/b' is not an id: letters, digits, '-' and '_' only"],
    [["--url", url, "--token", "\u201cbnc_pasted\u201d", "--game", "cassino", "--table", table.id],
     "--token: the token holds characters a token never has (spaces, or quotes pasted with it?)"],
    [["--url", url, "--token", key, "--game", "../tables", "--table", table.id],
     "--game: '../tables' is not an id: letters, digits, '-' and '_' only"],
    [["--url", `${url}/docs`, "--token", key, "--game", "cassino", "--table", table.id],
     `--url: ${url}/docs does not look like a Banco API (HTTP 404)`],
  ];
  const runs = await Promise.all(said.map(([args]) => bot(...args)));
  for (const [[args, words], r] of said.map((s, i) => [s, runs[i]!] as const)) {
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr, `banco-bot: ${words}\n`);
  }
  assert.deepEqual((await operator().table(table.id)).seats, []);
});

test("a URL that is none, or Banco's with /v1, is said in one line when the client is made", async () => {
  const said: Record<string, string> = {
    nope: "'nope' is not an http:// or https:// URL with a host",
    "ftp://127.0.0.1": "'ftp://127.0.0.1' is not an http:// or https:// URL with a host",
    "http://127.0.0.1:8471/v1/": "'http://127.0.0.1:8471/v1/' ends in /v1: give Banco's address without"
      + " it ('http://127.0.0.1:8471'); the client adds /v1 to each call",
  };
  for (const [url, words] of Object.entries(said)) {
    const r = await bot("--url", url, "--token", "X", "--game", "cassino", "--table", "tb_x");
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `banco-bot: --url: ${words}\n`);
    assert.throws(() => new Banco({ url, token: "X" }), { name: "TypeError", message: words });
  }
});

test("a Banco that cannot be reached is said in one line naming its URL, exit 2", async () => {
  const url = await closedUrl();
  const r = await bot("--url", url, "--token", "X", "--game", "cassino", "--table", "tb_x");
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`^banco-bot: cannot reach Banco at ${url}: Connection refused \\(.*\\)\n$`));
});

test("a token that begins with a dash is a token, and one may come from BANCO_TOKEN", async () => {
  // A URL-safe token may begin with "-" (an operator key chosen by hand, or made by an older
  // `banco run`): Banco is asked about it, where parseArgs alone calls the option ambiguous.
  const { url } = server();
  const ann = await newPlayer(0);
  const table = await operator().createTable({ game: "cassino" });
  const dashed = await bot("--url", url, "--token", `-${ann.token.slice(1)}`, "--game", "cassino",
    "--table", table.id);
  assert.equal(dashed.code, 2, dashed.stderr);
  assert.match(dashed.stderr, /^banco-bot: --token: .* refused the token/);
  const fromEnv = await nodeWith({ BANCO_URL: url, BANCO_TOKEN: ann.token }, CLI, "--game", "pirate-pairs",
    "--table", table.id);
  assert.equal(fromEnv.code, 2, fromEnv.stderr);
  assert.match(fromEnv.stderr, /plays cassino, not pirate-pairs/);
});

/** The first ```ts listing after `heading` in a Markdown file. */
function listing(file: string, heading: string): string {
  const text = readFileSync(file, "utf8");
  const after = text.split(heading)[1];
  assert.ok(after !== undefined, `${file} has ${heading}`);
  return after.split("```ts\n")[1]!.split("```")[0]!;
}

test("the READMEs show the example bot as it is, and it plays a hand", async () => {
  const source = readFileSync(`${PACKAGE}/examples/bot.ts`, "utf8");
  assert.ok(source.trimEnd().split("\n").length < 30);
  assert.equal(listing(`${PACKAGE}/README.md`, "## A bot in under 30 lines"), source);
  assert.equal(listing(`${PACKAGE}/../../README.md`, "### TypeScript"), source);

  const { url } = server();
  const op = operator();
  const [ann, bob] = [await newPlayer(50), await newPlayer(50)];
  const table = await op.createTable({ game: "cassino" });
  await ann.banco.join(table.id, { buy_in: 20 });
  await bob.banco.join(table.id, { buy_in: 20 });
  await op.deal(table.id);
  const runs = await Promise.all([ann, bob].map((p) => node(EXAMPLE, url, p.token, table.id)));
  for (const r of runs) {
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /^version \d+: \{"type":"(capture|trail|build|reserve|extend)"/m);
  }
  const last = await op.table(table.id);
  assert.notEqual(last.status, "playing");
  assert.equal(last.seats.reduce((sum, s) => sum + s.balance, 0), 40);
});

/** Draws whenever it may: in Sette e mezzo, until it busts or has 7½. */
function hits(table: Table): Action | null {
  const hit = (table.legal_actions as { type: string }[]).findIndex((offer) => offer.type === "hit");
  return hit < 0 ? chooseAction(table) : concrete(table.legal_actions[hit]!);
}

/** A TCP proxy to Banco at `url` that keeps all it answers: its URL, what it answered, and close. */
async function listened(url: string): Promise<{ url: string; answered: () => string; close: () => void }> {
  const upstream = new URL(url);
  let answered = "";
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    server.on("data", (data: Buffer) => { answered += data.toString(); });
    client.pipe(server);
    server.pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, answered: () => answered,
    close: () => { proxy.close(); for (const socket of sockets) socket.destroy(); },
  };
}

/**
 * The banker of Sette e mezzo has no move in a hand whose players all bust: its stream shows it
 * the table open before the deal, then only once that hand is settled. A bot that took only a
 * hand it had played for its own waited on forever (the example bot did). `which` is run as the
 * banker, its stream open before the other seat deals and draws until it busts, until a hand
 * where the banker had no turn: it must have stopped, exit 0, once that hand was settled.
 */
async function bankerOfABustHand(which: "example" | "banco-bot"): Promise<void> {
  const op = operator();
  for (let tries = 0; tries < 6; tries++) {
    const [banker, player] = [await newPlayer(50), await newPlayer(50)];
    const table = await op.createTable({ game: "sette-e-mezzo", options: { max_bet: 5 } });
    await banker.banco.join(table.id, { buy_in: 20 }); // seat 0, the banker
    const proxy = await listened(server().url);
    try {
      const running = which === "example" ? node(EXAMPLE, proxy.url, banker.token, table.id)
        : bot("--url", proxy.url, "--token", banker.token, "--game", "sette-e-mezzo", "--table", table.id);
      // Its stream has shown it the table open for a hand, before the other seat deals.
      for (let waited = 0; !proxy.answered().includes("event: table"); waited += 50) {
        assert.ok(waited < 30_000, `${which} was never sent the table`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await player.banco.join(table.id, { buy_in: 20 });
      await playTable(player.banco, table.id, { deal: true, strategy: hits });
      const r = await running;
      assert.equal(r.code, 0, `${which}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    } finally {
      proxy.close();
    }
    const last = await op.table(table.id);
    assert.ok(last.hand !== null && (await op.hand(last.hand.id)).status === "settled");
    const turns: number[] = [];
    for await (const event of op.tableEvents(table.id)) {
      if (event.type === "DeadlineSet") turns.push((event.data as { seat: number }).seat);
    }
    if (!turns.includes(0)) return; // a hand the banker had no move in
  }
  assert.fail(`${which}: the banker had a turn in every hand`);
}

test("the example bot, banker of a hand it never acts in, stops once the hand is settled", async () => {
  await bankerOfABustHand("example");
});

test("banco-bot, banker of a hand it never acts in, stops once the hand is settled", async () => {
  await bankerOfABustHand("banco-bot");
});
