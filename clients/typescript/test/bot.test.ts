/** The reference bot from the command line (`banco-bot`, dist/src/cli.js), as an operator runs
 * it to fill a table. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { newPlayer, operator, server } from "./live.js";

const CLI = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const run = promisify(execFile);

async function bot(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { timeout: 60_000 });
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
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
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
  const unknown = await bot("--url", url, "--token", key, "--game", "cassino", "--table", "tb_0000000000000000");
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^banco-bot: 404/);
  assert.doesNotMatch(unknown.stderr, /at .*\.js:\d+/);
});
