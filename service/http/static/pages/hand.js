// `/hands/<id>`: a hand step by step (GET /v1/hands/{id}/replay), each event with its cause and
// the state after it as this token may see it; its postings; the server's verification beside
// the deck checks made again in this browser from the seeds and the events alone; and all of it
// as a JSON file of evidence.
import { api, card, describeCard, el, gameTitle, gameTitles, header, mayReadWallet, page, pathId, saveBlob,
  showProblem, signInForm, signedOutShowsNothing, when } from "../banco.js";
import { checkHand } from "../deck_check.js";
import { handView, moneyView, seatsView, turnOf } from "./table_views.js";
import { playerCell, seatName, seatNumber } from "./seats.js";
import { available } from "../fair_deck.js";
import { disputesSection } from "./hand_disputes.js";

const id = pathId();
const DECKS = { "sette-e-mezzo": "french", cassino: "french", "siete-y-media": "spanish" };
// Bulky values shown folded: the whole deck, the options, the seeds.
const FOLDED = new Set(["deck", "pile", "options", "recomputed", "player_seeds", "results"]);

const isCard = (v) => v === null || (typeof v === "string" && !describeCard(v).label.startsWith("card "));
const looksLikeCards = (key, v) => Array.isArray(v) && v.length > 0 && v.every(isCard) &&
  v.some((c) => c !== null) || (Array.isArray(v) && v.length === 0 && /cards|hand|row|pile|deck|table|discards/.test(key));

// A value of an event or a state, readably: cards as cards, objects as key/value lists.
function show(value, key, game) {
  if (value === null || value === undefined) return el("span", { class: "muted" }, "—");
  if (key === "card" && typeof value === "string" && isCard(value)) {
    return card(value, { deck: DECKS[game] });
  }
  if (looksLikeCards(key, value)) {
    if (!value.length) return el("span", { class: "muted" }, "none");
    return el("span", { class: "cards" }, value.map((c) => card(c, { deck: DECKS[game] })));
  }
  if (Array.isArray(value)) {
    if (value.length && value.every((v) => v && typeof v === "object" && !Array.isArray(v))) return rows(value, game);
    if (value.every((v) => v === null || typeof v !== "object")) {
      return el("span", { class: "mono" }, value.length ? value.map((v) => JSON.stringify(v)).join(", ") : "[]");
    }
    return el("ol", { class: "kv-list" }, value.map((v) => el("li", {}, show(v, key, game))));
  }
  if (typeof value === "object") return kv(value, game);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number" && /(^at$|_at$|deadline)/.test(key) && value > 1e9) {
    // Engine clocks are epoch seconds: shown as a time, the number kept in the title.
    return el("span", { title: String(value) }, when(new Date(value * 1000).toISOString()));
  }
  return el("span", { class: typeof value === "number" ? "num" : "mono" }, String(value));
}

// A list of like objects (seats, hands, results) as a small table, one row each.
function rows(list, game) {
  const keys = [...new Set(list.flatMap((o) => Object.keys(o)))]
    .filter((k) => !(k.endsWith("_display") && k.slice(0, -8) in list[0]));
  return el("div", { class: "table-wrap nested" }, el("table", { class: "data compact" },
    el("thead", {}, el("tr", {}, keys.map((k) => el("th", { scope: "col" }, k)))),
    el("tbody", {}, list.map((o) => el("tr", {}, keys.map((k) => el("td", {},
      k in o ? show(typeof o[`${k}_display`] === "string" ? o[`${k}_display`] : o[k], k, game) : "")))))));
}

function kv(object, game) {
  const keys = Object.keys(object).filter((k) => !(k.endsWith("_display") && k.slice(0, -8) in object));
  if (!keys.length) return el("span", { class: "muted" }, "—");
  return el("dl", { class: "kv" }, keys.map((k) => {
    const shown = typeof object[`${k}_display`] === "string" ? object[`${k}_display`] : object[k];
    const value = show(shown, k, game);
    if (FOLDED.has(k) && object[k] && typeof object[k] === "object") {
      const n = Array.isArray(object[k]) ? ` (${object[k].length})` : "";
      return [el("dt", {}, k), el("dd", {}, el("details", {}, el("summary", {}, `show${n}`), value))];
    }
    return [el("dt", {}, k), el("dd", {}, value)];
  }));
}

