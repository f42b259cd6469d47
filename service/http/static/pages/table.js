// `/tables/{id}`: a table as the signed-in token may see it, live over its stream. Seats and
// balances, the hand in play (table_views.js), whose turn it is with its deadline counting
// down, and for a seated player his `legal_actions` as controls, sent with the table's version
// as If-Match. Everything shown comes from the /v1 API called with the token, so from its
// redaction.
import { SIGNED_OUT, api, el, fill, follow, gameTitle, gameTitles, header, money, page, pathId, resendHint,
  sending, serverNow, showProblem, signInForm, unreachable, writer } from "../banco.js";
import { cardName, cassinoItem, drawCard, handView, moneyView, seatsView, variantText }
  from "./table_views.js";
import { playerCell, seatName, seatNumber, seatOffer } from "./seats.js";
import { endingView } from "./table_end.js";

const tableId = pathId();
let who = null;
let shown = null; // the table on screen
let busy = false; // a request of ours is in flight
let newest = 0; // the newest version the stream told of
let refreshTimer = null;
let live = null;
let titles = {}; // the games' display names (GET /v1/games)

const parts = {};

// --- labels for actions -----------------------------------------------------------------------
const WAITING = { announce: "to announce the stake", bet: "to bet", choose: "to choose", play: "to play",
  bank: "to play", answer: "to answer the call" };

function seatLabel(seat) {
  return seat === shown.you ? "yourself" : seatName(shown, seat);
}

const PLAIN = { bet: "Bet", announce: "Announce the stake", hit: "Hit (draw a card)", stand: "Stand", sit_out: "Sit this hand out", split: "Split",
  concede: "Concede", volunteer: "Volunteer to be the next meneur", reveal: "Reveal", draw: "Draw a card" };

// [accessible label, cards to draw in the control]
function describe(action) {
  const g = shown.game;
  const name = (id) => cardName(g, id);
  switch (action.type) {
    case "declare": return [`Declare the value of ${name(action.card)}`, [action.card]];
    case "hide": return [`Hide ${name(action.card)}`, [action.card]];
    case "call": return [`Call ${seatLabel(action.target)}`, []];
    case "choose": return [`Choose ${name(action.card)} as opening card`, [action.card]];
    case "attack": return [`Attack ${seatLabel(action.target)} with ${name(action.card)}`, [action.card]];
    case "challenge": return [`Challenge ${seatLabel(action.target)}`, []];
    case "accuse": return [`Accuse ${seatLabel(action.target)}`, []];
    case "trail": return [`Trail ${name(action.card)}`, [action.card]];
    case "capture":
      return [`Capture ${action.take.map((i) => cassinoItem(shown, i)).join(" and ")} with ${name(action.card)}`,
        [action.card]];
    case "build": case "reserve":
      return [`${action.type === "build" ? "Build" : "Reserve"} ${action.value} with ${name(action.card)} on ` +
        action.onto.map((i) => cassinoItem(shown, i)).join(" and "), [action.card]];
    case "extend":
      return [`Extend the ${cassinoItem(shown, action.build)} to ${action.value} with ${name(action.card)}`,
        [action.card]];
    default: return [PLAIN[action.type] || action.type.replaceAll("_", " "), []];
  }
}

const isRange = (v) => v && typeof v === "object" && !Array.isArray(v) && "min" in v && "max" in v;

function numberField(key, label, range, { optional = false } = {}) {
  const id = `act-${key}`;
  return el("span", { class: "field" },
    el("label", { for: id }, `${label} (${range.min}–${range.max}${optional ? ", optional" : ""})`),
    el("input", { id, name: key, type: "number", inputmode: "numeric", min: range.min, max: range.max, step: 1,
      value: optional ? null : range.min, required: !optional, dataset: { key } }));
}

