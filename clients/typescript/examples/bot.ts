// A bot that plays one hand at a table where it sits: node dist/examples/bot.js URL TOKEN TABLE
import { Banco, BancoError, chooseAction } from "@banco/client";

const [url = "", token = "", tableId = ""] = process.argv.slice(2);
const banco = new Banco({ url, token });
// A hand already over when the bot came is not its hand.
const came = await banco.table(tableId);
const over = came.status === "open" || came.status === "over" ? came.hand?.id : undefined;

// The stream shows the table whenever this player has something to do, and once a hand is
// settled (the table open again), whether or not the bot had a move in it.
for await (let table of banco.turns(tableId)) {
  while (table.status === "playing" && table.legal_actions.length > 0) {
    // The banker's draw-to-5 for the 7½ family, else the first sensible move offered.
    const action = chooseAction(table)!;
    console.log(`version ${table.version}: ${JSON.stringify(action)}`);
    try {
      // Sent with If-Match (the version just read) and an Idempotency-Key, retried if need be.
      table = await banco.act(table, action);
    } catch (error) {
      if (!(error instanceof BancoError && [409, 412].includes(error.status))) throw error;
      table = await banco.table(tableId); // someone moved first: read the table again
    }
  }
  const settled = table.status === "open" && table.hand !== null && table.hand.id !== over;
  if (settled || table.status === "over") break; // its hand is settled, or the table ended
}