// The seats of the hand as the pages number them (seats.js: from 1, in the hand's order, its
// line-up recording no chairs).
let lineup = { seats: [] };
let viewer = null; // the signed-in token's {role, id, scopes}: whose wallets the page may link

// What a step did, in a few words.
function summary(step) {
  const d = step.data;
  const seat = Number.isInteger(d.seat) ? `seat ${seatNumber(lineup, d.seat)}` : "";
  switch (step.type) {
    case "HandBegan": return `hand ${d.number}, ${d.seats.length} seats`;
    case "TreasurePosted": return `${d.amount} ${d.reason}`;
    case "HandSettled": return `${(d.postings || []).length} postings`;
    case "SeedRevealed": return d.server_seed ? "seed revealed" : "seed (auditors only)";
    case "DeadlineSet": return `${seat} to ${d.waiting_for}`.trim();
    default: return [seat, d.phase, d.type, d.card ? "" : d.count ? `${d.count} cards` : ""].filter(Boolean).join(" · ");
  }
}

// Who caused a step: a player of the hand by name (or "erased"), his id on hover, as the seats.
function actorLink(actor, seats) {
  if (!actor) return el("span", { class: "muted" }, "—");
  const [role, who] = actor.split(":");
  const seat = role === "player" ? seats.find((s) => s.player_id === who) : null;
  if (seat) return el("span", {}, "player ", playerCell({ you: null }, seat, viewer));
  if (role === "player") {
    return el("span", {}, "player ", mayReadWallet(viewer, who)
      ? el("a", { href: `/players/${encodeURIComponent(who)}`, class: "mono" }, who) : el("span", { class: "mono" }, who));
  }
  return el("span", {}, role, who && who !== role ? el("span", { class: "mono" }, ` ${who}`) : "");
}

function cause(step, seats) {
  const c = step.cause;
  const command = c.command || {};
  return el("dl", { class: "kv" },
    el("dt", {}, "by"), el("dd", {}, actorLink(c.actor, seats)),
    el("dt", {}, "command"), el("dd", {}, command.name ? el("code", {}, command.name) : el("span", { class: "muted" }, "—"),
      Number.isInteger(command.seat) ? ` for seat ${seatNumber(lineup, command.seat)}` : "",
      step.timeout ? [" ", el("span", { class: "badge playing" }, "timeout")] : ""),
    command.payload ? [el("dt", {}, "payload"), el("dd", {}, el("code", {}, JSON.stringify(command.payload)))] : null,
    el("dt", {}, "request"), el("dd", {}, c.request_id ? el("code", {}, c.request_id) : el("span", { class: "muted" }, "—")));
}

// The table as it stood after step `i`, in the shape GET /v1/tables/{id} gives, for
// table_views.js to draw it as the table page does: the step's state (the viewer's redaction of
// the hand), whose turn it was, the seats of the hand and what its postings moved so far.
function tableAt(replay, hand, i) {
  const steps = replay.steps;
  const state = steps[i].state;
  const moved = {};
  let escrow = 0;
  let settledAt = -1;
  const settlement = [];
  for (let k = 0; k <= i; k++) {
    const s = steps[k];
    if (s.type === "HandSettled") settledAt = k;
    if (s.type !== "TreasurePosted") continue;
    const { from, to, amount } = s.data;
    for (const [account, sign] of [[from, -1], [to, 1]]) {
      const [kind, , who] = String(account).split(":");
      if (kind === "seat") moved[who] = (moved[who] || 0) + sign * amount;
      if (kind === "escrow") escrow += sign * amount;
    }
    if (settledAt >= 0) settlement.push(s.data);
  }
  const you = replay.viewer.kind === "seat" ? replay.viewer.seat : null;
  const view = state ? { game: replay.game, ...state } : null;
  return {
    table: { id: replay.table_id, game: replay.game, options: view && view.options, you, view,
      turn: turnOf(replay.game, view), seats: hand.seats.map((s) => ({ seat: s.seat, player_id: s.player_id, name: s.name })),
      hand: null },
    moved, escrow, settled: settledAt >= 0, settlement: settledAt >= 0 ? settlement : null,
  };
}