function seedField(id) {
  return el("span", { class: "field" },
    el("label", { for: id }, "Seed (up to 200 characters, optional)"),
    el("input", { id, name: id, type: "text", maxlength: 200, autocomplete: "off", spellcheck: "false",
      "aria-describedby": `${id}-help` }),
    el("span", { class: "help", id: `${id}-help` },
      "Your own text, mixed into this hand's shuffle; shown to the table: put nothing personal in it."));
}

// One offered action as a control: a button, or a small form when it leaves numbers to choose.
function control(action, n) {
  const [label, shownCards] = describe(action);
  const key = `${n}-${JSON.stringify(action)}`;
  const ranges = Object.entries(action).filter(([, v]) => isRange(v));
  const declares = isRange(action.declare) ? [] : Object.entries(action.declare || {});
  // The button's name is its own words ("Trail 5 of clubs"), which name its card: the card drawn
  // beside them only shows it, hidden from assistive technology (WCAG 2.5.3, label in name).
  const button = (text, attrs = {}) => el("button", { type: attrs.type || "button",
    dataset: { key: `${key}-go` }, ...attrs }, text, shownCards.map((c) => {
    const drawn = drawCard(shown.game, c);
    drawn.setAttribute("aria-hidden", "true");
    return drawn;
  }));
  if (!ranges.length && !declares.length) {
    return el("li", {}, button(label, { onclick: () => act(action) }));
  }
  const fields = ranges.map(([k, r]) => numberField(`${key}-${k}`,
    k === "amount" ? (action.type === "announce" ? "Stake" : "Amount") : `Value of ${cardName(shown.game, action.card)}`, r));
  const extra = declares.map(([c, r]) => numberField(`${key}-d-${c}`, `Value of ${cardName(shown.game, c)}`, r,
    { optional: true }));
  // Sette e mezzo's bets come before the deal, so a bet may add the player's own text to this
  // hand's shuffle (RULES.md, "Fair decks"), sent only when filled.
  const seeded = shown.game === "sette-e-mezzo" && action.type === "bet";
  if (seeded) extra.push(seedField(`act-${key}-seed`));
  const form = el("form", { class: "act-form", "aria-label": label }, fields, extra,
    button(label, { type: "submit" }));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!form.reportValidity()) return;
    const sent = { ...action };
    for (const [k] of ranges) sent[k] = Number(form.elements[`act-${key}-${k}`].value);
    if (declares.length) {
      sent.declare = {};
      for (const [c] of declares) {
        const v = form.elements[`act-${key}-d-${c}`].value;
        if (v !== "") sent.declare[c] = Number(v);
      }
    }
    if (seeded && form.elements[`act-${key}-seed`].value !== "") sent.seed = form.elements[`act-${key}-seed`].value;
    act(sent);
  });
  return el("li", {}, form);
}

// --- talking to the API -----------------------------------------------------------------------
const RACE = "The table moved on before your move reached it (another player acted or a turn timed out), " +
  "so nothing was played. This is the table as it is now: choose again.";

const RACE_AFTER_LOST = "The table moved on before this move reached it, so this move was not " +
  "played; your move before it, whose answer was lost, may have been. This is the table as it is now: choose again.";

// A move sent again after its answer was lost, answered as the first time: it had been played.
function showPlayedBefore() {
  parts.problem.hidden = false;
  parts.problem.setAttribute("role", "status");
  parts.problem.dataset.code = "replayed";
  parts.problem.replaceChildren(el("p", { class: "notice" }, el("strong", {}, "Played once: "),
    "your move had reached Banco before its answer was lost, and was played then, not again. " +
    "This is the table after it."));
  problemAt = shown ? shown.version : 0;
}

let focusWas = null; // the control a keyboard user was on when his request left (disabled since)

