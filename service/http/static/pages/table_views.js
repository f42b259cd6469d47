// How each game's view of a hand is drawn on the table page: the hands, the cards as cards,
// the totals in display form and the results. Only what GET /v1/tables/{id} showed the
// signed-in token; a card it hid (null) is drawn face down.
// Seats are named as the seats table numbers them (seats.js): the API's 0-based seats never show.
import { card, describeCard, el, isolate, money } from "../banco.js";
import { seatNumber, seatRef, seatTitle } from "./seats.js";

const DECKS = { "sette-e-mezzo": "french", "siete-y-media": "spanish", cassino: "french" };

export function deckOf(game) {
  return DECKS[game];
}

// A card's words, for labels: "7 of oros".
export function cardName(game, id) {
  return describeCard(id, { deck: deckOf(game) }).label;
}

// `id` drawn as a card; `hole` marks a face-down card the viewer may see (his own).
export function drawCard(game, id, { hole = false } = {}) {
  const c = card(id, { deck: deckOf(game) });
  if (hole && id !== null) {
    c.classList.add("hole");
    const label = `${c.getAttribute("aria-label")}, face down`;
    c.setAttribute("aria-label", label);
    c.title = label;
  }
  return c;
}

function cards(game, ids, faceUp = []) {
  const row = el("div", { class: "cards" });
  if (!ids.length) row.append(el("span", { class: "muted" }, "no card"));
  ids.forEach((id, i) => row.append(drawCard(game, id, { hole: faceUp.length > 0 && !faceUp[i] })));
  return row;
}

function backs(count) {
  return Array.from({ length: count }, () => card(null));
}

// --- the 7½ family ------------------------------------------------------------------------------
// The listed variants (GET /v1/games) in words: their names are the API's, read by programs.
const VARIANT_WORDS = { "banker:seat0": "the first seat banks", "banker:lot": "the bank drawn by lot",
  seven_half_takes_bank: "a 7½ takes the bank", classic: "classic", spades: "spades",
  draw: "draw cassino" };

export function variantText(variant) {
  return VARIANT_WORDS[variant] || variant;
}

const STATUS_WORDS = { open: "in play", stood: "stood", bust: "bust", seven_half: "7½", out: "sat out",
  won: "won", lost: "lost", conceded: "conceded" };

// A hand's status in words. `open` is a hand that neither stood, bust nor was called: in play
// while the hand is, and once it is over (a meneur who called every player, a bank left with
// nothing to play against) a hand that stayed in to the end, whose outcome the results say.
function statusWords(view, hand) {
  if (hand.status === "open" && view.phase.name === "ended") return "stayed in";
  return STATUS_WORDS[hand.status] || hand.status;
}

// Which bet of its seat a hand is ("bet 2" after a split), when its seat holds more than one: a
// hand's `index` counts the hands of the whole table in Casino pirate, of the seat in Siete y media.
function betNumbers(hands) {
  const out = new Map();
  for (const h of hands) {
    const mine = hands.filter((o) => o.seat === h.seat);
    if (mine.length > 1) out.set(h, mine.indexOf(h) + 1);
  }
  return out;
}

function sevenHalfHand(table, hand, { banker = false, bet = null } = {}) {
  const v = table.view;
  const who = seatTitle(table, hand.seat);
  const title = banker ? `${who} · ${table.game === "casino-pirate" ? "meneur" : "banker"}`
    : `${who}${bet ? ` · bet ${bet}` : ""}`;
  const turn = table.turn && table.turn.seat === hand.seat &&
    (banker ? table.turn.role === "banker" : table.turn.role === "player" &&
      (v.phase.index === undefined || v.phase.index === hand.index || v.phase.name !== "playing"));
  const declared = Object.entries(hand.declared || {}).map(([c, n]) => `${cardName(table.game, c)} = ${n}`);
  return el("section", { class: ["hand-box", turn && "to-act", hand.seat === table.you && "yours"],
    "aria-label": title },
  el("h3", {}, title, turn ? el("span", { class: "badge playing" }, "to act") : null),
  cards(table.game, hand.cards, hand.face_up),
  el("p", { class: "hand-facts" },
    hand.total_display !== undefined
      ? el("span", { class: "total" }, "Total ", el("strong", {}, hand.total_display))
      : el("span", { class: "total muted" }, "Total hidden"),
    banker ? null : el("span", {}, `Stake ${hand.stake}`),
    el("span", { class: ["badge", hand.status === "open" && v.phase.name === "ended" ? "over" : hand.status] },
      statusWords(v, hand))),
  declared.length ? el("p", { class: "help" }, "Declared: ", declared.join(", ")) : null);
}

