// The disputes on /console, newest first, filtered by status, each linked to its hand's page
// (where it is read whole, given evidence, re-adjudicated, and resolved with corrective postings
// or rejected).
import { api, el, isolate, showProblem, when } from "../banco.js";
import { field } from "./console_forms.js";

const badge = { open: "playing", resolved: "ok", rejected: "over" };

export function disputesSection() {
  const problem = el("div", { class: "problem-box", hidden: true });
  const status = el("select", { id: "dispute-status", name: "status" },
    ["open", "resolved", "rejected", ""].map((s) => el("option", { value: s }, s || "any")));
  const body = el("tbody");
  const table = el("table", { class: "data", id: "disputes-table" },
    el("caption", {}, "Disputes, newest first"),
    el("thead", {}, el("tr", {}, ["Dispute", "Hand", "Status", "Opened by", "Reason", "Opened", "Corrections"].map((h) =>
      el("th", { scope: "col" }, h)))),
    body);

  // A change of filter while a list is on its way asks again: only the newest answer is shown,
  // whichever comes back last (the first load's, for the default filter, may).
  let asked = 0;
  async function show() {
    const mine = ++asked;
    showProblem(problem, null);
    try {
      const query = status.value ? `?status=${status.value}&limit=50` : "?limit=50";
      const got = await api(`/v1/disputes${query}`);
      if (mine !== asked) return;
      body.replaceChildren(...got.items.map((d) => el("tr", {},
        el("td", { class: "mono" }, d.id),
        el("td", {}, el("a", { href: `/hands/${encodeURIComponent(d.hand_id)}#disputes`, class: "mono" }, d.hand_id)),
        el("td", {}, el("span", { class: ["badge", badge[d.status]] }, d.status)),
        el("td", {}, d.opened_by), el("td", {}, isolate(d.reason)), el("td", {}, when(d.opened_at)),
        el("td", { class: "num" }, d.corrections.reduce((n, c) => n + c.amount, 0) || "—"))));
      if (!got.items.length) body.append(el("tr", {}, el("td", { colspan: 7, class: "muted" }, "No dispute.")));
    } catch (e) {
      if (mine === asked) showProblem(problem, e);
    }
  }

  status.addEventListener("change", show);
  show();
  return el("section", { class: "panel", "aria-labelledby": "h-disputes", id: "disputes" },
    el("h2", { id: "h-disputes" }, "Disputes"),
    el("p", { class: "help" }, "Each is read, given evidence, re-adjudicated and decided on its hand's page; a resolution pays corrective postings."),
    el("div", { class: "filters" }, field("dispute-status", "Disputes shown", status)), problem,
    el("div", { class: "table-wrap" }, table));
}