// `call` is a writer(): a write whose answer was lost, sent again as it was, goes with the same
// Idempotency-Key, so Banco does it once and answers as it did the first time.
async function send(path, options, call, what = "Sending your move…") {
  if (parts.actions.contains(document.activeElement)) focusWas = document.activeElement.dataset.key || "";
  busy = true;
  setDisabled(true);
  sending(parts.actions, parts.sending, true, what);
  showProblem(parts.problem, null);
  problemAt = null;
  try {
    const table = await call(path, options);
    reached();
    render(table);
    if (call === moves && moves.replayed) showPlayedBefore();
    if (call === moves) lostMove = false;
  } catch (e) {
    if (e.status === 401) return; // signed out: the page says so (SIGNED_OUT)
    const earlier = call === moves && lostMove;
    if (call === moves) lostMove = Boolean(e.resendable);
    if (e.status === 409 || e.status === 412) {
      // Refused for the table's state: the page shows the table as it is now, then why. Only a
      // stale version is a race lost; any other refusal (alone at the table, a full table…) is
      // said in the API's own words.
      await refresh();
      if (isRace(e)) showRace(e, earlier);
      else showProblemNow(e);
    } else {
      showConnection(e);
      if (e.resendable) parts.problem.append(resendHint());
    }
  } finally {
    busy = false;
    sending(parts.actions, parts.sending, false);
    setDisabled(false);
    if (focusWas !== null) restoreFocus(focusWas);
    focusWas = null;
    // What the stream told of while the request was out, `changed` left for now: read it.
    if (shown && shown.version < newest) changed({ version: newest });
  }
}

// A move whose answer was lost, sent again at the same version, is the same move: Banco plays it
// once and answers as it did (with If-Match alone, the second was refused as stale, and the page
// said that nothing was played). Another move, or one at another version, takes a new key.
const moves = writer();
// A move got no answer (Banco out of reach, the answer lost, a 5xx): it may have been played, so
// a race lost by the next one does not mean that nothing of the player's was.
let lostMove = false;

function act(action) {
  return send(`/v1/tables/${encodeURIComponent(tableId)}/actions`,
    { method: "POST", json: action, headers: { "If-Match": `"${shown.version}"` } }, moves);
}

// A deal whose answer was lost, sent again, is the same deal: one hand, not two.
const deals = writer();

function deal() {
  return send(`/v1/tables/${encodeURIComponent(tableId)}/hands`, { method: "POST" }, deals, "Dealing…");
}

// A move decided on a version of the table that is no longer its latest: 412 (`stale_version`,
// `precondition_failed`), or 409 `version_conflict` (another write won the same version).
function isRace(e) {
  return e.status === 412 || e.code === "version_conflict";
}

// A problem is said until the table moves on from the version it was said at (`problemAt`): the
// table a refusal or a race was about is then gone, and so is what was said of it.
let problemAt = null;

function showProblemNow(problem) {
  showProblem(parts.problem, problem);
  problemAt = shown ? shown.version : 0;
}

// A problem shown under the turn. One of reaching Banco at all ("unreachable": offline, or a
// restart) is mended by the next answer, of the stream or of a read: until then the table is read
// again every few seconds (and at once when the browser is back online), so the message goes
// once Banco answers, not at the table's next change.
let recheck = null;

function showConnection(problem) {
  // A write whose answer was lost stays said to be safe to send again while Banco is still out
  // of reach: the reads that look for it every few seconds fail the same way.
  const resend = unreachable(problem) && parts.problem.querySelector("[data-resend]") !== null;
  showProblemNow(problem);
  if (resend) parts.problem.append(resendHint());
  if (unreachable(problem) && !recheck) {
    recheck = setTimeout(async () => {
      recheck = null;
      await refresh();
    }, 3000);
  }
}

function reached() {
  if (parts.problem.dataset.code === "unreachable") showProblem(parts.problem, null);
  clearTimeout(recheck);
  recheck = null;
}

addEventListener("online", () => {
  if (parts.problem && parts.problem.dataset.code === "unreachable") refresh();
});

