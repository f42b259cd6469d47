/** Every game Banco lists, played to its end through the SDK by the reference bots, one per
 * seat: each follows the table's stream of its turns and plays its strategy's moves with the
 * table's version as If-Match; the worker settles the hand, and no treasure is made or lost. */
import assert from "node:assert/strict";
import { test } from "node:test";

import { chooseAction, playTable, type Game, type TableCreate } from "../src/index.js";
import { newPlayer, operator } from "./live.js";

// How each game's table is set up: its options, each seat's buy-in (Casino pirate's is fixed by
// the table) and how many sit.
const SETUPS: Record<Game, { options: TableCreate["options"]; buyIn?: number; players: number }> = {
  "sette-e-mezzo": { options: {}, buyIn: 50, players: 3 },
  "siete-y-media": { options: {}, buyIn: 50, players: 3 },
  "casino-pirate": { options: {}, players: 3 },
  "pirate-pairs": { options: { stake: 5 }, buyIn: 40, players: 3 },
  "cassino": { options: {}, buyIn: 30, players: 2 },
};
const DEPOSIT = 100;

test("the bots know every game Banco lists", async () => {
  const listed = (await operator().games()).map((game) => game.name).sort();
  assert.deepEqual(listed, Object.keys(SETUPS).sort());
});

for (const game of Object.keys(SETUPS) as Game[]) {
  test(`a hand of ${game} played to its end by the bots, treasure conserved`, async () => {
    const op = operator();
    const setup = SETUPS[game];
    const players = await Promise.all(Array.from({ length: setup.players }, () => newPlayer(DEPOSIT)));
    const table = await op.createTable({ game, options: setup.options });
    for (const [i, player] of players.entries()) {
      await player.banco.join(table.id, { buy_in: setup.buyIn ?? null, age: 20 + i, seed: `seed-${i}` });
    }
    let moves = 0;
    // The first bot deals; every bot counts the hand whenever its stream first shows it.
    const ends = await Promise.all(players.map((player, i) => playTable(player.banco, table.id, {
      deal: i === 0, since: null, onMove: () => { moves += 1; },
    })));
    assert.ok(moves > 0, "the bots made moves");
    for (const end of ends) assert.ok(end.status === "open" || end.status === "over", end.status);

    const last = await op.table(table.id);
    assert.ok(last.hand !== null);
    const hand = await op.hand(last.hand.id);
    assert.equal(hand.status, "settled");
    assert.ok(hand.server_seed !== null || game === "casino-pirate");
    assert.equal(chooseAction(last), null, "the operator sits nowhere: nothing to do");

    // Treasure conserved: what each player holds in his wallet and at the table is what he had.
    let held = 0;
    for (const player of players) {
      const wallet = (await player.banco.balance(player.id)).balance;
      const seat = last.seats.find((s) => s.player_id === player.id)?.balance ?? 0;
      assert.ok(wallet >= 0 && seat >= 0);
      held += wallet + seat;
    }
    assert.equal(held, DEPOSIT * players.length);

    // The table's events, read page by page, are each of its versions once.
    const versions = [];
    for await (const event of op.tableEvents(table.id, { limit: 7 })) versions.push(event.version);
    assert.deepEqual(versions, Array.from({ length: last.version }, (_, i) => i + 1));
  });
}