const WAITING = { announce: "to announce the stake", bet: "to bet", choose: "to choose", play: "to play",
  bank: "to play", answer: "to answer the call" };

function turnLine(table) {
  const t = table.turn;
  if (!table.view) return "No card dealt yet: the deck's commitment is recorded.";
  if (!t) return "Nobody is to act.";
  const what = WAITING[t.waiting_for] || `to ${t.waiting_for}`;
  if (t.seat === null || t.seat === undefined) return `Every seat is ${what}.`;
  const role = t.role === "banker" ? (table.game === "casino-pirate" ? " (meneur)" : " (banker)") : "";
  return `${t.seat === table.you ? "Your turn" : seatName(table, t.seat)}${role}: ${what}.`;
}

function replaySection(replay, game, hand) {
  const steps = replay.steps;
  let current = 0;
  const position = el("output", { id: "step-position", "aria-live": "polite" });
  const detail = el("div", { class: "step-detail panel", id: "step-detail", tabindex: "-1" });
  const list = el("ol", { class: "timeline", "aria-label": "Steps" });
  // Each step is a link of its own (#step-N): to jump to it, share it or open it again.
  const items = steps.map((s) => {
    const li = el("li", {}, el("a", { href: `#step-${s.step}`, class: s.timeout ? "timeout" : null },
      el("span", { class: "num" }, s.step), " ", s.type,
      el("span", { class: "muted" }, summary(s) ? ` ${summary(s)}` : "")));
    list.append(li);
    return li;
  });
  const buttons = {
    first: el("button", { type: "button", class: "secondary", "aria-label": "First step", title: "First step (Home)", onclick: () => go(0) }, "« First"),
    prev: el("button", { type: "button", class: "secondary", "aria-label": "Previous step", title: "Previous step (←)", onclick: () => go(current - 1) }, "◀ Previous"),
    next: el("button", { type: "button", class: "secondary", "aria-label": "Next step", title: "Next step (→)", onclick: () => go(current + 1) }, "Next ▶"),
    last: el("button", { type: "button", class: "secondary", "aria-label": "Last step", title: "Last step (End)", onclick: () => go(steps.length - 1) }, "Last »"),
  };
  const jumpInput = el("input", { id: "jump-step", type: "number", inputmode: "numeric", min: 1, max: steps.length,
    step: 1, required: true });
  const jumpForm = el("form", { class: "jump", "aria-label": "Go to a step" },
    el("label", { for: "jump-step" }, "Step"), jumpInput, el("button", { type: "submit", class: "secondary" }, "Go"));
  jumpForm.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!jumpForm.reportValidity()) return;
    go(steps.findIndex((s) => s.step === Number(jumpInput.value)));
  });

  function go(i) {
    if (!steps.length || i < 0) return;
    current = Math.max(0, Math.min(steps.length - 1, i));
    const s = steps[current];
    position.textContent = `Step ${s.step} of ${steps.length}`;
    buttons.first.disabled = buttons.prev.disabled = current === 0;
    buttons.next.disabled = buttons.last.disabled = current === steps.length - 1;
    items.forEach((li, k) => {
      if (k === current) li.firstChild.setAttribute("aria-current", "step");
      else li.firstChild.removeAttribute("aria-current");
      li.toggleAttribute("data-current", k === current);
    });
    items[current].scrollIntoView({ block: "nearest" });
    const at = tableAt(replay, hand, current);
    detail.replaceChildren(
      el("h3", { id: "step-title" }, `${s.step} · ${s.type}`, " ",
        el("span", { class: ["badge", s.kind === "game" ? "started" : "over"] }, s.kind),
        s.timeout ? [" ", el("span", { class: "badge playing" }, "timeout")] : ""),
      el("p", { class: "muted step-when" }, `version ${s.version} · ${when(s.recorded_at)} · `,
        el("a", { href: `#step-${s.step}` }, "link to this step")),
      el("div", { class: "step-parts" },
        el("section", { class: "felt step-felt", "aria-labelledby": "step-table" },
          el("h4", { id: "step-table", class: "on-felt" }, "The table after this step"),
          el("p", { class: "turn-text", id: "step-turn" }, turnLine(at.table)),
          at.table.view ? handView(at.table) : null),
        el("div", { class: "step-side" },
          el("section", { "aria-labelledby": "step-event" }, el("h4", { id: "step-event" }, "Event"),
            el("p", { class: "lead" }, s.type, summary(s) ? `: ${summary(s)}` : ""),
            el("details", {}, el("summary", {}, "Its data"), kv(s.data, game))),
          el("section", { "aria-labelledby": "step-cause" }, el("h4", { id: "step-cause" }, "Cause"), cause(s, hand.seats)),
          el("section", { "aria-labelledby": "step-money" }, el("h4", { id: "step-money" }, "Money"),
            moneyView(at.table, { escrow: at.escrow, settlement: at.settlement, settled: at.settled })
              || el("p", { class: "muted" }, "Nothing staked yet.")))),
      el("section", { "aria-labelledby": "step-seats" }, el("h4", { id: "step-seats" }, "Seats"),
        seatsView(at.table, { moved: at.moved, player: (p) => playerCell(at.table, p, viewer) })),
      el("details", { class: "state-data" }, el("summary", {}, "State after this step, as data"),
        s.state ? kv(s.state, game) : el("p", { class: "muted" }, "No game state yet.")));
    history.replaceState(null, "", `#step-${s.step}`);
  }

  const stepOfHash = () => Number((/^#step-(\d+)$/.exec(location.hash) || [])[1]);
  addEventListener("hashchange", () => {
    const asked = stepOfHash();
    if (asked) go(steps.findIndex((s) => s.step === asked));
  });

  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.target.closest?.("input, textarea, select, [contenteditable]")) return;
    const to = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: steps.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });

  const section = el("section", { class: "replay-section", "aria-labelledby": "replay" },
    el("h2", { id: "replay" }, "Replay"),
    el("p", { class: "help" }, `As ${replay.viewer.kind === "seat" ? `seat ${seatNumber(lineup, replay.viewer.seat)}`
      : replay.viewer.kind}` +
      " may see it: at each step the table as it stood, the event and what caused it. Step with the buttons," +
      " the ← and → keys, Home and End, or follow a step's link."),
    el("div", { class: "actions replay-controls", role: "group", "aria-label": "Replay controls" },
      buttons.first, buttons.prev, position, buttons.next, buttons.last, jumpForm),
    el("div", { class: "replay" }, el("nav", { class: "timeline-wrap", "aria-label": "Steps of the hand" }, list),
      detail));
  const asked = stepOfHash();
  go(Math.max(0, asked ? steps.findIndex((s) => s.step === asked) : 0));
  return { section, go: (version) => go(steps.findIndex((s) => s.version === version)) };
}

