// The seats of a table page: who sits where, by name and chair (a chair keeps its number while
// its player sits; the seat number is the hand's order, which the API's turn and actions name),
// and for a signed-in player the free seats to take with a buy-in, or his own to leave between
// hands.
import { api, el, isolate, mayReadWallet, money, resendHint, showProblem, writer } from "../banco.js";

// The number a person reads for `seat` (the API's place in the hand's order, from 0): the chair
// its player sits in, counted from 1 as the seats table counts them; where the page knows no
// chair (a hand's replay: its line-up records none), the seat's place, from 1.
export function seatNumber(table, seat) {
  const s = (table.seats || []).find((x) => x.seat === seat);
  return (s && typeof s.chair === "number" ? s.chair : seat) + 1;
}

// The player in `seat`, as the seats table names him: his name, "erased", or null if unknown.
function occupant(table, seat) {
  const s = (table.seats || []).find((x) => x.seat === seat);
  if (!s || !("name" in s)) return null;
  return s.name === null || s.name === undefined ? "erased" : isolate(s.name);
}

// A seat for a heading or a label: "Seat 2 · Ada (you)" ("Seat 2" where the player is unknown).
export function seatTitle(table, seat) {
  const name = occupant(table, seat);
  return `Seat ${seatNumber(table, seat)}${name ? ` · ${name}` : ""}${seat === table.you ? " (you)" : ""}`;
}

// A seat within a sentence: "seat 2 (Ada)", "seat 2 (Ada, you)".
export function seatRef(table, seat) {
  const said = [occupant(table, seat), seat === table.you ? "you" : null].filter(Boolean);
  return `seat ${seatNumber(table, seat)}${said.length ? ` (${said.join(", ")})` : ""}`;
}

// A seated player's name, or "erased"; his id rides along on hover.
export function seatName(table, seat) {
  const s = table.seats.find((x) => x.seat === seat);
  if (!s) return `seat ${seatNumber(table, seat)}`;
  return s.name === null || s.name === undefined ? "an erased player" : isolate(s.name);
}

// A seat's player cell: his name (or "erased"), his id on hover, and whether he is you; a link
// to his wallet where the viewer may open it (his own, for a player).
export function playerCell(table, s, who) {
  const name = s.name === null || s.name === undefined ? "erased" : isolate(s.name);
  const attrs = { title: s.player_id, class: s.name === null ? "muted" : null };
  return [mayReadWallet(who, s.player_id)
    ? el("a", { href: `/players/${encodeURIComponent(s.player_id)}`, ...attrs }, name) : el("span", attrs, name),
  s.seat === table.you ? ` (you${who && who.name && who.name !== s.name ? `, ${isolate(who.name)}` : ""})` : ""];
}

const games = {}; // GET /v1/games/{name}, once per page

async function gameOf(name) {
  games[name] = games[name] || api(`/v1/games/${encodeURIComponent(name)}`);
  return games[name];
}