// `earlier`: a move sent before this one got no answer, and may be what moved the table on.
function showRace(e, earlier = false) {
  parts.problem.hidden = false;
  parts.problem.setAttribute("role", "alert");
  parts.problem.dataset.code = e.code || "";
  parts.problem.replaceChildren(el("p", { class: "problem race" }, el("strong", {}, "Too late: "),
    earlier ? RACE_AFTER_LOST : RACE,
    " ", el("span", { class: "muted" }, `(${e.status} `, el("code", {}, e.code), ")")));
  // Said of the table the refresh showed, or of the version the API named, whichever is newer
  // (a replica read may lag the API's answer).
  problemAt = Math.max(shown ? shown.version : 0, Number.isInteger(e.body?.version) ? e.body.version : 0);
}

function setDisabled(on) {
  for (const c of parts.actions.querySelectorAll("button, input")) c.disabled = on;
}

// Whether the table could be read.
async function refresh() {
  if (!live) return false; // signed out
  try {
    const table = await api(`/v1/tables/${encodeURIComponent(tableId)}`);
    reached();
    render(table);
    return true;
  } catch (e) {
    if (e.status !== 401) showConnection(e);
    return false;
  }
}

// An event told of a change: read the table once the stream's chunk is read (a move's events
// come together, and the table after them when it is your turn), one read at a time.
function changed(event, delay = 0) {
  newest = Math.max(newest, event.version || 0);
  if (refreshTimer || busy) return;
  refreshTimer = setTimeout(async () => {
    const read = !shown || shown.version < newest ? await refresh() : true;
    refreshTimer = null;
    // Still behind after a read that worked (news came during it, or a replica lags): again,
    // soon. A read that failed waits for the stream's next news.
    if (read && shown && shown.version < newest) changed({ version: newest }, 100);
  }, delay);
}

// --- drawing ----------------------------------------------------------------------------------
function countdown() {
  const t = parts.clock;
  const deadline = shown && shown.turn && shown.turn.deadline;
  if (!deadline) {
    t.hidden = true;
    return;
  }
  t.hidden = false;
  // Counted on Banco's clock, which set the deadline: a device clock off by 45 s said the time
  // was up 45 s early, or left time after the timeout had played.
  const left = Math.max(0, Math.ceil((Date.parse(deadline) - serverNow()) / 1000));
  const text = left > 0 ? `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`
    : "time is up: the timeout rule plays";
  t.replaceChildren(el("time", { datetime: deadline }, text));
  t.classList.toggle("urgent", left <= 10);
}

function turnText(table) {
  if (table.status === "over") return "The table is over.";
  if (table.status === "settling") return "The hand is over; it is being settled.";
  if (!table.turn) {
    if (table.status !== "open") return "Nobody is to act.";
    return table.game === "cassino" && table.hand
      ? "Between rounds: a seated player deals the next; the game goes on until a side wins."
      : "Between hands: a seated player deals the next.";
  }
  const what = WAITING[table.turn.waiting_for] || `to ${table.turn.waiting_for}`;
  const role = table.turn.role === "banker" ? (table.game === "casino-pirate" ? " (meneur)" : " (banker)") : "";
  if (table.turn.seat === table.you) return `Your turn${role}: ${what}.`;
  const name = seatName(table, table.turn.seat);
  if (table.legal_actions.length) return `${name}${role} is ${what}; you may act too.`;
  return `${name}${role} is ${what}.`;
}

// The seats, each player by name (his id on hover), saying which is you.
function seatsTable(table) {
  return seatsView(table, { player: (s) => playerCell(table, s, who) });
}

// What the settlement of the hand on screen paid (GET /v1/hands/{id}), read once it is settled:
// {postings, seats} (its seats name who was paid, should he have left the table since).
const settlements = new Map();