function postingsSection(hand) {
  const rows = (hand.postings || []).map((p) => el("tr", {},
    el("td", { class: "mono" }, p.from), el("td", { class: "mono" }, p.to),
    el("td", { class: "num" }, p.amount), el("td", {}, p.reason)));
  return el("section", { "aria-labelledby": "postings" }, el("h2", { id: "postings" }, "Postings"),
    rows.length ? el("div", { class: "table-wrap" }, el("table", { class: "data" },
      el("caption", {}, "What the settlement moved, in integer units"),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "From"), el("th", { scope: "col" }, "To"),
        el("th", { scope: "col", class: "num" }, "Amount"), el("th", { scope: "col" }, "Reason"))),
      el("tbody", {}, rows)))
      : el("p", { class: "muted" }, hand.status === "settled" ? "The settlement moved nothing." : "Not settled yet."));
}

const verdict = (passed) => passed === true ? el("span", { class: "badge ok" }, "passed")
  : passed === false ? el("span", { class: "badge bad" }, "failed")
    : el("span", { class: "badge" }, "not checked");

function serverDetail(check) {
  const e = check.evidence || {};
  if (e.reason) return e.reason;
  if (e.summary) return check.name === "deck.dealt" ? `${e.summary}, each the deck's next card` : e.summary;
  const keys = Object.keys(e).filter((k) => !["recomputed", "postings", "flows", "accounts"].includes(k));
  return keys.map((k) => `${k}: ${typeof e[k] === "object" ? JSON.stringify(e[k]) : e[k]}`).join("; ");
}

