/** Streams followed through cut connections and the server's ends: the client resumes with
 * Last-Event-ID, and gets every event once, in order, with no gap and no repeat. */
import assert from "node:assert/strict";
import { test } from "node:test";

import { Banco, playTable, type Action, type FeedEvent, type Table, type TableEvent } from "../src/index.js";
import { newPlayer, operator } from "./live.js";

/** A fetch whose streams listed in `cuts` (by their count, from 1) lose their connection after
 * `bytes`, in the middle of a message; it records each stream's Last-Event-ID. */
function cutting(cuts: Set<number>, bytes: number) {
  const resumedAfter: (string | null)[] = [];
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const response = await fetch(request);
    if (!new URL(request.url).pathname.endsWith("/stream")) return response;
    resumedAfter.push(request.headers.get("Last-Event-ID"));
    if (!cuts.has(resumedAfter.length) || response.body === null) return response;
    const reader = response.body.getReader();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) return controller.close();
        if (sent + value.length < bytes) {
          sent += value.length;
          return controller.enqueue(value);
        }
        controller.enqueue(value.slice(0, bytes - sent));
        await reader.cancel();
        controller.error(new TypeError("terminated: connection reset"));
      },
      cancel: () => reader.cancel(),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { resumedAfter, fetch: fetcher as typeof fetch };
}

test("a table's stream, cut and ended while a hand is played, gives every version once", async () => {
  const wire = cutting(new Set([1, 2, 3, 4]), 400);
  const watcher = operator({ fetch: wire.fetch });
  const op = operator();
  const players = [await newPlayer(100), await newPlayer(100), await newPlayer(100)];
  const table = await op.createTable({ game: "sette-e-mezzo" });
  for (const player of players) await player.banco.join(table.id, { buy_in: 50 });

  const stop = new AbortController();
  const seen: number[] = [];
  let target = Infinity;
  const following = (async () => {
    // Each connection lasts half a second: the server's ends are followed as the cuts are.
    for await (const message of watcher.followTable(table.id, { timeout: 0.5, signal: stop.signal })) {
      const event = message.data as TableEvent;
      assert.equal(message.id, String(event.version));
      assert.equal(message.event, event.type);
      seen.push(event.version);
    }
  })();
  await Promise.all(players.map((player, i) => playTable(player.banco, table.id, {
    deal: i === 0, since: null, hands: 2,
  })));
  const last = await op.table(table.id);
  target = last.version;
  // Until every version came, and the server ended a connection after the four cut.
  const started = Date.now();
  const done = setInterval(() => {
    if ((seen.at(-1)! >= target && wire.resumedAfter.length >= 6) || Date.now() - started > 20_000) stop.abort();
  }, 50);
  await following;
  clearInterval(done);

  assert.deepEqual(seen, Array.from({ length: last.version }, (_, i) => i + 1));
  assert.ok(wire.resumedAfter.length >= 6, `connections: ${wire.resumedAfter.length}`);
  assert.equal(wire.resumedAfter[0], null);
  // Each connection after the first went on after the last message received whole.
  for (const id of wire.resumedAfter.slice(1)) assert.ok(id !== null && seen.includes(Number(id)));
});

test("the log's feed followed through cuts gives what its pages give, in the same order", async () => {
  const op = operator();
  const backlog: FeedEvent[] = [];
  for await (const event of op.feed({ limit: 1000 })) backlog.push(event);
  // From a little before the end of the log, then through new events.
  const start = backlog[Math.max(0, backlog.length - 30)]!.position;
  const wire = cutting(new Set([1, 2]), 900);
  const watcher = operator({ fetch: wire.fetch });
  const stop = new AbortController();
  const streamed: number[] = [];
  let wanted = Infinity;
  const following = (async () => {
    for await (const message of watcher.followFeed({ lastEventId: String(start), timeout: 0.5, signal: stop.signal })) {
      assert.equal(message.id, String(message.data.position));
      streamed.push(message.data.position);
      if (streamed.length >= wanted) stop.abort();
    }
  })();
  for (let i = 0; i < 5; i++) {
    const player = await newPlayer(10 + i);
    await op.withdraw(player.id, 1, "desk");
  }
  // The pages from the same place, up to what has committed now.
  const paged: number[] = [];
  for (;;) {
    paged.length = 0;
    for await (const event of op.feed({ after: start, limit: 7 })) paged.push(event.position);
    if (paged.length >= 30) break;  // the watermark has passed the new events
  }
  wanted = paged.length;
  if (streamed.length >= wanted) stop.abort();
  const deadline = setTimeout(() => stop.abort(), 20_000);
  await following;
  clearTimeout(deadline);
  assert.deepEqual(streamed.slice(0, paged.length), paged);
  assert.equal(new Set(streamed).size, streamed.length, "no event twice");
  assert.ok(wire.resumedAfter.length >= 3);
});

