// `/console`: the operator's desk (auditors see it read-only): tables, players, the worker's
// jobs, checkpoints of the event log and ledger checks, all through the /v1 API. An operator's
// key sees the sections, and the buttons, its scopes open (service/application/scopes.py).
import {
  api, el, header, money, page, playerName, saveBlob, showProblem, signInForm, signedOutShowsNothing, when,
} from "../banco.js";
import { auditorsDesk, closeTable, createTable, playerDesk, registerPlayer } from "./console_desk.js";
import { writer } from "./console_forms.js";
import { keysSection } from "./console_keys.js";
import { disputesSection } from "./console_disputes.js";

const th = (text, num) => el("th", { scope: "col", class: num ? "num" : null }, text);
const badge = (status) => el("span", { class: ["badge", status] }, status);

function dataTable(id, caption, heads) {
  const body = el("tbody");
  const table = el("table", { class: "data", id },
    el("caption", {}, caption),
    el("thead", {}, el("tr", {}, heads.map(([h, num]) => th(h, num)))),
    body);
  return { wrap: el("div", { class: "table-wrap" }, table), body };
}

function empty(body, cols, text) {
  if (!body.children.length) body.append(el("tr", {}, el("td", { colspan: cols, class: "muted" }, text)));
}

// A list read in cursor pages: `load(cursor)` -> {items, next_cursor}; `row(item)` -> <tr>.
function paged(body, cols, emptyText, load, row, problem) {
  let cursors = [null];
  let nextCursor = null;
  const status = el("span", { class: "muted", "aria-live": "polite" });
  const prev = el("button", { type: "button", class: "secondary" }, "Previous page");
  const next = el("button", { type: "button", class: "secondary" }, "Next page");
  // Only the last read asked for is shown: an earlier one answered after it (the first page
  // read as the console opened, answered after Show's) would show other rows, and give a
  // cursor the filters now applied refuse.
  let asked = 0;
  async function show() {
    const mine = ++asked;
    showProblem(problem, null);
    try {
      const got = await load(cursors[cursors.length - 1]);
      if (mine !== asked) return;
      body.replaceChildren(...got.items.map(row));
      empty(body, cols, emptyText);
      nextCursor = got.next_cursor;
      next.disabled = nextCursor === null;
      prev.disabled = cursors.length < 2;
      status.textContent = `Page ${cursors.length}`;
    } catch (e) {
      if (mine === asked) showProblem(problem, e);
    }
  }
  next.addEventListener("click", () => { cursors.push(nextCursor); show(); });
  prev.addEventListener("click", () => { cursors.pop(); show(); });
  return { pager: el("div", { class: "pager" }, prev, next, status), reload: () => { cursors = [null]; return show(); } };
}

async function tablesSection(games, closing) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const game = el("select", { id: "t-game", name: "game" }, el("option", { value: "" }, "Any game"),
    games.map((g) => el("option", { value: g.name }, g.title || g.name)));
  const status = el("select", { id: "t-status", name: "status" }, el("option", { value: "" }, "Any status"),
    ["open", "playing", "settling", "over"].map((s) => el("option", { value: s }, s)));
  const form = el("form", { class: "filters", "aria-label": "Table filters" },
    el("div", { class: "field" }, el("label", { for: "t-game" }, "Game"), game),
    el("div", { class: "field" }, el("label", { for: "t-status" }, "Status"), status),
    el("button", { type: "submit" }, "Show"));
  const { wrap, body } = dataTable("tables", "Tables, newest first",
    [["Table"], ["Game"], ["Status"], ["Players", true], ["Hands", true], ...(closing ? [["Close"]] : [])]);
  // The filters as last shown: a page is read with those its cursor came from, not with what
  // was picked since without Show.
  let applied = { game: "", status: "" };
  const list = paged(body, closing ? 6 : 5, "No table matches.", (cursor) => {
    const q = new URLSearchParams({ limit: "10" });
    if (applied.game) q.set("game", applied.game);
    if (applied.status) q.set("status", applied.status);
    if (cursor) q.set("cursor", cursor);
    return api(`/v1/tables?${q}`);
  }, (t) => el("tr", {},
    el("td", {}, el("a", { href: `/tables/${encodeURIComponent(t.id)}`, class: "mono" }, t.id)),
    el("td", {}, (games.find((g) => g.name === t.game) || {}).title || t.game), el("td", {}, badge(t.status)),
    el("td", { class: "num" }, t.players), el("td", { class: "num" }, t.hands),
    closing ? el("td", {}, t.status === "open" ? el("button", { type: "button", class: "secondary",
      "aria-label": `Close table ${t.id}`, title: "Cash out every seat and end the table",
      onclick: (e) => closeTable(t, e.currentTarget, problem, () => list.reload()) }, "Close") : "") : null), problem);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    applied = { game: game.value, status: status.value };
    list.reload();
  });
  list.reload();
  const section = el("section", { class: "panel", "aria-labelledby": "h-tables" },
    el("h2", { id: "h-tables" }, "Tables"), form, problem, wrap, list.pager);
  section.reload = () => list.reload();
  return section;
}

