// How an over table ended, for its page: why it ended, the game's winner where it has one
// (Cassino's final score and winning side, Pirate pairs' last pirate in) and what each seat took
// home. All from what any reader of the table gets: its last events (GET /v1/tables/{id}/events,
// as the token may see them: a winner, a score and cash-outs hide nothing) and its last hand's
// seats (GET /v1/hands/{id}), which name the players, whose seats are gone by then. A table
// closed before any hand has no such line-up: the viewer is named as himself, and for an
// operator or auditor each player as GET /v1/players/{id} names him now; a player the viewer
// cannot read is "a player who sat here". Not as the page once saw them seated: a player erased since
// (which moves no table, so no view told the page of it) would be named still.
import { api, el, isolate, mayReadWallet, money, showProblem } from "../banco.js";
import { seatRef } from "./seats.js";

// The events a table's ending leaves are its last few dozen: the final hand's last moves, its
// settlement, the seats' cash-outs (PlayerLeft) and TableEnded.
const TAIL = 120;

export async function tableEnding(table) {
  const base = `/v1/tables/${encodeURIComponent(table.id)}`;
  const after = Math.max(0, table.version - TAIL);
  const [page, hand] = await Promise.all([api(`${base}/events?after=${after}&limit=${TAIL + 20}`),
    table.hand ? api(`/v1/hands/${encodeURIComponent(table.hand.id)}`) : null]);
  const events = page.items;
  const endAt = events.findLastIndex((e) => e.type === "TableEnded");
  const ended = endAt >= 0 ? events[endAt] : null;
  const left = [];
  // The cash-outs of the ending come together, just before TableEnded (earlier leaves are not).
  for (let i = endAt - 1; i >= 0 && events[i].type === "PlayerLeft"; i--) left.unshift(events[i].data);
  const last = (type) => events.findLast((e) => e.kind === "game" && e.type === type);
  return { reason: ended ? ended.data.reason : null, left, seats: hand ? hand.seats : [],
    scored: table.game === "cassino" ? last("RoundScored") : null,
    won: table.game === "pirate-pairs" ? last("GameWon") : null };
}

const SEVENHALF = new Set(["sette-e-mezzo", "siete-y-media", "casino-pirate"]);

// Each cashed-out player's name, by id (null: erased; absent: unknown to this viewer), each as
// the API names him now.
async function namesOf(end, who) {
  const names = new Map();
  for (const s of end.seats) names.set(s.player_id, s.name ?? null);
  if (who && who.role === "player" && who.name !== undefined) names.set(who.id, who.name);
  const unknown = end.left.map((l) => l.player_id).filter((id) => !names.has(id) && mayReadWallet(who, id));
  await Promise.all(unknown.map((id) => api(`/v1/players/${encodeURIComponent(id)}`)
    .then((p) => names.set(id, p.erased ? null : p.name), () => {})));
  return names;
}

// The section: `who` is the signed-in token's {role, id, name}, for "(you)".
export function endingView(table, who) {
  const box = el("section", { class: "panel table-end", id: "table-end", "aria-labelledby": "table-end-h" },
    el("h2", { id: "table-end-h" }, "How the game ended"), el("p", { class: "muted" }, "Reading how the table ended…"));
  const problem = el("div", { class: "problem-box", hidden: true });
  tableEnding(table).then(async (end) => fill(box, table, who, end, await namesOf(end, who), problem)).catch((e) => {
    box.replaceChildren(box.firstChild, problem);
    showProblem(problem, e);
  });
  return box;
}

function fill(box, table, who, end, names, problem) {
  // The last hand's line-up names the seats (in its order, counted from 1: the chairs are gone).
  const you = who && who.role === "player" ? end.seats.find((s) => s.player_id === who.id) : null;
  const lineup = { seats: end.seats.map((s) => ({ seat: s.seat, player_id: s.player_id, name: s.name })),
    you: you ? you.seat : null };
  const named = (seat) => seatRef(lineup, seat);
  const over = end.reason === "game_over";
  const lines = [];
  lines.push(el("p", { id: "table-end-why" }, over ? "The game is over: it was played to its end."
    : end.reason ? `The table was closed before the game's end (${isolate(end.reason)}): what the game held went back to the seats that paid it.`
      : "The table is over."));
  if (end.scored && end.scored.data.winner !== null && end.scored.data.winner !== undefined) {
    const d = end.scored.data;
    const side = (i) => {
      const seats = (d.sides && d.sides[i] && d.sides[i].seats) || [i];
      return seats.map(named).join(" and ");
    };
    const winners = (d.winning_seats || []).map(named).join(" and ") || side(d.winner);
    lines.push(el("p", { class: "winner", id: "table-end-winner" }, el("strong", {}, "Winner: "), winners,
      `, with ${d.totals[d.winner]} points after ${d.round} round${d.round === 1 ? "" : "s"}.`));
    lines.push(el("p", { id: "table-end-score" }, "Final score: ",
      d.totals.map((t, i) => `${side(i)} ${t}`).join(" · "), "."));
  } else if (end.won) {
    lines.push(el("p", { class: "winner", id: "table-end-winner" }, el("strong", {}, "Winner: "), named(end.won.data.seat),
      `, the last pirate in, who took the pot of ${money(end.won.data.pot)}.`));
  } else if (over && SEVENHALF.has(table.game)) {
    lines.push(el("p", {}, "Fewer than two seats still held treasure, so no further hand could be played."));
  }
  const cashed = end.left.length ? el("div", { class: "table-wrap" }, el("table", { class: "data cash-outs" },
    el("caption", {}, "What each seat took home"),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Player"), el("th", { scope: "col", class: "num" }, "Cash-out"))),
    el("tbody", {}, end.left.map((l) => {
      const name = !names.has(l.player_id) ? "a player who sat here"
        : names.get(l.player_id) === null ? "an erased player" : isolate(names.get(l.player_id));
      const mine = who && who.role === "player" && who.id === l.player_id;
      return el("tr", { class: mine ? "yours" : null, dataset: { player: l.player_id } },
        el("td", { "data-label": "Player" }, mayReadWallet(who, l.player_id)
          ? el("a", { href: `/players/${encodeURIComponent(l.player_id)}`, title: l.player_id }, name)
          : el("span", { title: l.player_id }, name), mine ? " (you)" : ""),
        el("td", { class: "num cash-out", "data-label": "Cash-out" }, money(l.cash_out)));
    })))) : el("p", { class: "muted" }, "No seat was left to cash out.");
  box.replaceChildren(box.firstChild, ...lines,
    el("p", { class: "help" }, "When the table ended every seat was cashed out: its treasure went back to its player's wallet."),
    cashed, problem);
}