// A signed amount: "+10", "-5", "0".
function signed(n) {
  return n > 0 ? `+${money(n)}` : money(n);
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// The results of an ended hand, a row a bet and the bank's last. A bet's `net` is what the rules
// award it, before any shortfall: a payer who cannot cover what he owes pays what his seat holds
// (a `ShortfallRecorded`), so beside it stands what each seat was paid in fact, its balance's
// change over the hand (the view's `balance_changes`), and a shortfall is said in words.
function sevenHalfResults(table) {
  const v = table.view;
  const results = v.results;
  if (!results || !results.length) return null;
  const bets = betNumbers(results.filter((r) => !r.banker));
  const changes = v.balance_changes || null;
  // The bank's award is the other side of every bet's.
  const owedToBank = -results.filter((r) => !r.banker && r.net !== undefined).reduce((n, r) => n + r.net, 0);
  const award = (r) => (r.banker ? owedToBank : r.net);
  // A seat's rows together (a split seat's bets), in the order the results first name it.
  const seats = [...new Set(results.map((r) => r.seat))];
  const rows = seats.flatMap((seat) => results.filter((r) => r.seat === seat));
  const due = new Map(seats.map((seat) => [seat, rows.filter((r) => r.seat === seat && award(r) !== undefined)
    .reduce((n, r) => n + award(r), 0)]));
  const paidOf = (seat) => (changes && changes[seat] !== undefined ? changes[seat] : null);
  const heads = ["Seat", "Stake", "Total", "Outcome", changes ? "Due by the rules" : "Net", changes && "Paid"]
    .filter(Boolean);
  const figure = (n, attrs = {}) => el("td", { ...attrs, class: ["num", n < 0 && "neg", n > 0 && "pos"] },
    n === undefined || n === null ? "" : signed(n));
  const grid = el("table", { class: "data results" },
    el("caption", {}, "How the hand ended"),
    el("thead", {}, el("tr", {}, heads.map((h, i) =>
      el("th", { scope: "col", class: i === 1 || i >= 4 ? "num" : null }, h)))),
    el("tbody", {}, rows.map((r, i) => {
      const first = i === 0 || rows[i - 1].seat !== r.seat;
      const span = rows.filter((o) => o.seat === r.seat).length;
      return el("tr", {},
        el("td", {}, seatTitle(table, r.seat), r.banker ? " · bank" : "", bets.has(r) ? ` · bet ${bets.get(r)}` : ""),
        el("td", { class: "num" }, r.stake === undefined || r.index < 0 ? "—" : String(r.stake)),
        el("td", {}, r.total_display ?? (r.conceded ? "conceded" : "—")),
        el("td", {}, r.outcome || (r.uncalled ? "not called" : "—")),
        figure(award(r)),
        changes && first ? figure(paidOf(r.seat), span > 1 ? { rowspan: span } : {}) : null);
    })));
  return el("div", {}, el("div", { class: "table-wrap" }, grid), changes ? shortfallNote(table, seats, due, paidOf) : null);
}

// Where a seat was paid other than the rules award: who came up short, by how much, and who was
// paid less for it; null when every seat was paid in full.
function shortfallNote(table, seats, due, paidOf) {
  const bank = table.view.banker;
  const name = (seat) => seat === bank ? `the ${table.game === "casino-pirate" ? "meneur" : "bank"}, ${seatRef(table, seat)},`
    : seatRef(table, seat);
  const short = seats.filter((s) => paidOf(s) !== null && paidOf(s) > due.get(s));
  const less = seats.filter((s) => paidOf(s) !== null && paidOf(s) < due.get(s));
  if (!short.length && !less.length) return null;
  const said = short.map((s) => `${capital(name(s))} came up short by ${money(paidOf(s) - due.get(s))}:`
    + ` owed ${money(-due.get(s))}, could pay only ${money(-paidOf(s))}.`);
  if (less.length) {
    said.push(`Paid less than the rules award: ${less.map((s) =>
      `${name(s)} ${signed(paidOf(s))} instead of ${signed(due.get(s))}`).join("; ")}.`);
  }
  return el("p", { class: "notice shortfall" }, el("strong", {}, "Not paid in full. "), said.join(" "));
}

function sevenHalf(table) {
  const v = table.view;
  const facts = [`Phase: ${v.phase.name}`, `${v.cards_left} cards left`];
  if (v.stake) facts.push(`Announced stake ${v.stake}`);
  if (v.next_banker !== null && v.next_banker !== undefined) facts.push(`Next bank: ${seatRef(table, v.next_banker)}`);
  const bets = betNumbers(v.hands);
  return [
    el("p", { class: "felt-facts" }, facts.join(" · ")),
    el("div", { class: "hands" }, sevenHalfHand(table, v.bank, { banker: true }),
      v.hands.map((h) => sevenHalfHand(table, h, { bet: bets.get(h) }))),
    sevenHalfResults(table),
  ];
}

// --- Pirate pairs -----------------------------------------------------------------------------
function piratePairs(table) {
  const v = table.view;
  const facts = [`Phase: ${v.phase.name}`, `${v.pile_count} cards in the pile`, `Pot ${v.pot}`];
  if (v.phase.winner !== undefined) facts.push(`Winner: ${seatRef(table, v.phase.winner)}`);
  return [
    el("p", { class: "felt-facts" }, facts.join(" · ")),
    el("div", { class: "hands" }, v.players.map((p) => {
      const title = seatTitle(table, p.seat);
      const turn = v.phase.turn === p.seat;
      return el("section", { class: ["hand-box", turn && "to-act", p.seat === table.you && "yours", !p.in && "gone"],
        "aria-label": title },
      el("h3", {}, title, p.in ? null : el("span", { class: "badge over" }, "out"),
        turn ? el("span", { class: "badge playing" }, "to act") : null,
        p.has_chosen ? el("span", { class: "badge ok" }, "has chosen") : null),
      el("p", { class: "help" }, "Row (face up)"), cards(table.game, p.row),
      el("p", { class: "help" }, p.hand ? "Hand" : `Hand: ${p.hand_count} cards`),
      p.hand ? cards(table.game, p.hand) : el("div", { class: "cards" }, backs(p.hand_count)),
      p.chosen ? el("p", { class: "help" }, "Opening card chosen: ", drawCard(table.game, p.chosen)) : null);
    })),
    v.discards.length ? el("div", {}, el("p", { class: "help" }, "Discards"), cards(table.game, v.discards)) : null,
  ];
}

// --- Cassino ----------------------------------------------------------------------------------
export function cassinoItem(table, id) {
  const item = table.view.table.find((i) => i.id === id);
  if (!item || item.kind === "card") return cardName(table.game, id);
  return `build of ${item.value} (${item.cards.map((c) => cardName(table.game, c)).join(", ")})`;
}

function cassino(table) {
  const v = table.view;
  const facts = [`Round ${v.round}`, `Phase: ${v.phase.name.replace("_", " ")}`, `${v.stock.count} cards in the stock`,
    `Game to ${v.target}`];
  if (v.dealer !== null) facts.push(`Dealer: ${seatRef(table, v.dealer)}`);
  const won = v.phase.name === "round_over" ? v.phase.winning_seats || [] : [];
  if (won.length) facts.push(`${won.length > 1 ? "Winners" : "Winner"}: ${won.map((s) => seatRef(table, s)).join(" and ")}`);
  const items = v.table.map((i) => i.kind === "card" ? drawCard(table.game, i.id)
    : el("span", { class: "build", role: "group",
      "aria-label": `build of ${i.value}, owned by ${seatRef(table, i.owner)}${i.reserved ? ", reserved" : ""}` },
    el("span", { class: "build-label" }, `build ${i.value} · ${seatRef(table, i.owner)}`),
    i.cards.map((c) => drawCard(table.game, c))));
  return [
    el("p", { class: "felt-facts" }, facts.join(" · ")),
    el("section", { class: "hand-box wide", "aria-label": "On the table" },
      el("h3", {}, "On the table"),
      el("div", { class: "cards" }, items.length ? items : el("span", { class: "muted" }, "nothing"))),
    el("div", { class: "hands" }, v.hands.map((h) => {
      const title = seatTitle(table, h.seat);
      const turn = v.phase.to_move === h.seat;
      const got = v.captured.find((c) => c.seat === h.seat);
      return el("section", { class: ["hand-box", turn && "to-act", h.seat === table.you && "yours"], "aria-label": title },
        el("h3", {}, title, turn ? el("span", { class: "badge playing" }, "to act") : null),
        h.cards ? cards(table.game, h.cards) : el("div", { class: "cards" }, backs(h.count)),
        el("p", { class: "hand-facts" },
          el("span", {}, `Score ${v.scores[h.seat] ?? 0}`),
          got ? el("span", {}, `Captured ${got.count}`) : null,
          got && got.sweeps ? el("span", {}, `Sweeps ${got.sweeps}`) : null));
    })),
    v.round_points.length ? el("div", { class: "table-wrap" }, el("table", { class: "data results" },
      el("caption", {}, "Points of the round"),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Side"),
        ...Object.keys(v.round_points[0]).map((k) => el("th", { scope: "col", class: "num" }, k.replaceAll("_", " "))))),
      el("tbody", {}, v.round_points.map((p, side) => el("tr", {}, el("td", {}, sideName(table, side)),
        ...Object.values(p).map((n) => el("td", { class: "num" }, n))))))) : null,
  ];
}

