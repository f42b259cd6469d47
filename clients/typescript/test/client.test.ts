/** The client's behaviour against a running Banco: writes with an Idempotency-Key that a retry
 * reuses (so a write whose answer was lost is applied once), retries after Retry-After within
 * bounds, problems as BancoErrors, If-Match from the table read, and cursor pages. */
import assert from "node:assert/strict";
import { test } from "node:test";

import { Banco, BancoError, ConnectionFailed, concrete, type Table } from "../src/index.js";
import { closedUrl, newPlayer, operator, recording, server } from "./live.js";

function problem(status: number, code: string, retryAfter: string): Response {
  return new Response(JSON.stringify({ type: `urn:banco:problem:${code}`, title: "Service Unavailable",
                                       status, code, detail: "injected by the test" }),
                      { status, headers: { "Content-Type": "application/problem+json", "Retry-After": retryAfter } });
}

test("a deposit whose answer was lost is retried with the same key and applied once", async () => {
  const player = await newPlayer();
  let cut = false;
  const wire = recording(async (request) => {
    if (request.method === "POST" && !cut) {
      cut = true;
      await fetch(request);  // the server applies it; the answer never reaches the client
      throw new TypeError("fetch failed: connection reset");
    }
    return undefined;
  });
  const { url, key } = server();
  const banco = new Banco({ url, token: key, fetch: wire.fetch, retry: { baseDelayMs: 10 } });
  const result = await banco.deposit(player.id, 7, "desk");
  assert.equal(result.balance.balance, 7);
  const posts = wire.sent.filter((r) => r.method === "POST");
  assert.equal(posts.length, 2);
  const keys = posts.map((r) => r.headers.get("Idempotency-Key"));
  assert.ok(keys[0] && keys[0] === keys[1], `the retry reused the key: ${keys.join(", ")}`);
  assert.equal((await banco.balance(player.id)).balance, 7);
  const rows = [];
  for await (const row of banco.balanceHistory(player.id, { limit: 1 })) rows.push(row);
  assert.deepEqual(rows.map((r) => [r.reason, r.amount]), [["desk", 7]]);
  // The retry was answered from the record of the first: replayed, not applied again.
  const replayed = await fetch(posts[1]!.clone());
  assert.equal(replayed.headers.get("Idempotent-Replayed"), "true");
  assert.equal((await banco.balance(player.id)).balance, 7);
});

test("every write carries an Idempotency-Key, each its own, and no read does", async () => {
  const wire = recording();
  const banco = operator({ fetch: wire.fetch });
  const a = await banco.createPlayer("Ann");
  await banco.createPlayer("Bob");
  const mine = `desk-${a.player.id}`;
  await banco.deposit(a.player.id, 1, "desk", { idempotencyKey: mine });
  await banco.deposit(a.player.id, 1, "desk", { idempotencyKey: mine });
  await banco.balance(a.player.id);
  const keys = wire.sent.map((r) => [r.method, r.headers.get("Idempotency-Key")]);
  assert.equal(keys.length, 5);
  assert.ok(keys[0]![1] && keys[1]![1] && keys[0]![1] !== keys[1]![1]);
  assert.deepEqual(keys.slice(2), [["POST", mine], ["POST", mine], ["GET", null]]);
  assert.equal((await banco.balance(a.player.id)).balance, 1, "the same key twice: one deposit");
});

