// The operator's keys on /console: make one with a name, scopes and an optional expiry (its
// secret shown once), list them, rotate one (a new secret, shown once) and revoke one. Shown to
// a key that holds `keys:admin`; it may grant only the scopes it holds, as the API enforces.
import { api, el, isolate, showProblem, when } from "../banco.js";
import { busy, field, tell, writer } from "./console_forms.js";

// A key's secret, shown once.
const KEPT = { id: "key-secret", advice: "Store it where the key's holder reads it." };

export function keysSection(who) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const note = el("div", { class: "notice", hidden: true, "aria-live": "polite", id: "key-note" });
  const name = el("input", { id: "new-key-name", name: "name", required: true, maxlength: 100, autocomplete: "off" });
  const expires = el("input", { id: "new-key-expires", name: "expires_at", type: "datetime-local" });
  const scopes = el("fieldset", { class: "options", id: "new-key-scopes" }, el("legend", {}, "Scopes"));
  const go = el("button", { type: "submit" }, "Create the key");
  const form = el("form", { class: "filters", "aria-label": "Create an operator key" },
    field("new-key-name", "Key name", name, "Whose or what it is for: a desk, a monitoring system."),
    field("new-key-expires", "Expires (optional)", expires, "Your local time; empty: never."),
    scopes, go);
  const body = el("tbody");
  const table = el("table", { class: "data", id: "operator-keys" },
    el("caption", {}, "Operator keys, oldest first (the bootstrap key is not listed)"),
    el("thead", {}, el("tr", {}, ["Key", "Name", "Scopes", "Status", "Expires", "Action"].map((h) =>
      el("th", { scope: "col" }, h)))),
    body);
  let shownScopes = false;
  // Kept across the list's redraws: a rotation sent again after its answer was lost is the same.
  const writes = { create: writer(), rotate: writer(), revoke: writer() };

  function row(k) {
    const live = k.status === "active";
    const rotate = el("button", { type: "button", class: "secondary", "aria-label": `Rotate key ${k.id}` }, "Rotate");
    const revoke = el("button", { type: "button", class: "danger", "aria-label": `Revoke key ${k.id}` }, "Revoke");
    rotate.addEventListener("click", () => busy(rotate, { problem, note }, async () => {
      const got = await writes.rotate(`/v1/keys/${encodeURIComponent(k.id)}/rotation`);
      tell(note, `Key ${got.key.id} (${isolate(got.key.name)}) has a new secret; the old one no longer works:`, got.secret, KEPT);
      await show();
    }));
    revoke.addEventListener("click", () => busy(revoke, { problem, note }, async () => {
      await writes.revoke(`/v1/keys/${encodeURIComponent(k.id)}`, { method: "DELETE" });
      tell(note, `Key ${k.id} (${isolate(k.name)}) is revoked: it no longer works.`);
      await show();
    }));
    return el("tr", {},
      el("td", { class: "mono" }, k.id), el("td", {}, isolate(k.name)), el("td", { class: "mono" }, k.scopes.join(" ")),
      el("td", {}, el("span", { class: ["badge", k.status] }, k.status)),
      el("td", {}, k.expires_at ? when(k.expires_at) : "never"),
      el("td", {}, live ? el("div", { class: "actions" }, rotate, revoke) : ""));
  }

  async function show() {
    try {
      const got = await api("/v1/keys");
      body.replaceChildren(...got.items.map(row));
      if (!got.items.length) body.append(el("tr", {}, el("td", { colspan: 6, class: "muted" }, "No operator key yet.")));
      if (!shownScopes) {
        shownScopes = true;
        scopes.append(...got.scopes.map((s) => {
          const id = `scope-${s.name.replace(":", "-")}`;
          const held = who.scopes.includes(s.name);
          return el("div", {},
            el("input", { id, type: "checkbox", name: "scopes", value: s.name, disabled: !held,
              "aria-describedby": `${id}-help` }), " ",
            el("label", { for: id, class: "mono" }, s.name), " ",
            el("span", { class: "help", id: `${id}-help` }, s.description,
              held ? "" : " (Your key does not hold it, so cannot grant it.)"));
        }));
      }
    } catch (e) {
      showProblem(problem, e);
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    busy(go, { problem, note }, async () => {
      const chosen = [...scopes.querySelectorAll("input:checked")].map((i) => i.value);
      // Said in the form's words: the API's would be "scopes: Length must be between 1 and 16."
      if (!chosen.length) throw new Error("Tick at least one scope: a key with none could do nothing.");
      const json = { name: name.value.trim(), scopes: chosen };
      if (expires.value) json.expires_at = new Date(expires.value).toISOString();
      const made = await writes.create("/v1/keys", { json });
      tell(note, `Created key ${made.key.id} (${isolate(made.key.name)}) with ${made.key.scopes.join(", ")}. Its secret:`, made.secret, KEPT);
      name.value = "";
      expires.value = "";
      scopes.querySelectorAll("input:checked").forEach((i) => { i.checked = false; });
      await show();
    });
  });
  show();
  return el("section", { class: "panel", "aria-labelledby": "h-keys", id: "keys" },
    el("h2", { id: "h-keys" }, "Operator keys"),
    el("p", { class: "help" }, "Each key may do only what its scopes open; give each desk or system its own, and revoke it when it is done."),
    form, problem, note,
    el("div", { class: "table-wrap" }, table));
}