function verificationSection(verification, local, jump, evidence) {
  const mine = Object.fromEntries((local?.checks || []).map((c) => [c.name, c]));
  const stepButton = (ref) => ref ? el("button", { type: "button", class: "link", onclick: () => jump(ref.version) },
    `event v${ref.version}`) : null;
  const rows = verification.checks.map((c) => {
    const b = mine[c.name];
    return el("tr", { dataset: { check: c.name } },
      el("th", { scope: "row" }, el("code", {}, c.name)),
      el("td", { class: "server" }, verdict(c.passed), " ", el("span", { class: "help" }, serverDetail(c)), " ", stepButton(c.event)),
      el("td", { class: "browser" }, b ? [verdict(b.passed), " ", el("span", { class: "help" }, b.detail), " ",
        b.event ? el("button", { type: "button", class: "link", onclick: () => jump(b.event.version) }, `step ${b.event.step}`) : null]
        : el("span", { class: "muted" }, "server only")));
  });
  const failed = (local?.checks || []).filter((c) => c.passed === false);
  let banner;
  if (!local) {
    banner = el("p", { class: "problem" }, "This browser has no WebCrypto here (it needs https or localhost): the deck cannot be checked in it.");
  } else if (failed.length) {
    banner = el("p", { class: "problem", role: "alert", id: "browser-verdict" },
      el("strong", {}, "Failed in this browser: "), failed.map((c) => c.name).join(", "), " — ",
      failed.map((c) => c.detail).join("; "));
  } else if (local.passed) {
    banner = el("p", { class: "notice", id: "browser-verdict" }, el("strong", {}, "Passed in this browser: "),
      "the seed matches its commitment and the cards dealt are the deck the seeds give, shuffled here with WebCrypto.");
  } else {
    banner = el("p", { class: "notice muted-notice", id: "browser-verdict" }, el("strong", {}, "Not checked in this browser: "),
      local.checks[0].detail);
  }
  return el("section", { "aria-labelledby": "verification" },
    el("h2", { id: "verification" }, "Verification"),
    el("p", {}, "The server's checks, and beside them the deck checks made again in this browser from the " +
      "revealed seeds and the recorded events alone: SHA-256 of the seed against the commitment, the " +
      "shuffle of docs/fair-decks.md, and every card dealt against the deck it gives."),
    banner,
    el("div", { class: "table-wrap" }, el("table", { class: "data verification", "aria-label": "Checks" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Check"), el("th", { scope: "col" }, "Server"),
        el("th", { scope: "col" }, "This browser"))),
      el("tbody", {}, rows))),
    el("div", { class: "actions" },
      el("button", { type: "button", onclick: evidence }, "Download evidence (JSON)"),
      el("span", { class: "help" }, "The replay, the seeds, the commitment and both sets of results, to keep or check elsewhere.")));
}

// A hand still in play: its players (and the operator) see its replay once it is settled, so
// the page says that in words, with the way back to its table, rather than the API's refusal.
async function notYet(main, problem, refusal) {
  let hand = null;
  try {
    hand = await api(`/v1/hands/${encodeURIComponent(id)}`);
  } catch {
    /* the refusal alone, below */
  }
  if (!hand) {
    showProblem(problem, refusal);
    return;
  }
  main.append(el("section", { class: "panel", "aria-labelledby": "not-yet", id: "not-settled" },
    el("h2", { id: "not-yet" }, `Hand ${hand.number} is still in play`),
    el("p", {}, "Its replay, its deck check and its disputes open here once the hand is settled: until then only",
      " auditors may see it, so that nobody reads the cards of a hand being played."),
    el("p", {}, el("a", { href: `/tables/${encodeURIComponent(hand.table_id)}` }, "Back to its table"),
      ", where the hand is played and followed live.")));
}