function playersSection(manage) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const { wrap, body } = dataTable("players", "Players, newest first",
    [["Player"], ["Name"], ["Registered"], ["Balance", true], ...(manage ? [["Desk"]] : [])]);
  const list = paged(body, manage ? 5 : 4, "No player yet.", (cursor) =>
    api(`/v1/players?limit=10${cursor ? "&cursor=" + encodeURIComponent(cursor) : ""}`),
  (p) => el("tr", {},
    el("td", {}, el("a", { href: `/players/${encodeURIComponent(p.id)}`, class: "mono" }, p.id)),
    el("td", { class: p.erased ? "muted" : null }, playerName(p)), el("td", {}, when(p.created_at)), el("td", { class: "num" }, money(p.balance)),
    manage ? el("td", {}, el("button", { type: "button", class: "secondary", "aria-label": `Manage ${playerName(p)} (${p.id})`,
      onclick: () => manage(p) }, "Manage")) : null), problem);
  list.reload();
  const section = el("section", { class: "panel", "aria-labelledby": "h-players" },
    el("h2", { id: "h-players" }, "Players"), problem, wrap, list.pager);
  section.reload = () => list.reload();
  return section;
}

function jobsSection(requeuing) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const note = el("p", { class: "notice", hidden: true, "aria-live": "polite" });
  const counts = el("dl", { class: "counts", id: "job-counts" });
  const states = ["queued", "scheduled", "started", "failed"];
  const queues = dataTable("job-queues", "Every queue: the queue and its webhooks' lane",
    [["Queue"], ...states.map((k) => [k[0].toUpperCase() + k.slice(1), true]), ["Workers", true]]);
  const { wrap, body } = dataTable("failed-jobs", "Failed jobs, latest first",
    [["Job"], ["Queue"], ["Call"], ["Error"], ["Action", false]]);
  const workers = el("p", { class: "muted" });
  async function show() {
    showProblem(problem, null);
    try {
      const jobs = await api("/v1/jobs?limit=50");
      // The counts of every queue added up; the table below gives each queue's.
      counts.replaceChildren(...states.map((k) =>
        el("div", {}, el("dt", {}, k[0].toUpperCase() + k.slice(1)),
          el("dd", { id: `jobs-${k}` }, jobs.queues.reduce((sum, q) => sum + q[k], 0)))));
      queues.body.replaceChildren(...jobs.queues.map((q) => el("tr", {},
        el("td", { class: "mono" }, q.name), ...states.map((k) => el("td", { class: "num" }, q[k])),
        el("td", { class: "num" }, q.workers))));
      body.replaceChildren(...jobs.failed_jobs.map((j) => el("tr", {},
        el("td", { class: "mono" }, j.id), el("td", { class: "mono" }, j.queue),
        el("td", { class: "mono" }, j.call), el("td", {}, j.error),
        el("td", {}, requeuing ? el("button", { type: "button", "aria-label": `Requeue job ${j.id}`,
          onclick: (e) => requeue(j.id, e.currentTarget) }, "Requeue") : ""))));
      empty(body, 5, "No failed job.");
      workers.textContent = jobs.workers.length
        ? `Workers on queue ${jobs.queue}: ${jobs.workers.map((w) => `${w.name} (${w.state})`).join(", ")}`
        : `No worker is listening on queue ${jobs.queue}.`;
    } catch (e) {
      showProblem(problem, e);
    }
  }
  const write = writer();
  async function requeue(id, button) {
    button.disabled = true;
    showProblem(problem, null);
    try {
      const done = await write(`/v1/jobs/${encodeURIComponent(id)}/requeue`);
      note.hidden = false;
      note.textContent = `Job ${done.id} is back on the queue (${done.status}).`;
      await show();
    } catch (e) {
      button.disabled = false;
      showProblem(problem, e);
    }
  }
  show();
  return el("section", { class: "panel", "aria-labelledby": "h-jobs" },
    el("h2", { id: "h-jobs" }, "Jobs"),
    el("div", { class: "actions" }, el("button", { type: "button", class: "secondary", onclick: show }, "Refresh jobs")),
    problem, note, counts, queues.wrap, workers, wrap);
}