// A Cassino side (its scores): a seat, or with four players the team of two seats.
function sideName(table, side) {
  const seats = table.view.teams ? table.view.teams[side] || [side] : [side];
  const named = seats.map((s) => seatRef(table, s)).join(" and ");
  return named.charAt(0).toUpperCase() + named.slice(1);
}

const VIEWS = { "sette-e-mezzo": sevenHalf, "siete-y-media": sevenHalf, "casino-pirate": sevenHalf,
  "pirate-pairs": piratePairs, cassino };

// The hand in play (or the last one), as the table's view shows it.
export function handView(table) {
  if (!table.view && table.hand) {
    return [el("p", {}, table.status === "over" ? "The table is over and its cards have left it. Its last hand: "
      : "Its cards have left the table: ",
      el("a", { href: `/hands/${encodeURIComponent(table.hand.id)}`}, `see hand #${table.hand.number}`), ".")];
  }
  if (!table.view) return [el("p", { class: "muted" }, "No hand has been dealt at this table yet.")];
  return (VIEWS[table.game] || (() => [el("pre", {}, JSON.stringify(table.view, null, 2))]))(table);
}

// --- whose turn -------------------------------------------------------------------------------
// {seat, waiting_for, role} of the seat to act in `view` (seat null when every seat is to act,
// as when Pirate pairs' players choose their opening cards), or null.
export function turnOf(game, view) {
  if (!view) return null;
  if (view.hands && view.bank) return view.turn || null;
  if (game === "cassino") {
    return view.phase.name === "playing" ? { seat: view.phase.to_move, waiting_for: "play", role: "player" } : null;
  }
  if (view.phase.name === "choosing") return { seat: null, waiting_for: "choose", role: "player" };
  return view.phase.name === "playing" ? { seat: view.phase.turn, waiting_for: "play", role: "player" } : null;
}