test("a 503 is retried after its Retry-After, and the retries are bounded", async () => {
  let refusals = 1;
  const wire = recording(async () => refusals-- > 0 ? problem(503, "unavailable", "1") : undefined);
  const banco = operator({ fetch: wire.fetch });
  const started = Date.now();
  const me = await banco.me();
  assert.equal(me.role, "operator");
  assert.ok(Date.now() - started >= 1000, "waited the second the server asked for");
  assert.equal(wire.sent.length, 2);

  const always = recording(async () => problem(429, "rate_limited", "0"));
  const bounded = operator({ fetch: always.fetch, retry: { retries: 2 } });
  await assert.rejects(bounded.me(), (e: unknown) => e instanceof BancoError && e.status === 429
    && e.code === "rate_limited" && e.retryAfter === 0);
  assert.equal(always.sent.length, 3);

  // A wait longer than the client accepts is not shortened: the error comes at once.
  const long = recording(async () => problem(503, "unavailable", "3600"));
  const patient = operator({ fetch: long.fetch, retry: { maxDelayMs: 5000 } });
  await assert.rejects(patient.me(), (e: unknown) => e instanceof BancoError && e.retryAfter === 3600);
  assert.equal(long.sent.length, 1);

  // Banco's own 429 asks for the rest of its window, up to 60 s: beyond the default 30 s cap,
  // it is thrown at once with the wait the server asked for.
  const limited = recording(async () => problem(429, "rate_limited", "45"));
  await assert.rejects(operator({ fetch: limited.fetch }).me(), (e: unknown) => e instanceof BancoError
    && e.status === 429 && e.retryAfter === 45);
  assert.equal(limited.sent.length, 1);
});

test("a Banco that cannot be reached is a ConnectionFailed naming its URL and the cause", async () => {
  const url = await closedUrl();
  const banco = new Banco({ url: `${url}/`, token: "X", retry: { retries: 2, baseDelayMs: 10 } });
  await assert.rejects(banco.me(), (e: unknown) => {
    assert.ok(e instanceof ConnectionFailed && e instanceof BancoError, String(e));
    assert.equal(e.name, "ConnectionFailed");
    assert.equal(e.url, url);
    assert.equal(e.status, 0);
    assert.equal(e.code, "connection_failed");
    assert.ok(e.cause instanceof TypeError, "the cause is what fetch threw");
    assert.match(e.message, new RegExp(`^cannot reach Banco at ${url}: Connection refused \\(.*ECONNREFUSED`));
    assert.doesNotMatch(e.message, /\n/);
    return true;
  });
});

test("refusals are BancoErrors with the problem's status, code, detail and extra fields", async () => {
  const op = operator();
  const player = await newPlayer(5);
  await assert.rejects(op.withdraw(player.id, 10, "desk"), (e: unknown) => {
    assert.ok(e instanceof BancoError);
    assert.equal(e.status, 422);
    assert.equal(e.code, "insufficient_treasure");
    assert.match(e.detail, /holds 5/);
    assert.equal(e.extra.balance, 5);
    return true;
  });
  await assert.rejects(op.table("tb_0000000000000000"), (e: unknown) =>
    e instanceof BancoError && e.status === 404);
  await assert.rejects(player.banco.players().next(), (e: unknown) =>
    e instanceof BancoError && e.status === 403);
  const bad = new Banco({ url: server().url, token: "not-a-token" });
  await assert.rejects(bad.me(), (e: unknown) => e instanceof BancoError && e.status === 401);
});

test("act sends the version of the table it is given: a stale table is a 412 that changes nothing", async () => {
  const op = operator();
  const [ann, bob] = [await newPlayer(100), await newPlayer(100)];
  const table = await op.createTable({ game: "sette-e-mezzo" });
  await ann.banco.join(table.id, { buy_in: 50 });
  await bob.banco.join(table.id, { buy_in: 50 });
  await op.deal(table.id);
  const seen: Table = await bob.banco.table(table.id);
  const offer = seen.legal_actions[0];
  assert.ok(offer, "the player after the banker is to bet");
  const after = await bob.banco.act(seen, concrete(offer));
  assert.ok(after.version > seen.version);
  await assert.rejects(bob.banco.act(seen, concrete(offer)), (e: unknown) =>
    e instanceof BancoError && e.status === 412 && e.extra.version === after.version);
  assert.equal((await op.table(table.id)).version, after.version);
});