// The checkpoints listed (`reading`: audit:read) and a button to record one (`recording`:
// audit:write); a key that may record but not read sees those it records.
function checkpointsSection(reading, recording) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const { wrap, body } = dataTable("checkpoints", "Digests of the event log, newest first",
    [["#", true], ["Recorded"], ["Events", true], ["Position", true], ["Merkle root"], ["File"]]);
  const row = (c) => el("tr", {},
    el("td", { class: "num" }, c.id), el("td", {}, when(c.recorded_at)),
    el("td", { class: "num" }, money(c.events)), el("td", { class: "num" }, c.position),
    el("td", { class: "mono" }, c.root.slice(0, 16) + "…"),
    el("td", {}, el("button", { type: "button", class: "secondary", "aria-label": `Download checkpoint ${c.id}`,
      onclick: () => saveBlob(new Blob([JSON.stringify(c, null, 2) + "\n"], { type: "application/json" }),
        `checkpoint-${c.id}.json`) }, "Download")));
  async function show() {
    try {
      const got = await api("/v1/audit/checkpoints");
      body.replaceChildren(...got.items.map(row));
      empty(body, 6, "No checkpoint recorded yet.");
    } catch (e) {
      showProblem(problem, e);
    }
  }
  const write = writer();
  const record = recording ? el("button", { type: "button", onclick: async (e) => {
    const button = e.currentTarget;
    button.disabled = true;
    showProblem(problem, null);
    try {
      const made = await write("/v1/audit/checkpoints");
      if (reading) await show();
      else body.prepend(row(made));
    } catch (err) {
      showProblem(problem, err);
    } finally {
      button.disabled = false;
    }
  } }, "Record a checkpoint") : null;
  if (reading) show();
  return el("section", { class: "panel", "aria-labelledby": "h-checkpoints" },
    el("h2", { id: "h-checkpoints" }, "Checkpoints"),
    el("p", { class: "help" }, "Keep a downloaded copy outside the database: a later log that does not reach the same root was changed."),
    el("div", { class: "actions" }, record), problem, wrap);
}