// --- money ------------------------------------------------------------------------------------
const REASONS = { pot_won: "pot won", buy_in: "buy-in", cash_out: "cash-out" };

// A ledger account in words: `seat:<table>:<player>` is that player's seat, `escrow:<table>:<hand>`
// the hand's escrow, `pot:<table>:pot` the table's pot. `players` (the hand's seats, each with
// his name) names a player who has left the table since, as the seats name him: "seat 1 (Ann,
// you)", `you` being the viewer's player id.
export function accountName(table, account, players = [], you = null) {
  const [kind, , who] = String(account).split(":");
  if (kind === "seat") {
    const s = table.seats.find((x) => x.player_id === who);
    if (s) return seatRef(table, s.seat);
    const was = players.find((x) => x.player_id === who);
    if (was) {
      const said = [was.name === null || was.name === undefined ? "erased" : isolate(was.name),
        was.player_id === you ? "you" : null].filter(Boolean);
      return `seat ${seatNumber(table, was.seat)} (${said.join(", ")})`;
    }
    return `the seat of ${who}`;
  }
  if (kind === "escrow") return "escrow";
  if (kind === "pot") return "the pot";
  if (kind === "wallet") return `wallet ${who || ""}`.trim();
  return account;
}

export function postingText(table, p, players = [], you = null) {
  return `${accountName(table, p.from, players, you)} → ${accountName(table, p.to, players, you)}:` +
    ` ${money(p.amount)} (${REASONS[p.reason] || p.reason})`;
}

const SEVENHALF = new Set(["sette-e-mezzo", "siete-y-media", "casino-pirate"]);