function settlementOf(table) {
  const hand = table.hand;
  if (!hand || hand.status !== "settled") return null;
  if (settlements.has(hand.id)) return settlements.get(hand.id);
  settlements.set(hand.id, null);
  api(`/v1/hands/${encodeURIComponent(hand.id)}`).then((h) => {
    settlements.set(hand.id, { postings: h.postings || [], seats: h.seats || [] });
    if (shown && shown.hand && shown.hand.id === hand.id) {
      drawMoney(shown);
      drawFacts(shown);  // the hand's link, for a player dealt in it
    }
  }).catch(() => settlements.delete(hand.id));
  return null;
}

function drawMoney(table) {
  const settled = !!(table.hand && table.hand.status === "settled");
  const paid = settlementOf(table);
  const view = moneyView(table, { settlement: paid && paid.postings, players: paid ? paid.seats : [], settled,
    you: who && who.role === "player" ? who.id : null });
  parts.money.hidden = !view;
  fill(parts.money, el("h2", { id: "money-heading" }, "Money"), view);
}

// Why this seated player is not dealt in, when his seat cannot pay the least a hand of the 7½
// family asks (a seat not dealt in is left out of the hand's order: `min_bet`, or in Siete y
// media the stake the banker announced), and what he can do: the API tops no seat up, so he
// leaves between hands (the seat's treasure goes back to his wallet) and sits down again.
const SEVENHALF = new Set(["sette-e-mezzo", "siete-y-media", "casino-pirate"]);

function shortOfTreasure(table) {
  if (table.you === null || !SEVENHALF.has(table.game) || !["open", "playing"].includes(table.status)) return null;
  const mine = table.seats.find((s) => s.seat === table.you);
  const v = table.status === "playing" ? table.view : null; // the hand in play, if any
  const announced = v && table.game === "siete-y-media" && v.stake ? v.stake : null;
  const least = announced ?? table.options.min_bet;
  if (!mine || typeof mine.balance !== "number" || typeof least !== "number" || mine.balance >= least) return null;
  if (v && (v.bank.seat === table.you || v.hands.some((h) => h.seat === table.you && h.status !== "out"))) return null;
  return el("p", { class: "notice", id: "not-dealt-in" },
    `Your seat holds ${money(mine.balance)}, less than the ${announced ? "stake announced" : "least bet"}`
    + ` (${money(least)}): ${v ? "you are not dealt in this hand" : "the next hand will not deal you in"}. `
    + "A seat cannot be topped up: between hands, leave the table (what your seat holds goes back to your wallet)"
    + " and sit down again with a new buy-in.");
}

function actionsPanel(table) {
  const short = shortOfTreasure(table);
  const items = table.legal_actions.map((a, n) => control(a, n));
  const canDeal = table.status === "open" && (table.you !== null || (who && who.role === "operator"));
  if (canDeal) {
    items.push(el("li", {}, el("button", { type: "button", class: "deal", dataset: { key: "deal" }, onclick: deal },
      table.hand ? "Deal the next hand" : "Deal the first hand")));
  }
  if (!items.length) {
    const why = table.status === "over" ? "The table is over: nothing more to play." : table.you === null ? (who && who.role !== "player" ? "You watch this table; only its players act."
      : "You have no seat at this table.") : "Nothing for you to do now.";
    return [el("h2", { id: "your-move" }, "Your move"), short || el("p", { class: "muted" }, why)];
  }
  return [el("h2", { id: "your-move" }, "Your move"), short,
    el("ul", { class: "action-list", "aria-labelledby": "your-move" }, items)];
}

// Whether the hand's page shows its replay to this token: auditors at once; once it is
// settled (before, the page would only say it is not yet), the operator and the players dealt
// in it (known from its seats, read with its settlement), not a player who was not (his link
// led to a 403).
function replayable(hand) {
  if (who && who.role === "auditor") return true;
  if (hand.status !== "settled") return false;
  if (!who || who.role !== "player") return true;
  const paid = settlements.get(hand.id);
  return !!paid && paid.seats.some((s) => s.player_id === who.id);
}