function ledgerSection() {
  const problem = el("div", { class: "problem-box", hidden: true });
  const result = el("div", { id: "ledger-result", "aria-live": "polite" });
  async function poll(id) {
    for (let i = 0; i < 120; i++) {
      const check = await api(`/v1/audit/ledger-checks/${encodeURIComponent(id)}`);
      render(check);
      if (!["queued", "started", "scheduled", "deferred"].includes(check.status)) return;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  // A failed check says which of its tests failed: treasure left in an ended table (a stranded
  // account) fails it too, though every balance adds up, and must not read as an imbalance.
  function render(check) {
    const r = check.result;
    const stranded = (r && r.stranded_accounts) || [];
    const drifting = (r && r.drifting_accounts) || [];
    const rows = r ? [["Accounts", r.accounts], ["Total (always 0)", r.total],
      ["Negative accounts", r.negative_accounts], ["Drifting accounts", drifting.length],
      ["Stranded accounts", stranded.length]] : [];
    const failed = r ? [r.total !== 0 ? `the total is ${r.total}, not 0` : null,
      r.negative_accounts ? `accounts below 0: ${r.negative_accounts}` : null,
      drifting.length ? `accounts drifting from their postings: ${drifting.length}` : null,
      stranded.length ? `accounts of ended tables still holding treasure: ${stranded.length}` : null,
    ].filter(Boolean) : [];
    result.replaceChildren(
      el("p", {}, "Check ", el("span", { class: "mono" }, check.id), " ", badge(check.status), " ",
        r ? badge(r.ok ? "ok" : "bad") : "", r ? (r.ok ? " the ledger balances"
          : ` the check failed: ${failed.join("; ") || "see the counts below"}.`) : ""),
      r ? el("dl", { class: "counts" }, rows.map(([k, v]) => el("div", {}, el("dt", {}, k), el("dd", {}, String(v))))) : "",
      stranded.length ? el("div", { class: "table-wrap" }, el("table", { class: "data", id: "stranded-accounts" },
        el("caption", {}, "Treasure left in tables that are over (an ended table pays everything out)"),
        el("thead", {}, el("tr", {}, th("Account"), th("Balance", true))),
        el("tbody", {}, stranded.map((a) => el("tr", {}, el("td", { class: "mono" }, a.account),
          el("td", { class: "num" }, money(a.balance))))))) : "");
  }
  const write = writer();
  const start = el("button", { type: "button", onclick: async () => {
    start.disabled = true;
    showProblem(problem, null);
    try {
      const check = await write("/v1/audit/ledger-checks");
      render(check);
      await poll(check.id);
    } catch (e) {
      showProblem(problem, e);
    } finally {
      start.disabled = false;
    }
  } }, "Check the ledger");
  return el("section", { class: "panel", "aria-labelledby": "h-ledger" },
    el("h2", { id: "h-ledger" }, "Ledger check"),
    el("p", { class: "help" }, "The worker checks the whole ledger: treasure is conserved, no balance is negative, no balance drifts from its postings."),
    el("div", { class: "actions" }, start), problem, result);
}

// Whether `who` may do what needs `scope` (service/application/scopes.py): an operator's key
// what its scopes open; an auditor, whose role decides, reads what the operator reads and
// changes nothing.
function permits(who) {
  return (scope) => (who.role === "operator" ? who.scopes.includes(scope) : scope.endsWith(":read"));
}

async function start(who) {
  if (!who) {
    page("Console", el("p", {}, "The console is the operator's, and auditors' to read. Sign in."), signInForm(start));
    return;
  }
  if (who.role === "player") {
    const problem = el("div", { class: "problem-box" });
    page("Console", problem);
    showProblem(problem, { status: 403, code: "forbidden", detail: "the console is for the operator and auditors" });
    return;
  }
  const operator = who.role === "operator";
  const may = permits(who);
  const main = page("Console", el("p", { class: "muted" }, !operator
    ? "Read-only: auditors see what the operator sees and change nothing."
    : who.key_id === "bootstrap" ? "Everything the operator reads and runs, through the same API."
      : `This key holds ${who.scopes.join(", ") || "no scope"}: the console shows what those open, through the same API.`));
  let games = [];
  if (may("tables:read") || may("tables:write")) {
    try {
      games = await api("/v1/games");
    } catch {
      /* the filter still works without the list */
    }
  }
  const tables = may("tables:read") ? await tablesSection(games, may("tables:write")) : null;
  let players = null;
  let desk = null;
  if (may("players:read")) {
    const treasure = may("treasure:write");
    const managing = may("players:write");
    if (treasure || managing) desk = playerDesk(() => players.reload(), { treasure, players: managing });
    players = playersSection(desk && ((p) => desk.show(p)));
  }
  const grid = (...sections) => (sections.some(Boolean) ? el("div", { class: "grid" }, sections) : null);
  const sections = [
    grid(may("players:write") ? registerPlayer(() => players?.reload()) : null,
      may("tables:write") ? createTable(games, () => tables?.reload()) : null),
    grid(tables, players), desk?.section,
    may("auditors:admin") ? auditorsDesk() : null,
    may("jobs:read") ? jobsSection(may("jobs:admin")) : null,
    may("audit:read") ? ledgerSection() : null,
    may("audit:read") || may("audit:write") ? checkpointsSection(may("audit:read"), may("audit:write")) : null,
    may("disputes:read") ? disputesSection() : null,
    may("keys:admin") ? keysSection(who) : null,
  ].filter(Boolean);
  main.append(...sections);
  if (!sections.length) main.append(el("p", {}, "None of this key's scopes opens a part of the console."));
}

signedOutShowsNothing("Console", start);
start(await header());