test("feedHead() reads the feed from now: what commits later, never what was there before", async () => {
  const op = operator();
  const before = await op.feedHead();
  const created = await op.createPlayer("Head");
  // The head is the last event the feed gives now: once the registration is read, it is before it.
  const deadline = Date.now() + 30_000;
  const readAfter = async (after: number): Promise<FeedEvent[]> => {
    const out: FeedEvent[] = [];
    for await (const event of op.feed({ after })) out.push(event);
    return out;
  };
  const registered = (events: FeedEvent[]) => events.filter((e) => e.type === "PlayerRegistered"
    && e.data.player_id === created.player.id);
  while (registered(await readAfter(before)).length === 0) {
    assert.ok(Date.now() < deadline, "the registration never reached the feed");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const head = await op.feedHead();
  await op.deposit(created.player.id, 7, "after the head");
  // The deposit's posting, read by its type: its `data` is a posting's (`to`, `amount`).
  const deposited = (events: FeedEvent[]) => events.filter((e) => e.type === "TreasurePosted"
    && e.data.to === `wallet:${created.player.id}` && e.data.amount === 7);
  let seen = await readAfter(head);
  while (deposited(seen).length === 0) {
    assert.ok(Date.now() < deadline, "the deposit never reached the feed");
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = await readAfter(head);
  }
  assert.deepEqual(registered(seen), []);
});

/** A table as the stream and the bot read it, at `version`: one move to make in it, or none. */
function tableAt(version: number, move: boolean, status: Table["status"] = "playing"): Table {
  return { id: "tb_shown", game: "cassino", version, status, you: 0, hand: { id: "hd_shown" }, seats: [],
           legal_actions: move ? [{ type: "trail", card: "2C" }] : [] } as unknown as Table;
}

/** A Banco whose table's stream shows `shown` (each as `event: table`, in that order, then
 * ends), and which takes a move only at the table's version now (`now`, one more each move);
 * the table it answers offers a move while its version is below `offersUntil`. */
function showing(shown: Table[], now: number, offersUntil = 0) {
  const moves: (string | null)[] = [];
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), {
    status, headers: { "Content-Type": status < 400 ? "application/json" : "application/problem+json" } });
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    if (path.endsWith("/stream")) {
      return new Response(shown.map((t) => `id: ${t.version}\nevent: table\ndata: ${JSON.stringify(t)}\n\n`).join(""),
                          { headers: { "Content-Type": "text/event-stream" } });
    }
    if (path.endsWith("/actions")) {
      moves.push(request.headers.get("If-Match"));
      if (request.headers.get("If-Match") !== `"${now}"`) {
        return json(412, { status: 412, code: "stale_version", detail: "the table moved on", version: now });
      }
      now += 1;
    }
    return json(200, tableAt(now, now < offersUntil));
  };
  return { moves, banco: new Banco({ url: "http://127.0.0.1:9", token: "X", fetch: fetcher as typeof fetch }) };
}

test("turns() drops a table no newer than one the stream already gave", async () => {
  const { banco } = showing([3, 2, 3, 5, 4, 6].map((v) => tableAt(v, true)), 6);
  const versions: number[] = [];
  for await (const table of banco.turns("tb_shown", { reconnect: false })) versions.push(table.version);
  assert.deepEqual(versions, [3, 5, 6]);
});

test("playTable never moves at a version its own moves have gone past", async () => {
  // Its move at 3 makes the table 4, where it moves again (5); the stream shows it 4 after, and
  // 3 and 2 again, before the table ends at 6.
  const { moves, banco } = showing([tableAt(3, true), tableAt(4, true), tableAt(3, true), tableAt(2, true),
                                    tableAt(6, false, "over")], 3, 5);
  const played: Action[] = [];
  const end = await playTable(banco, "tb_shown", { since: null, onMove: (_, action) => played.push(action) });
  assert.equal(end.version, 6);
  assert.deepEqual(moves, ['"3"', '"4"'], "each move at the version it was offered in, none refused as stale");
  assert.equal(played.length, 2);
});
