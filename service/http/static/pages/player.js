// `/players/{id}` (or `/players/me`): a wallet's balance, its history with the API's filters and
// pages, the balance chart and the history's CSV / NDJSON exports.
import {
  api, el, gameTitle, gameTitles, header, money, page, pathId, playerName, request, saveBlob, showProblem, signInForm,
  signedOutShowsNothing, when, whoami,
} from "../banco.js";

const FILTERS = [
  ["from", "From", "datetime-local"], ["to", "To", "datetime-local"],
  ["reason", "Reason", "text"], ["table", "Table", "text"], ["hand", "Hand", "text"],
];

// The form's filters as the API takes them (its local times as UTC instants) and its rows a
// page, taken when the form is applied: the pages, the chart and the downloads keep to them
// until it is applied again, whatever is typed in it meanwhile (a cursor is only good for the
// filters it was read with).
function applied(form) {
  const filters = {};
  for (const [name, , type] of FILTERS) {
    const value = form.elements[name].value.trim();
    if (value) filters[name] = type === "datetime-local" ? new Date(value).toISOString() : value;
  }
  return { filters, limit: form.elements.limit.value };
}

// The applied filters as the API's query, with `paged` (limit, cursor, width) added.
function query({ filters }, paged = {}) {
  const q = new URLSearchParams(filters);
  for (const [k, v] of Object.entries(paged)) if (v !== null && v !== undefined) q.set(k, v);
  const s = q.toString();
  return s ? "?" + s : "";
}

function historyRow(r) {
  const link = (kind, id) => (id ? el("a", { href: `/${kind}/${encodeURIComponent(id)}`, class: "mono" }, id) : "");
  return el("tr", {},
    el("td", { class: "num" }, r.position),
    el("td", {}, when(r.recorded_at)),
    el("td", { class: ["num", r.amount < 0 ? "neg" : "pos"] }, (r.amount > 0 ? "+" : "") + money(r.amount)),
    el("td", { class: "num" }, money(r.balance_after)),
    el("td", {}, r.reason),
    el("td", { class: "mono wrap" }, r.counterparty),
    el("td", {}, link("tables", r.table)),
    el("td", {}, link("hands", r.hand)));
}