test("act given a table's id, as JavaScript may, is a TypeError saying to pass the table read", async () => {
  // Its type takes a table, which tsc checks; from JavaScript an id went as the table, and the
  // move was sent to /v1/tables/undefined/actions with If-Match "undefined". Nothing is sent now.
  const wire = recording();
  const banco = operator({ fetch: wire.fetch });
  const said = "act() takes the table as read (from table()), for its version (If-Match), not ";
  await assert.rejects(banco.act("tb_1" as unknown as Table, { type: "hit" }),
    { name: "TypeError", message: `${said}its id 'tb_1': act(await table('tb_1'), action)` });
  await assert.rejects(banco.act(undefined as unknown as Table, { type: "hit" }),
    { name: "TypeError", message: `${said}undefined` });
  assert.deepEqual(wire.sent, []);
});

test("cursor pages are followed to the end", async () => {
  const op = operator();
  const mine = new Set<string>();
  for (let i = 0; i < 3; i++) mine.add((await op.createTable({ game: "cassino" })).id);
  const listed: string[] = [];
  for await (const t of op.tables({ game: "cassino", status: "open", limit: 2 })) listed.push(t.id);
  assert.equal(new Set(listed).size, listed.length, "no table twice");
  for (const id of mine) assert.ok(listed.includes(id));
  const players: string[] = [];
  for await (const p of op.players({ limit: 2 })) players.push(p.id);
  assert.equal(new Set(players).size, players.length);
  assert.ok(players.length >= 3);
});

test("a seat taken and left: the buy-in goes back to the wallet, the leave sent with its own key", async () => {
  const wire = recording();
  const player = await newPlayer(30, { fetch: wire.fetch });
  const table = await operator().createTable({ game: "cassino" });
  const joined = await player.banco.join(table.id, { buy_in: 20 });
  assert.equal(joined.seat, 0);
  assert.equal((await player.banco.balance(player.id)).balance, 10);
  assert.deepEqual(await player.banco.leave(table.id, player.id), { player_id: player.id, cash_out: 20 });
  assert.equal((await player.banco.balance(player.id)).balance, 30);
  const leave = wire.sent.find((r) => r.method === "DELETE");
  assert.ok(leave?.headers.get("Idempotency-Key"));
});

test("operator keys are made, listed, read, rotated and revoked; each does what its scopes allow", async () => {
  const op = operator();
  const someone = (await op.createPlayer("Keyed")).player.id;
  const expires = new Date(Date.now() + 30 * 86_400_000);
  expires.setUTCMilliseconds(0);
  const issued = await op.createKey("desk", ["players:read"], { expiresAt: expires });
  assert.deepEqual(issued.key.scopes, ["players:read"]);
  assert.equal(issued.key.status, "active");
  assert.equal(new Date(issued.key.expires_at!).getTime(), expires.getTime());
  const listed = await op.keys();
  assert.ok(listed.items.some((k) => k.id === issued.key.id));
  assert.ok(listed.scopes.some((s) => s.name === "keys:admin"));
  assert.equal((await op.key(issued.key.id)).name, "desk");
  const desk = new Banco({ url: server().url, token: issued.secret });
  assert.equal((await desk.balance(someone)).balance, 0);
  await assert.rejects(desk.createPlayer("Not allowed"), (e: unknown) =>
    e instanceof BancoError && e.status === 403 && e.code === "missing_scope");
  const rotated = await op.rotateKey(issued.key.id);
  assert.notEqual(rotated.secret, issued.secret);
  assert.ok(rotated.key.rotated_at);
  await assert.rejects(desk.balance(someone), (e: unknown) => e instanceof BancoError && e.status === 401);
  const renewed = new Banco({ url: server().url, token: rotated.secret });
  assert.equal((await renewed.balance(someone)).balance, 0);
  await op.revokeKey(issued.key.id);
  assert.equal((await op.key(issued.key.id)).status, "revoked");
  await op.revokeKey(issued.key.id);  // revoked already: nothing changes
  await assert.rejects(renewed.balance(someone), (e: unknown) => e instanceof BancoError && e.status === 401);
});