function drawFacts(table) {
  const hand = table.hand;
  fill(parts.facts,
    el("span", { class: ["badge", table.status] }, table.status),
    table.variant ? el("span", { title: `variant ${table.variant}` }, `Variant: ${variantText(table.variant)}`) : null,
    hand ? el("span", {}, "Hand ", replayable(hand) ? el("a", { href: `/hands/${encodeURIComponent(hand.id)}` }, `#${hand.number}`)
      : `#${hand.number}`, ` (${hand.status})`) : el("span", {}, "No hand yet"),
    el("span", {}, "Version ", el("span", { id: "table-version", class: "mono" }, String(table.version))),
    table.you !== null ? el("span", {}, `You sit in seat ${seatNumber(table, table.you)}`) : null);
}

function render(table) {
  // A slower read must not take the place of a newer table.
  if (shown && table.version < shown.version) return;
  const focused = parts.actions.contains(document.activeElement) ? document.activeElement.dataset.key || "" : null;
  const values = {};
  for (const input of parts.actions.querySelectorAll("input[data-key]")) values[input.dataset.key] = input.value;
  shown = table;
  newest = Math.max(newest, table.version);
  if (problemAt !== null && table.version > problemAt) {
    showProblem(parts.problem, null);
    problemAt = null;
  }

  document.title = `${gameTitle(titles, table.game)} ${table.id} · Banco`;
  parts.title.textContent = `${gameTitle(titles, table.game)} · table `;
  parts.title.append(el("span", { class: "mono" }, table.id));
  const hand = table.hand;
  drawFacts(table);
  parts.turnText.textContent = turnText(table);
  // An over table says how it ended (read once: nothing changes an over table's ending).
  parts.ending.hidden = table.status !== "over";
  if (table.status === "over" && parts.endingOf !== table.id) {
    parts.endingOf = table.id;
    fill(parts.ending, endingView(table, who));
  }
  parts.turn.classList.toggle("yours", !!(table.turn && table.turn.seat === table.you));
  countdown();
  fill(parts.actions, actionsPanel(table));
  fill(parts.felt, el("h2", { id: "hand-heading", class: "on-felt" },
    hand ? `Hand #${hand.number}` : "The hand"), handView(table));
  parts.seats.replaceChildren(el("h2", { id: "seats-heading" }, "Seats"), seatsTable(table));
  drawMoney(table);
  // The join / leave panel, rebuilt only when what it offers changes; another player sitting
  // down or leaving only updates it (what this player typed in it, and his focus, stay).
  const offerKey = `${table.status} ${table.you} ${table.game === "cassino" && !!table.hand}`;
  if (parts.offerKey !== offerKey) {
    parts.offerKey = offerKey;
    parts.offerPanel = seatOffer(table, who, seated);
    fill(parts.offer, parts.offerPanel && parts.offerPanel.node);
  } else if (parts.offerPanel) {
    parts.offerPanel.update(table);
  }

  for (const input of parts.actions.querySelectorAll("input[data-key]")) {
    if (values[input.dataset.key] !== undefined && values[input.dataset.key] !== "") input.value = values[input.dataset.key];
  }
  if (busy) setDisabled(true);
  if (focused !== null && !busy) restoreFocus(focused);
}

// This player sat down or left (seats.js): what became of his treasure is said, and stays said
// (in a live region, so a screen reader reads it too) until he next sits down or leaves; the table
// is read again, and focus goes where he goes on: after sitting down, to his first move (dealing
// the first hand, say); after leaving, to the panel that offers a seat again.
async function seated(news, sat) {
  fill(parts.seatNews, el("p", { class: "notice" }, news));
  await refresh();
  if (sat) restoreFocus("");
  else parts.offer.querySelector("#seat-offer")?.focus();
}

// Keyboard users keep their place: the same control, else the first of the new ones.
function restoreFocus(key) {
  const again = key && [...parts.actions.querySelectorAll("[data-key]")].find((n) => n.dataset.key === key);
  (again || parts.actions.querySelector("button, input") || parts.actions).focus();
}

