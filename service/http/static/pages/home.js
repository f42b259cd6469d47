// `/`: what Banco is, where its API is described, signing in with a token, and then the tables.
import { api, el, gameTitle, gameTitles, header, isolate, page, showProblem, signInForm } from "../banco.js";

async function tables(section) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const body = el("tbody");
  section.replaceChildren(el("h2", { id: "tables" }, "Tables"), problem,
    el("div", { class: "table-wrap" }, el("table", { class: "data" },
      el("caption", {}, "The tables, newest first: open one to watch or play"),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Table"), el("th", { scope: "col" }, "Game"),
        el("th", { scope: "col" }, "Status"), el("th", { scope: "col", class: "num" }, "Players"),
        el("th", { scope: "col", class: "num" }, "Hands"))),
      body)));
  try {
    const [listed, titles] = await Promise.all([api("/v1/tables?limit=50"), gameTitles()]);
    if (!listed.items.length) body.append(el("tr", {}, el("td", { colspan: 5, class: "muted" }, "No table yet.")));
    for (const t of listed.items) {
      body.append(el("tr", {},
        el("td", {}, el("a", { href: `/tables/${encodeURIComponent(t.id)}`, class: "mono" }, t.id)),
        el("td", {}, gameTitle(titles, t.game)), el("td", {}, el("span", { class: ["badge", t.status] }, t.status)),
        el("td", { class: "num" }, t.players), el("td", { class: "num" }, t.hands)));
    }
  } catch (e) {
    showProblem(problem, e);
  }
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
