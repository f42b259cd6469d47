// `/`: what Banco is, where its API is described, signing in with a token, and then the tables.
import { api, el, gameTitle, gameTitles, header, isolate, page, showProblem, signInForm } from "../banco.js";

// The tables, newest first, filtered by status, a page at a time: "More tables" adds the next
// page (the list's cursor), so that every table can be reached.
async function tables(section) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const body = el("tbody");
  const status = el("select", { id: "tables-status", name: "status" },
    el("option", { value: "" }, "Any status"),
    ["open", "playing", "settling", "over"].map((s) => el("option", { value: s }, s)));
  const more = el("button", { type: "button", class: "secondary", hidden: true }, "More tables");
  const count = el("p", { class: "muted", "aria-live": "polite" });
  section.replaceChildren(el("h2", { id: "tables" }, "Tables"),
    el("div", { class: "filters" }, el("div", { class: "field" },
      el("label", { for: "tables-status" }, "Status"), status)),
    problem,
    el("div", { class: "table-wrap" }, el("table", { class: "data" },
      el("caption", {}, "The tables, newest first: open one to watch or play"),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Table"), el("th", { scope: "col" }, "Game"),
        el("th", { scope: "col" }, "Status"), el("th", { scope: "col", class: "num" }, "Players"),
        el("th", { scope: "col", class: "num" }, "Hands"))),
      body)),
    el("div", { class: "actions" }, more, count));
  // Only the latest request's answer is shown: a filter changed while a page is on its way asks
  // again, and that earlier answer is dropped when it comes.
  let asked = 0;
  let cursor = null;
  async function load(first) {
    const mine = ++asked;
    showProblem(problem, null);
    more.disabled = true;
    const q = new URLSearchParams({ limit: "50" });
    if (status.value) q.set("status", status.value);
    if (!first) q.set("cursor", cursor);
    try {
      const [listed, titles] = await Promise.all([api(`/v1/tables?${q}`), gameTitles()]);
      if (mine !== asked) return;
      if (first) body.replaceChildren();
      const before = body.children.length;
      for (const t of listed.items) {
        body.append(el("tr", {},
          el("td", {}, el("a", { href: `/tables/${encodeURIComponent(t.id)}`, class: "mono" }, t.id)),
          el("td", {}, gameTitle(titles, t.game)), el("td", {}, el("span", { class: ["badge", t.status] }, t.status)),
          el("td", { class: "num" }, t.players), el("td", { class: "num" }, t.hands)));
      }
      const shown = body.children.length;
      if (!shown) {
        body.append(el("tr", {}, el("td", { colspan: 5, class: "muted" },
          status.value ? `No ${status.value} table.` : "No table yet.")));
      }
      cursor = listed.next_cursor;
      more.hidden = cursor === null;
      count.textContent = !shown ? "" : cursor === null ? `All ${shown} shown.` : `${shown} shown, newest first.`;
      // Asked for more: the keyboard goes on from the first table added (the button may be gone).
      if (!first && listed.items.length) body.children[before].querySelector("a").focus();
    } catch (e) {
      if (mine === asked) showProblem(problem, e);
    } finally {
      if (mine === asked) more.disabled = false;
    }
  }
  status.addEventListener("change", () => load(true));
  more.addEventListener("click", () => load(false));
  await load(true);
}

function render(who) {
  const intro = el("section", { class: "panel", "aria-labelledby": "what" },
    el("h2", { id: "what" }, "What Banco is"),
    el("p", { class: "lead" },
      "Banco keeps the ledger of five traditional card games — Sette e mezzo, Siete y media, " +
      "Casino pirate, Pirate pairs and Cassino — as an event log: every deal, move and payment " +
      "is an event, every wallet a balance replayed from them, and every deck can be checked " +
      "from its revealed seeds."),
    el("p", {}, "Everything here is the same ",
      el("a", { href: "/docs" }, "/v1 API"),
      " any client calls: these pages only show it. Read the ",
      el("a", { href: "/docs" }, "API reference"), " or the ",
      el("a", { href: "/openapi.yaml" }, "OpenAPI contract"), "."));
  const main = page("Banco", intro);
  if (!who) {
    main.append(el("section", { class: "panel", "aria-labelledby": "signin" },
      el("h2", { id: "signin" }, "Sign in"), signInForm(render)));
    return;
  }
  const links = el("ul", {});
  if (who.role === "player") {
    links.append(el("li", {}, el("a", { href: `/players/${encodeURIComponent(who.id)}` }, "Your wallet, its history and the tables you sit at")));
    links.append(el("li", {}, "To play, open a table below and take a seat."));
  } else {
    links.append(el("li", {}, el("a", { href: "/console" }, who.role === "operator" ? "The console" : "The console (read-only)")));
  }
  main.append(el("section", { class: "panel", "aria-labelledby": "you" },
    el("h2", { id: "you" }, "Signed in"),
    el("p", {}, `As ${who.role}${who.name ? " " + isolate(who.name) : ""}`, who.role === "operator" ? "" : el("span", { class: "mono" }, ` (${who.id})`), "."),
    links));
  // Every player and auditor reads the tables; an operator's key, with tables:read.
  if (who.role !== "operator" || who.scopes.includes("tables:read")) {
    const section = el("section", { "aria-labelledby": "tables" });
    main.append(section);
    tables(section);
  }
}

render(await header());
if (location.hash === "#tables") document.getElementById("tables")?.scrollIntoView();