// The treasure of the hand in words, from the view: the stakes, the escrow or pot, and what the
// settlement paid. `escrow` (when the caller counted the hand's postings) wins over the one
// told from the stakes; `settlement` is GET /v1/hands/{id}'s postings, null while unknown, and
// `players` its seats (who is named in them, seated or not).
export function moneyView(table, { escrow = null, settlement = null, settled = false, players = [], you = null } = {}) {
  const v = table.view;
  const o = table.options || (v && v.options) || {};
  const rows = [];
  const row = (term, value, key) => rows.push(el("dt", {}, term), el("dd", { dataset: { money: key } }, value));
  if (SEVENHALF.has(table.game)) {
    if (table.game === "casino-pirate" && o.buy_in !== undefined) row("Buy-in", money(o.buy_in), "buy-in");
    if (o.min_bet !== undefined) row("Bets", `${money(o.min_bet)} to ${money(o.max_bet)} a hand`, "limits");
    if (v) {
      if (v.stake) row("Announced stake", money(v.stake), "announced");
      const staked = v.hands.reduce((n, h) => n + (h.stake || 0), 0);
      row("Staked this hand", `${money(staked)}${v.hands.length ? `: ${v.hands.filter((h) => h.stake)
        .map((h) => `${money(h.stake)} on ${seatRef(table, h.seat)}`).join(", ") || "no bet yet"}` : ""}`, "staked");
      const held = escrow !== null ? escrow : settled ? 0
        : v.hands.filter((h) => h.status !== "bust").reduce((n, h) => n + (h.stake || 0), 0);
      row("In escrow", `${money(held)}${held && !settled ? " (paid out at the settlement)" : ""}`, "escrow");
    }
  } else if (v) {
    row("Stake", `${money(v.stake)} each${table.game === "cassino" ? ", paid into the pot when the game opens" : ""}`,
      "stake");
    row("Pot", `${money(v.pot)}${table.game === "cassino" ? " (to the side that wins the game)" : " (to the last pirate in)"}`,
      "pot");
  } else if (o.stake !== undefined) {
    row("Stake", `${money(o.stake)} each`, "stake");
  }
  if (settlement) {
    row("The settlement paid", settlement.length
      ? el("ul", { class: "postings" }, settlement.map((p) => el("li", {}, postingText(table, p, players, you))))
      : "nothing", "settlement");
  } else if (v) {
    row("The settlement paid", settled ? "—" : "not yet: the hand is not settled", "settlement");
  }
  if (!rows.length) return null;
  return el("dl", { class: "kv money", "aria-label": "Money" }, rows);
}

// --- seats ------------------------------------------------------------------------------------
// The seats and the treasure on each. `table.seats` holds {seat, player_id, balance?};
// `moved` (account → signed amount) adds what the hand moved so far; `player(seat)` draws the
// player cell (a link to his page by default).
export function seatsView(table, { moved = null, player = null } = {}) {
  const v = table.view;
  const banker = v && typeof v.banker === "number" ? v.banker : null;
  const dealer = v && typeof v.dealer === "number" ? v.dealer : null;
  const turn = table.turn && table.turn.seat;
  const balanceOf = (s) => s.balance !== undefined ? s.balance
    : v && v.balances && v.balances[s.seat] !== undefined ? v.balances[s.seat] : null;
  const showBalance = table.seats.some((s) => balanceOf(s) !== null);
  // A table's seats keep their chair while their player sits (a hand's seats are numbered in
  // its order): the chair is what a person goes by.
  const chairs = table.seats.some((s) => typeof s.chair === "number");
  const first = "Seat";
  const heads = [first, "Player", "Role", showBalance && "Balance", moved && "This hand"].filter(Boolean);
  return el("div", { class: "table-wrap" }, el("table", { class: "data seats stack" },
    el("caption", {}, "Seats and the treasure on each"),
    el("thead", {}, el("tr", {}, heads.map((h) => el("th", { scope: "col",
      class: h === "Balance" || h === "This hand" ? "num" : null }, h)))),
    el("tbody", {}, table.seats.length ? table.seats.map((s) => {
      const net = moved ? moved[s.player_id] || 0 : 0;
      return el("tr", { class: [s.seat === table.you && "yours", turn === s.seat && "to-act"],
        dataset: chairs ? { seat: s.seat, chair: s.chair } : { seat: s.seat } },
        el("th", { scope: "row", "data-label": first }, String(seatNumber(table, s.seat))),
        el("td", { "data-label": "Player" }, player ? player(s)
          : el("a", { href: `/players/${encodeURIComponent(s.player_id)}`, class: "mono" }, s.player_id),
        s.seat === table.you && !player ? " (you)" : ""),
        el("td", { "data-label": "Role" }, s.seat === banker ? (table.game === "casino-pirate" ? "meneur" : "banker")
          : s.seat === dealer ? "dealer" : "player"),
        showBalance ? el("td", { class: "num balance", "data-label": "Balance" },
          balanceOf(s) === null ? "—" : money(balanceOf(s))) : null,
        moved ? el("td", { class: ["num", net < 0 && "neg", net > 0 && "pos"], "data-label": "This hand" },
          net > 0 ? `+${money(net)}` : money(net)) : null);
    })
      : el("tr", {}, el("td", { colspan: heads.length, class: "muted" }, table.status === "over"
        ? "The seats were cashed out when the table ended." : "Nobody is seated yet.")))));
}