async function start() {
  titles = await gameTitles();
  const main = page("Table");
  parts.title = main.querySelector("h1");
  parts.facts = el("p", { class: "table-facts" });
  parts.stream = el("p", { class: "help", id: "live", "aria-live": "polite" }, "Connecting…");
  parts.turnText = el("p", { class: "turn-text", id: "turn-text" });
  parts.clock = el("p", { class: "clock", role: "timer", "aria-label": "Time left for this turn", hidden: true });
  parts.turn = el("section", { class: "panel turn", "aria-live": "polite", "aria-label": "Whose turn" },
    parts.turnText, parts.clock);
  parts.problem = el("div", { class: "problem-box", hidden: true });
  parts.ending = el("div", { id: "table-end-slot", hidden: true });
  parts.endingOf = null;
  parts.sending = el("p", { class: "help sending", id: "sending", role: "status", hidden: true });
  parts.actions = el("section", { class: "panel actions-panel", "aria-labelledby": "your-move" });
  parts.felt = el("section", { class: "felt", "aria-labelledby": "hand-heading" });
  parts.seats = el("section", { "aria-labelledby": "seats-heading" });
  parts.money = el("section", { class: "panel money-panel", id: "money", "aria-labelledby": "money-heading" });
  parts.offer = el("div", { id: "seat-offer-slot" });
  parts.seatNews = el("div", { id: "seat-news", role: "status" });
  main.append(parts.facts, parts.stream, parts.turn, parts.ending, parts.problem, parts.sending, parts.actions, parts.seatNews, parts.offer,
    parts.felt, parts.money, parts.seats);
  parts.actions.tabIndex = -1;
  setInterval(countdown, 1000);

  live = follow(tableId, (t) => {
    parts.stream.textContent = "Live: this page follows the table as it changes.";
    reached();
    render(t);
  }, changed, {
    onProblem(problem) {
      if (problem === null) {
        parts.stream.textContent = "Live: this page follows the table as it changes.";
        reached();
      } else if (problem.status === 401) {
        // Signed out (SIGNED_OUT): the page says so.
      } else if (!shown) {
        showProblemNow(problem);
        parts.stream.textContent = "";
      } else if (problem.status >= 400 && problem.status < 500 && problem.status !== 429) {
        parts.stream.textContent = `Live updates stopped (${problem.detail || problem.message}): reload the page to try again.`;
      } else {
        parts.stream.textContent = `Live updates interrupted (${problem.detail || problem.message}); reconnecting…`;
      }
    },
  });
}

// The token stopped working while the page was open (revoked, or its player erased): a 401 means
// signed out. The stream stops, the controls that would act with the dead token go, and the page
// offers to sign in again.
addEventListener(SIGNED_OUT, () => {
  if (!live) return;
  live.stop();
  live = null;
  who = null;
  clearTimeout(refreshTimer);
  clearTimeout(recheck);
  refreshTimer = recheck = null;
  const main = page("Table");
  main.append(el("p", { role: "alert", class: "problem", id: "signed-out" },
    "Your token no longer works (it was revoked, or its player erased): you are signed out of this table. ",
    "Sign in again with a token that works to see it."),
  el("section", { class: "panel", "aria-labelledby": "signin" }, el("h2", { id: "signin" }, "Sign in"),
    signInForm((w) => {
      who = w;
      shown = null;
      parts.offerKey = null;
      start();
    })));
});

addEventListener("pagehide", () => live && live.stop());

who = await header();
if (who) {
  start();
} else {
  page("Table", el("p", {}, "Sign in to see this table as your token may: a player sees his own cards and plays his turns."),
    el("section", { class: "panel", "aria-labelledby": "signin" }, el("h2", { id: "signin" }, "Sign in"),
      signInForm((w) => {
        who = w;
        start();
      })));
}
