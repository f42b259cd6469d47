// The disputes about a hand on its page (GET /v1/disputes?hand_id=): each with its reason,
// evidence, re-adjudications and resolution, and the corrective postings it paid. The hand's
// players, auditors and the operator open one, attach evidence and re-adjudicate the hand under
// its rules version or a newer one; the differences are shown as the API redacts them for you.
// The operator (a key holding disputes:write) decides an open one here too: rejected with a
// note, or resolved with a note and corrective postings between the hand's players and the
// house. Opening a dispute, attaching evidence and deciding go through writer(): sent again
// after their answer was lost, they are done once (a second dispute, the same evidence twice,
// or the corrections paid twice, is not).
import { api, el, isolate, resendHint, showProblem, when, writer } from "../banco.js";

const badge = { open: "playing", resolved: "ok", rejected: "over" };

function outcome(r) {
  if (r.matches) return `as recorded under rules version ${r.rules_version}`;
  return `under rules version ${r.rules_version}: ${r.events_differing} events and` +
    ` ${r.postings_differing} postings differ` + (r.refused ? ` (the rules refuse a command: ${r.refused})` : "");
}

const posting = (p) => p ? `${p.amount} from ${p.from} to ${p.to}` : "nothing";
const shownEvent = (e) => e ? `${e.type} ${JSON.stringify(e.data)}` : "nothing";

// A re-adjudication's answer: its verdict, and each event and posting that would differ.
function differences(r) {
  return el("div", { class: "readjudication" },
    el("p", { class: "lead" }, outcome(r), r.matches ? ` (${r.events_compared} events compared)` : ""),
    r.events.length ? el("details", {}, el("summary", {}, `${r.events.length} events that differ`),
      el("ol", { class: "kv-list" }, r.events.map((d) => el("li", {}, `event ${d.index}: recorded `,
        el("code", {}, shownEvent(d.recorded)), ", replayed ", el("code", {}, shownEvent(d.replayed)))))) : null,
    r.postings.length ? el("ul", {}, r.postings.map((d) => el("li", {},
      `posting ${d.index}: recorded ${posting(d.recorded)}, replayed ${posting(d.replayed)}`))) : null);
}

function correctionsTable(d) {
  if (!d.corrections.length) return null;
  return el("div", { class: "table-wrap" }, el("table", { class: "data" },
    el("caption", {}, `Corrective postings of ${d.id}`),
    el("thead", {}, el("tr", {}, ["From", "To", "Amount", "Reason"].map((h) =>
      el("th", { scope: "col", class: h === "Amount" ? "num" : null }, h)))),
    el("tbody", {}, d.corrections.map((c) => el("tr", {}, el("td", { class: "mono" }, c.from),
      el("td", { class: "mono" }, c.to), el("td", { class: "num" }, c.amount), el("td", { class: "mono" }, c.reason))))));
}