async function show(id) {
  const base = `/v1/players/${encodeURIComponent(id)}`;
  const problem = el("div", { class: "problem-box", hidden: true });
  const main = page("Wallet", problem);
  let player;
  let balance;
  try {
    [player, balance] = await Promise.all([api(base), api(`${base}/balance`)]);
  } catch (e) {
    showProblem(problem, e);
    return;
  }
  const name = playerName(player);
  main.querySelector("h1").textContent = `Wallet of ${name}`;
  document.title = `Wallet of ${name} · Banco`;

  const summary = el("section", { class: "grid", "aria-label": "Summary" },
    el("div", { class: "panel" }, el("div", { class: "stat-label", id: "balance-label" }, "Balance"),
      el("div", { class: "stat", id: "balance", "aria-labelledby": "balance-label" }, money(balance.balance))),
    el("div", { class: "panel" }, el("div", { class: "stat-label" }, "Player"),
      el("div", { class: "mono" }, player.id),
      el("div", { class: "muted" }, `registered ${when(player.created_at)}`),
      el("div", { class: "muted" }, `as of ledger position ${balance.as_of_position}`)));

  const form = el("form", { class: "filters", "aria-label": "History filters" },
    FILTERS.map(([name, label, type]) => el("div", { class: "field" },
      el("label", { for: `f-${name}` }, label),
      el("input", { id: `f-${name}`, name, type, autocomplete: "off" }))),
    el("div", { class: "field" }, el("label", { for: "f-limit" }, "Rows a page"),
      el("select", { id: "f-limit", name: "limit" }, ["25", "100", "500"].map((n) =>
        el("option", { value: n, selected: n === "25" }, n)))),
    el("button", { type: "submit" }, "Apply"),
    el("button", { type: "reset", class: "secondary" }, "Clear"));

  const downloads = el("div", { class: "actions" },
    el("button", { type: "button", class: "secondary", id: "csv" }, "Download CSV"),
    el("button", { type: "button", class: "secondary", id: "ndjson" }, "Download NDJSON"),
    el("span", { class: "help" }, "The whole history under the filters, as the API exports it."));

  const chart = el("img", { class: "chart", alt: "Chart of the balance over time", hidden: true });
  const chartNote = el("p", { class: "muted" }, "Loading the chart…");
  const body = el("tbody");
  const status = el("p", { class: "muted", "aria-live": "polite" });
  const prev = el("button", { type: "button", class: "secondary" }, "Previous page");
  const next = el("button", { type: "button", class: "secondary" }, "Next page");
  const tablesBody = el("tbody");
  const moreTables = el("button", { type: "button", class: "secondary", hidden: true }, "More tables");
  const tablesCount = el("p", { class: "muted", id: "tables-count", "aria-live": "polite" });
  const tablesSection = el("section", { "aria-labelledby": "h-tables" }, el("h2", { id: "h-tables" }, "Tables"),
    el("div", { class: "table-wrap" }, el("table", { class: "data", id: "player-tables" },
      el("caption", {}, `The tables ${name} sits at, newest first`),
      el("thead", {}, el("tr", {}, ["Table", "Game", "Status", "Players", "Hands"].map((h, i) =>
        el("th", { scope: "col", class: i > 2 ? "num" : null }, h)))),
      tablesBody)),
    el("div", { class: "actions" }, moreTables, tablesCount),
    player.id === (await whoami())?.id ? el("p", { class: "help" }, "Open a table from ",
      el("a", { href: "/#tables" }, "the list of tables"), " to take a seat.") : null);
  main.append(summary, tablesSection,
    el("section", { "aria-labelledby": "h-history" }, el("h2", { id: "h-history" }, "History"), form, downloads,
      el("div", { class: "table-wrap" }, el("table", { class: "data", id: "history" },
        el("caption", {}, "Postings of the wallet, oldest first, with the balance after each"),
        el("thead", {}, el("tr", {}, ["Position", "Time", "Amount", "Balance after", "Reason",
          "Counterparty", "Table", "Hand"].map((h, i) =>
          el("th", { scope: "col", class: i === 0 || i === 2 || i === 3 ? "num" : null }, h)))),
        body)),
      el("div", { class: "pager" }, prev, next, status)),
    el("section", { "aria-labelledby": "h-chart" }, el("h2", { id: "h-chart" }, "Chart"), chartNote, chart));

  let cursors = [null]; // the cursor each page was read with; the last is the page shown
  let inUse = applied(form); // the filters the pages are read with
  let nextCursor = null;

  async function loadPage() {
    showProblem(problem, null);
    const cursor = cursors[cursors.length - 1];
    try {
      const got = await api(`${base}/balance-history${query(inUse, { limit: inUse.limit, cursor })}`);
      body.replaceChildren(...got.items.map(historyRow));
      if (!got.items.length) body.append(el("tr", {}, el("td", { colspan: 8, class: "muted" }, "No posting matches.")));
      nextCursor = got.next_cursor;
      next.disabled = nextCursor === null;
      prev.disabled = cursors.length < 2;
      status.textContent = `Page ${cursors.length}, ${got.items.length} posting${got.items.length === 1 ? "" : "s"}`;
    } catch (e) {
      showProblem(problem, e);
    }
  }

  let chartUrl = null;
  async function loadChart() {
    try {
      // Drawn at the width it is inUse at, so that its labels keep their size on a phone too.
      const width = Math.max(320, Math.min(1600, Math.round(chart.parentElement.clientWidth) || 800));
      const response = await request(`${base}/balance-history.svg${query(inUse, { width })}`, { accept: "image/svg+xml" });
      const blob = await response.blob();
      if (chartUrl) URL.revokeObjectURL(chartUrl);
      chartUrl = URL.createObjectURL(blob);
      chart.src = chartUrl;
      chart.hidden = false;
      chartNote.hidden = true;
    } catch (e) {
      chart.hidden = true;
      chartNote.hidden = false;
      showProblem(chartNote, e);
    }
  }

  async function download(accept, ext, button) {
    button.disabled = true;
    showProblem(problem, null);
    try {
      const response = await request(`${base}/balance-history${query(inUse)}`, { accept });
      saveBlob(await response.blob(), `${player.id}-history.${ext}`);
    } catch (e) {
      showProblem(problem, e);
    } finally {
      button.disabled = false;
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    cursors = [null];
    inUse = applied(form);
    loadPage();
    loadChart();
  });
  form.addEventListener("reset", () => setTimeout(() => form.requestSubmit(), 0));
  next.addEventListener("click", () => {
    cursors.push(nextCursor);
    loadPage();
  });
  prev.addEventListener("click", () => {
    cursors.pop();
    loadPage();
  });
  downloads.querySelector("#csv").addEventListener("click", (e) => download("text/csv", "csv", e.currentTarget));
  downloads.querySelector("#ndjson").addEventListener("click",
    (e) => download("application/x-ndjson", "ndjson", e.currentTarget));
  // The tables a page at a time, as the home page lists them: "More tables" adds the next page
  // (the list's cursor), so that a player of more than one page of tables reaches every one.
  let tablesCursor = null;
  async function loadTables(first) {
    moreTables.disabled = true;
    const q = new URLSearchParams({ player: player.id, limit: "50" });
    if (!first) q.set("cursor", tablesCursor);
    try {
      const [got, titles] = await Promise.all([api(`/v1/tables?${q}`), gameTitles()]);
      const before = tablesBody.children.length;
      tablesBody.append(...got.items.map((t) => el("tr", {},
        el("td", {}, el("a", { href: `/tables/${encodeURIComponent(t.id)}`, class: "mono" }, t.id)),
        el("td", {}, gameTitle(titles, t.game)), el("td", {}, el("span", { class: ["badge", t.status] }, t.status)),
        el("td", { class: "num" }, t.players), el("td", { class: "num" }, t.hands))));
      const shown = tablesBody.children.length;
      if (!shown) tablesBody.append(el("tr", {}, el("td", { colspan: 5, class: "muted" }, "No seat at any table.")));
      tablesCursor = got.next_cursor;
      moreTables.hidden = tablesCursor === null;
      tablesCount.textContent = !shown ? "" : tablesCursor === null ? `All ${shown} shown.` : `${shown} shown, newest first.`;
      // Asked for more: the keyboard goes on from the first table added (the button may be gone).
      if (!first && got.items.length) tablesBody.children[before].querySelector("a").focus();
    } catch (e) {
      showProblem(problem, e);
    } finally {
      moreTables.disabled = false;
    }
  }
  moreTables.addEventListener("click", () => loadTables(false));
  await Promise.all([loadPage(), loadChart(), loadTables(true)]);
}

async function start(who) {
  if (!who) {
    page("Wallet", el("p", {}, "Sign in to see a wallet: yours as a player, any as the operator or an auditor."),
      signInForm(start));
    return;
  }
  const id = pathId();
  await show(id === "me" ? who.id : id);
}

signedOutShowsNothing("Wallet", start);
start(await header());