// Join or leave: a panel for a signed-in player, between hands of an open table, as
// {node, update(table)}, or null. The table page builds it anew only when what it offers changes
// (a seat taken or left by this player, the table's status) and hands it every other table to
// `update`: another player sitting down or leaving changes only how many seats are free, and
// what this player typed and where his focus was stay. `seated(news, sat)` hears of his own
// sitting down (`sat` true) or leaving, with a sentence saying what happened to his treasure.
export function seatOffer(table, who, seated) {
  if (!who || who.role !== "player" || table.status !== "open") return null;
  const box = el("section", { class: "panel seat-offer", "aria-labelledby": "seat-offer-h", id: "seat-offer",
    tabindex: "-1" });
  const problem = el("div", { class: "problem-box", hidden: true });
  const base = `/v1/tables/${encodeURIComponent(table.id)}/seats`;
  if (table.you !== null && table.game === "cassino" && table.hand) {
    // A Cassino game is played to its end: the API refuses a leave between its rounds.
    box.append(el("h2", { id: "seat-offer-h" }, "Your seat"),
      el("p", {}, "A game of Cassino is played to its end: your seat's treasure goes back to your"
        + " wallet when a side wins it, or when the table is closed."));
    return { node: box, update() {} };
  }
  if (table.you !== null) {
    // Sent again after its answer was lost, the leave is done once, and its replayed answer says
    // what the seat cashed out the first time.
    const leaves = writer();
    const leave = el("button", { type: "button", class: "secondary" }, "Leave the table");
    leave.addEventListener("click", async () => {
      leave.disabled = true;
      showProblem(problem, null);
      try {
        const left = await leaves(`${base}/${encodeURIComponent(who.id)}`, { method: "DELETE" });
        await seated(`You left the table: ${money(left.cash_out)} went back to your wallet.`, false);
      } catch (e) {
        leave.disabled = false;
        showProblem(problem, e);
        if (e.resendable) problem.append(resendHint());
      }
    });
    box.append(el("h2", { id: "seat-offer-h" }, "Your seat"),
      el("p", {}, "Between hands you may leave: your seat's treasure goes back to your wallet."),
      el("div", { class: "actions" }, leave), problem);
    return { node: box, update() {} };
  }
  let current = table; // the newest table seen, which says how many seats are free
  let drawn = null; // once the game and the wallet are read: (table) => void, to say the free seats
  let reread = null; // once drawn: () => Promise, reads the wallet again and says it
  box.append(el("h2", { id: "seat-offer-h" }, "Take a seat"), el("p", { class: "muted" }, "Reading the seats…"), problem);
  (async () => {
    try {
      const balance = () => api(`/v1/players/${encodeURIComponent(who.id)}/balance`);
      const [game, wallet] = await Promise.all([gameOf(table.game), balance()]);
      const fixed = typeof table.options.buy_in === "number" ? table.options.buy_in : null;
      const note = el("p", { id: "seats-free" });
      const amount = el("input", { id: "buy-in", name: "buy_in", type: "number", inputmode: "numeric", step: 1,
        min: fixed ?? 1, max: fixed ?? wallet.balance, required: true, readonly: fixed !== null,
        value: fixed ?? Math.min(50, wallet.balance) });
      // Age and seed are the API's optional join fields, sent only when filled: the age settles
      // who is oldest (Casino pirate's first meneur, Pirate pairs' ties), the seed is mixed
      // into every shuffle of the table (RULES.md, "Fair decks").
      const age = el("input", { id: "seat-age", name: "age", type: "number", inputmode: "numeric", step: 1,
        min: 0, max: 150, "aria-describedby": "seat-age-help" });
      const seed = el("input", { id: "seat-seed", name: "seed", type: "text", maxlength: 200, autocomplete: "off",
        spellcheck: "false", "aria-describedby": "seat-seed-help" });
      const go = el("button", { type: "submit" }, "Sit down");
      // Checked by the submit handler (novalidate), once it has read the wallet again: the
      // browser's own check, before it, would hold the buy-in to the balance read earlier.
      const form = el("form", { class: "filters", "aria-label": "Take a seat", novalidate: true },
        el("div", { class: "field" }, el("label", { for: "buy-in" }, fixed !== null ? "Buy-in (fixed by the table)" : "Buy-in"), amount),
        el("div", { class: "field" }, el("label", { for: "seat-age" }, "Age (0–150, optional)"), age,
          el("span", { class: "help", id: "seat-age-help" }, "The oldest player is Casino pirate's first meneur and wins Pirate pairs' ties.")),
        el("div", { class: "field" }, el("label", { for: "seat-seed" }, "Seed (up to 200 characters, optional)"), seed,
          el("span", { class: "help", id: "seat-seed-help" }, "Your own text, mixed into every shuffle; shown to the table once a hand settles: put nothing personal in it.")),
        go);
      const help = el("p", { class: "help" }, "The buy-in moves from your wallet to the seat; it comes back when you leave.");
      const sits = writer(); // a sit-down sent again after its answer was lost takes one seat, once
      form.addEventListener("submit", async (e) => {
        e.preventDefault();
        // The wallet as it is now, not as it was when the page opened: the limit it sets on the
        // buy-in is checked against it.
        await reread();
        if (!form.reportValidity()) return;
        go.disabled = true;
        showProblem(problem, null);
        const body = fixed !== null ? {} : { buy_in: Number(amount.value) };
        if (age.value !== "") body.age = Number(age.value);
        if (seed.value !== "") body.seed = seed.value;
        try {
          const joined = await sits(base, { json: body });
          const mine = joined.table.seats.find((x) => x.seat === joined.seat);
          const paid = mine && typeof mine.balance === "number" ? mine.balance : fixed ?? Number(amount.value);
          await seated(`You sat down in seat ${seatNumber(joined.table, joined.seat)}: ${money(paid)} went`
            + " from your wallet to your seat.", true);
        } catch (err) {
          go.disabled = false;
          showProblem(problem, err);
          if (err.resendable) problem.append(resendHint());
        }
      });
      // The wallet changes beside the table (a deposit, a withdrawal, a seat left at another
      // table): read again whenever the table changes and before a sit-down, its balance said
      // and the buy-in bounded by what it holds now. A read that fails keeps the last one.
      reread = async () => {
        try {
          wallet.balance = (await balance()).balance;
        } catch {
          return;
        }
        if (fixed === null) amount.max = wallet.balance;
        drawn(current);
      };
      drawn = (t) => {
        const free = game.max_players - t.seats.length;
        note.textContent = `${Math.max(0, free)} of ${game.max_players} seats free; your wallet holds ${money(wallet.balance)}.`;
        // A full table offers no seat: the form waits, what was typed in it kept, for one to free.
        form.hidden = help.hidden = free <= 0;
      };
      drawn(current);
      box.replaceChildren(el("h2", { id: "seat-offer-h" }, "Take a seat"), note, help, form, problem);
    } catch (e) {
      showProblem(problem, e);
    }
  })();
  return {
    node: box,
    update(t) {
      current = t;
      if (drawn) drawn(t);
      if (reread) reread();
    },
  };
}