export function disputesSection(who, hand, mayAct) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const list = el("div", { id: "dispute-list" });
  const opens = writer();
  const attaches = new Map(); // dispute id → its evidence form's writer, kept as the list is redrawn

  // Run a form's request; its problem shown above the list, the list read again after it.
  async function run(button, work) {
    button.disabled = true;
    showProblem(problem, null);
    try {
      await work();
    } catch (e) {
      showProblem(problem, e);
      if (e.resendable) problem.append(resendHint());
    } finally {
      button.disabled = false;
    }
  }

  function actions(d) {
    const note = el("textarea", { id: `evidence-${d.id}`, required: true, maxlength: 2000, rows: 2 });
    const attach = el("button", { type: "submit", class: "secondary" }, "Attach evidence");
    const evidence = el("form", { class: "filters", "aria-label": `Evidence for ${d.id}` },
      el("div", { class: "field" }, el("label", { for: `evidence-${d.id}` }, "Evidence"), note), attach);
    if (!attaches.has(d.id)) attaches.set(d.id, writer());
    evidence.addEventListener("submit", (e) => {
      e.preventDefault();
      run(attach, async () => {
        await attaches.get(d.id)(`/v1/disputes/${encodeURIComponent(d.id)}/evidence`, { json: { note: note.value.trim() } });
        await show();
      });
    });
    const version = el("input", { id: `version-${d.id}`, type: "number", min: 1, step: 1, inputmode: "numeric",
      placeholder: String(hand.rules_version) });
    const replay = el("button", { type: "submit", class: "secondary" }, "Re-adjudicate");
    const result = el("output", { id: `readjudication-${d.id}`, "aria-live": "polite" });
    const again = el("form", { class: "filters", "aria-label": `Re-adjudicate ${d.id}` },
      el("div", { class: "field" }, el("label", { for: `version-${d.id}` }, "Rules version"), version,
        el("span", { class: "help" }, `Empty: the hand's own (${hand.rules_version}).`)), replay);
    again.addEventListener("submit", (e) => {
      e.preventDefault();
      run(replay, async () => {
        const json = version.value ? { rules_version: Number(version.value) } : {};
        const r = await api(`/v1/disputes/${encodeURIComponent(d.id)}/readjudications`, { method: "POST", json });
        await show();
        document.getElementById(`readjudication-${d.id}`)?.replaceChildren(differences(r));
      });
    });
    return [evidence, again, result];
  }

  const decisions = new Map(); // dispute id → its decision's writer, kept as the list is redrawn

  // Who a correction may move treasure between: the hand's players (their wallets) and the house.
  const parties = () => [["house", "the house"], ...(hand.seats || []).filter((s) => s.player_id)
    .map((s) => [s.player_id, `${s.name ?? "erased"} (${s.player_id})`])];

  function correctionRow(d, n) {
    const pick = (id, label, chosen) => el("div", { class: "field" }, el("label", { for: id }, label),
      el("select", { id, name: id }, parties().map(([v, text]) =>
        el("option", { value: v, selected: v === chosen ? "" : null }, text))));
    return el("fieldset", { class: "filters correction" },
      el("legend", {}, `Correction ${n}`),
      pick(`from-${d.id}-${n}`, "From", "house"),
      pick(`to-${d.id}-${n}`, "To", parties()[1]?.[0] ?? "house"),
      el("div", { class: "field" }, el("label", { for: `amount-${d.id}-${n}` }, "Amount"),
        el("input", { id: `amount-${d.id}-${n}`, type: "number", min: 1, step: 1, inputmode: "numeric" })));
  }

  function decision(d) {
    if (!decisions.has(d.id)) decisions.set(d.id, writer());
    const note = el("textarea", { id: `decision-${d.id}`, required: true, maxlength: 2000, rows: 2 });
    const rows = el("div", {}, correctionRow(d, 1));
    const more = el("button", { type: "button", class: "secondary" }, "Add a correction");
    more.addEventListener("click", () => rows.append(correctionRow(d, rows.children.length + 1)));
    const resolve = el("button", { type: "submit", value: "resolve" }, "Resolve with these corrections");
    // A rejection pays nothing: the corrections' fields, which it ignores, must not hold it up.
    const reject = el("button", { type: "submit", value: "reject", class: "secondary", formnovalidate: true },
      "Reject: pay nothing");
    const form = el("form", { class: "decision", "aria-label": `Decide ${d.id}` },
      el("div", { class: "field" }, el("label", { for: `decision-${d.id}` }, "Decision"), note,
        el("span", { class: "help" }, "Why: the dispute keeps it. A resolution pays each correction" +
          " through the ledger, all or none.")),
      rows, more, el("div", { class: "filters" }, resolve, reject));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const button = e.submitter ?? resolve;
      const path = `/v1/disputes/${encodeURIComponent(d.id)}`;
      if (button.value === "reject" && !note.reportValidity()) return; // the note it keeps is needed
      run(button, async () => {
        if (button.value === "reject") {
          await decisions.get(d.id)(`${path}/rejection`, { json: { note: note.value.trim() } });
        } else {
          // An amount left empty is a row not filled in; one filled in badly is the API's to refuse.
          const corrections = [...rows.querySelectorAll("fieldset.correction")]
            .map((f) => [...f.querySelectorAll("select, input")].map((x) => x.value))
            .filter(([, , amount]) => amount !== "")
            .map(([from, to, amount]) => ({ from, to, amount: Number(amount) }));
          await decisions.get(d.id)(`${path}/resolution`, { json: { note: note.value.trim(), corrections } });
        }
        await show();
      });
    });
    return form;
  }

  const decides = who.role === "operator" && (who.scopes || []).includes("disputes:write");

  function article(d) {
    return el("article", { class: "panel dispute", id: d.id, "aria-labelledby": `h-${d.id}` },
      el("h3", { id: `h-${d.id}` }, `Dispute ${d.id} `, el("span", { class: ["badge", badge[d.status]] }, d.status)),
      el("p", {}, isolate(d.reason)),
      el("p", { class: "muted" }, `opened by the ${d.opened_by}, ${when(d.opened_at)}`),
      d.evidence.length ? el("ul", { "aria-label": `Evidence of ${d.id}` }, d.evidence.map((e) =>
        el("li", {}, `${isolate(e.note)} (${e.attached_by}, ${when(e.attached_at)})`))) : null,
      d.readjudications.length ? el("ul", { "aria-label": `Re-adjudications of ${d.id}` }, d.readjudications.map((r) =>
        el("li", {}, outcome(r)))) : null,
      d.resolution ? el("p", {}, el("strong", {}, `${d.status}: `), isolate(d.resolution.note)) : null,
      correctionsTable(d),
      d.status === "open" && mayAct ? actions(d) : null,
      d.status === "open" && decides ? decision(d) : null);
  }

  async function show() {
    try {
      const got = await api(`/v1/disputes?hand_id=${encodeURIComponent(hand.id)}&limit=200`);
      list.replaceChildren(...(got.items.length ? got.items.map(article)
        : [el("p", { class: "muted" }, "No dispute about this hand.")]));
    } catch (e) {
      showProblem(problem, e);
    }
  }

  const reason = el("textarea", { id: "dispute-reason", required: true, maxlength: 2000, rows: 2 });
  const open = el("button", { type: "submit" }, "Open a dispute");
  const form = el("form", { class: "filters", "aria-label": "Open a dispute" },
    el("div", { class: "field" }, el("label", { for: "dispute-reason" }, "Reason"), reason,
      el("span", { class: "help" }, "What you dispute about this hand.")), open);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    run(open, async () => {
      await opens("/v1/disputes", { json: { hand_id: hand.id, reason: reason.value.trim() } });
      reason.value = "";
      await show();
    });
  });
  show();
  return el("section", { "aria-labelledby": "h-disputes", id: "disputes" },
    el("h2", { id: "h-disputes" }, "Disputes"),
    el("p", { class: "help" }, "A dispute is re-adjudicated by replaying the hand under its rules version or a newer one;" +
      " one the operator resolves pays corrective postings through the ledger, never an edit of the log."),
    mayAct ? form : null, problem, list);
}