async function render(who) {
  viewer = who;
  const problem = el("div", { class: "problem-box", hidden: true });
  const main = page(`Hand ${id}`, problem);
  if (!who) {
    main.append(el("section", { class: "panel", "aria-labelledby": "signin" },
      el("h2", { id: "signin" }, "Sign in to see this hand"),
      el("p", {}, "Its players see it once it is settled; auditors always."), signInForm(render)));
    return;
  }
  let hand, replay, verification;
  try {
    [hand, replay, verification] = await Promise.all([api(`/v1/hands/${encodeURIComponent(id)}`),
      api(`/v1/hands/${encodeURIComponent(id)}/replay`), api(`/v1/hands/${encodeURIComponent(id)}/verification`)]);
  } catch (e) {
    if (e.code === "hand_not_settled") {
      await notYet(main, problem, e);
      return;
    }
    showProblem(problem, e);
    return;
  }
  const game = replay.game;
  const titles = await gameTitles();
  const you = replay.viewer.kind === "seat" ? replay.viewer.seat : null;
  lineup = { seats: hand.seats };
  const seats = el("ul", { class: "seats" }, hand.seats.map((s) => el("li", {}, `seat ${seatNumber(lineup, s.seat)} `,
    playerCell({ you }, s, viewer),
    s.seed ? el("span", { class: "muted" }, ` · seed “${s.seed}”`) : "")));
  main.append(el("section", { class: "panel hand-summary", "aria-label": "Hand" },
    el("p", { class: "lead" }, el("strong", {}, gameTitle(titles, game)), ` · hand ${hand.number} at table `,
      el("a", { href: `/tables/${encodeURIComponent(hand.table_id)}`, class: "mono" }, hand.table_id), " ",
      el("span", { class: ["badge", hand.status === "settled" ? "ok" : "playing"] }, hand.status)),
    el("dl", { class: "kv" },
      el("dt", {}, "opened"), el("dd", {}, when(hand.opened_at)),
      el("dt", {}, "settled"), el("dd", {}, hand.settled_at ? when(hand.settled_at) : "—"),
      el("dt", {}, "commitment"), el("dd", {}, el("code", { class: "hash" }, hand.commitment)),
      el("dt", {}, "server seed"), el("dd", {}, hand.server_seed ? el("code", { class: "hash" }, hand.server_seed)
        : el("span", { class: "muted" }, hand.status === "settled" ? "for auditors only" : "revealed once settled")),
      el("dt", {}, "seats"), el("dd", {}, seats))));
  // The console links a hand's disputes (#disputes); the replay then keeps its step in the address.
  const toDisputes = location.hash === "#disputes";
  const replayed = replaySection(replay, game, hand);
  const mayDispute = you !== null || who.role === "auditor" ||
    (who.role === "operator" && (who.scopes || []).includes("disputes:write"));
  main.append(replayed.section, postingsSection(hand), disputesSection(who, hand, mayDispute));
  if (toDisputes) document.getElementById("disputes").scrollIntoView();
  const pending = el("section", { "aria-labelledby": "verification" }, el("h2", { id: "verification" }, "Verification"),
    el("p", { class: "muted", "aria-busy": "true" }, "Checking the deck in this browser…"));
  main.append(pending);
  let local = null;
  if (available()) {
    try {
      local = await checkHand(hand, replay);
    } catch (e) {
      local = { passed: false, seeds: null, order: null,
        checks: [{ name: "deck.commitment", passed: false, detail: `the check could not run (${e.message})`, event: null }] };
    }
  }
  const evidence = () => {
    const file = { kind: "banco.hand-evidence", hand_id: id, game, made_at: new Date().toISOString(),
      seeds: local?.seeds ?? null, commitment: hand.commitment,
      browser: local && { passed: local.passed, checks: local.checks, recomputed_order: local.order },
      server: verification, hand, replay };
    saveBlob(new Blob([JSON.stringify(file, null, 2)], { type: "application/json" }), `hand-${id}-evidence.json`);
  };
  pending.replaceWith(verificationSection(verification, local, replayed.go, evidence));
}

signedOutShowsNothing(`Hand ${id}`, render);
render(await header());
