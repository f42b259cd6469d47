// The operator's desk on /console: registering players and auditors (their token shown once),
// deposits and withdrawals, tokens issued and revoked, erasure, and tables created from the
// games' own option schemas. Every change is a /v1 API call made with the operator's token,
// each form's through its own writer(), so that one sent again after its answer was lost is
// done once.
import { el, fill, isolate, money, playerName, showProblem } from "../banco.js";
import { busy, field, tell, writer } from "./console_forms.js";
import { variantText } from "./table_views.js";

// --- players ----------------------------------------------------------------------------------

export function registerPlayer(onDone) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const note = el("div", { class: "notice", hidden: true, "aria-live": "polite", id: "registered" });
  const name = el("input", { id: "new-player-name", name: "name", required: true, maxlength: 100, autocomplete: "off" });
  const go = el("button", { type: "submit" }, "Register the player");
  const form = el("form", { class: "filters", "aria-label": "Register a player" },
    field("new-player-name", "Name", name), go);
  const write = writer();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    busy(go, { problem, note }, async () => {
      const made = await write("/v1/players", { json: { name: name.value.trim() } });
      tell(note, `Registered ${isolate(made.player.name)} (${made.player.id}). Their token:`, made.token);
      name.value = "";
      onDone(made.player);
    });
  });
  return el("section", { class: "panel", "aria-labelledby": "h-register" },
    el("h2", { id: "h-register" }, "Register a player"), form, problem, note);
}

// The desk for one player: deposit and withdraw (with `treasure`), tokens and erasure (with
// `players`, the key's players:write).
export function playerDesk(onChange, { treasure = true, players = true } = {}) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const note = el("div", { class: "notice", hidden: true, "aria-live": "polite", id: "desk-note" });
  const body = el("div", {}, el("p", { class: "muted" }, "Choose a player in the list (Manage) to deposit, withdraw, issue or revoke a token, or erase him."));
  const section = el("section", { class: "panel", "aria-labelledby": "h-desk", id: "desk" },
    el("h2", { id: "h-desk" }, "Player desk"), problem, note, body);
  // One writer a form, kept from one player to the next: a retry for the same player, after
  // another was shown between, is still the same request.
  const writes = { deposits: writer(), withdrawals: writer(), token: writer(), revoke: writer(),
    erasure: writer() };

  function moneyForm(p, kind) {
    const word = kind === "deposits" ? "Deposit" : "Withdraw";
    const id = `desk-${kind}`;
    const amount = el("input", { id: `${id}-amount`, name: "amount", type: "number", min: 1, step: 1, required: true, inputmode: "numeric" });
    const reason = el("input", { id: `${id}-reason`, name: "reason", required: true, maxlength: 200,
      value: kind === "deposits" ? "cash at the desk" : "cash paid out" });
    const go = el("button", { type: "submit" }, word);
    const form = el("form", { class: "filters", "aria-label": `${word} for ${playerName(p)}` },
      field(`${id}-amount`, `${word} amount`, amount), field(`${id}-reason`, `${word} reason`, reason), go);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      busy(go, { problem, note }, async () => {
        const write = writes[kind];
        const done = await write(`/v1/players/${encodeURIComponent(p.id)}/${kind}`, {
          json: { amount: Number(amount.value), reason: reason.value.trim() } });
        const did = `${word === "Deposit" ? "Deposited" : "Withdrew"} ${money(Number(amount.value))} ` +
          `${word === "Deposit" ? "to" : "from"} ${playerName(p)}`;
        // A replayed answer is the first one's, balance and all: the wallet may have moved since.
        tell(note, write.replayed
          ? `${did} (done when first sent; Banco answered as it did then): balance ${money(done.balance.balance)}` +
            " as of that write, which may have moved since."
          : `${did}: balance now ${money(done.balance.balance)}.`);
        amount.value = "";
        onChange();
      });
    });
    return form;
  }

  function show(p) {
    showProblem(problem, null);
    note.hidden = true;
    const path = `/v1/players/${encodeURIComponent(p.id)}`;
    const issue = el("button", { type: "button", class: "secondary" }, "Issue a new token");
    issue.addEventListener("click", () => busy(issue, { problem, note }, async () => {
      const got = await writes.token(`${path}/token`);
      tell(note, `A new token for ${playerName(p)} (the ones before stop working):`, got.token);
    }));
    const revoke = el("button", { type: "button", class: "secondary" }, "Revoke tokens");
    revoke.addEventListener("click", () => busy(revoke, { problem, note }, async () => {
      await writes.revoke(`${path}/token`, { method: "DELETE" });
      tell(note, `${playerName(p)}'s tokens are revoked: he is signed out until a new token is issued.`);
    }));
    const confirmBox = el("div", { class: "notice", hidden: true, id: "erase-confirm" });
    const erase = el("button", { type: "button", class: "danger" }, "Erase…");
    erase.addEventListener("click", () => {
      const yes = el("button", { type: "button", class: "danger" }, `Yes, erase ${playerName(p)}`);
      const no = el("button", { type: "button", class: "secondary" }, "Cancel");
      no.addEventListener("click", () => { confirmBox.hidden = true; erase.focus(); });
      yes.addEventListener("click", () => busy(yes, { problem, note }, async () => {
        const erased = await writes.erasure(`${path}/erasure`);
        confirmBox.hidden = true;
        show(erased);
        tell(note, `Player ${erased.id} is erased: his name reads as erased everywhere.`);
        onChange();
      }));
      fill(confirmBox, el("p", {}, el("strong", {}, `Erase ${playerName(p)}? `),
        "His name is destroyed for good (his key is deleted, so the name in the log can never be read again) " +
        "and his tokens are revoked; none can be issued to him again. His id, balance, hands and every " +
        "verification stay. This cannot be undone."), el("div", { class: "actions" }, yes, no));
      confirmBox.hidden = false;
      yes.focus();
    });
    fill(body,
      el("p", {}, el("strong", { id: "desk-name" }, playerName(p)), " ",
        el("span", { class: "mono muted" }, p.id), " · ",
        el("a", { href: `/players/${encodeURIComponent(p.id)}` }, "wallet")),
      p.erased ? el("p", { class: "muted" }, "Erased: no token can be issued to him.") : [
        treasure ? [moneyForm(p, "deposits"), moneyForm(p, "withdrawals")] : null,
        players ? [el("div", { class: "actions" }, issue, revoke, erase), confirmBox] : null]);
    section.scrollIntoView({ block: "nearest" });
  }
  return { section, show };
}

// --- auditors ---------------------------------------------------------------------------------

const AUDITOR_ID = /^au_[0-9a-f]{16}$/; // as Banco makes them (service/application/auditors.py)

export function auditorsDesk() {
  const problem = el("div", { class: "problem-box", hidden: true });
  const note = el("div", { class: "notice", hidden: true, "aria-live": "polite", id: "auditor-note" });
  const name = el("input", { id: "new-auditor-name", name: "name", required: true, maxlength: 100, autocomplete: "off" });
  const go = el("button", { type: "submit" }, "Register the auditor");
  const form = el("form", { class: "filters", "aria-label": "Register an auditor" },
    field("new-auditor-name", "Auditor's name", name), go);
  const writes = { register: writer(), issue: writer(), revoke: writer() };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    busy(go, { problem, note }, async () => {
      const made = await writes.register("/v1/auditors", { json: { name: name.value.trim() } });
      tell(note, `Registered auditor ${isolate(made.name)} (${made.id}). Their token:`, made.token);
      auditorId.value = made.id;
      name.value = "";
    });
  });
  const auditorId = el("input", { id: "auditor-id", name: "auditor", autocomplete: "off", placeholder: "au_…" });
  const issue = el("button", { type: "button", class: "secondary" }, "Issue an auditor token");
  const revoke = el("button", { type: "button", class: "secondary" }, "Revoke the auditor's tokens");
  // The id checked here: an empty or mistyped one went out as /v1/auditors//token and came back
  // as the web server's bare 404 page.
  const path = () => {
    const id = auditorId.value.trim();
    const ok = AUDITOR_ID.test(id);
    if (ok) auditorId.removeAttribute("aria-invalid");
    else auditorId.setAttribute("aria-invalid", "true");
    if (!ok) {
      auditorId.focus();
      throw new Error(id ? `"${id}" is not an auditor id: one is au_ and 16 hex digits, as Register the auditor shows it.`
        : "Type the auditor's id first (au_ and 16 hex digits, as Register the auditor shows it).");
    }
    return `/v1/auditors/${encodeURIComponent(id)}/token`;
  };
  issue.addEventListener("click", () => busy(issue, { problem, note }, async () => {
    const got = await writes.issue(path());
    tell(note, `A new token for auditor ${got.subject}:`, got.token);
  }));
  revoke.addEventListener("click", () => busy(revoke, { problem, note }, async () => {
    await writes.revoke(path(), { method: "DELETE" });
    tell(note, `Auditor ${auditorId.value.trim()}'s tokens are revoked.`);
  }));
  return el("section", { class: "panel", "aria-labelledby": "h-auditors" },
    el("h2", { id: "h-auditors" }, "Auditors"), form,
    el("div", { class: "filters" }, field("auditor-id", "Auditor id", auditorId), issue, revoke),
    problem, note);
}

// --- tables -----------------------------------------------------------------------------------

// One option of a game's schema (GET /v1/games) as a form control with its limits.
function optionInput(key, spec) {
  const id = `opt-${key}`;
  const label = `${key.replaceAll("_", " ")}${spec.min !== undefined || spec.max !== undefined
    ? ` (${spec.min ?? "…"}–${spec.max ?? "…"})` : ""}`;
  let input;
  if (spec.choices) {
    input = el("select", { id, name: key, dataset: { option: key, type: spec.type } },
      spec.required || spec.default !== undefined ? null : el("option", { value: "" }, "(none)"),
      spec.choices.map((c) => el("option", { value: String(c), selected: c === spec.default }, String(c))));
  } else if (spec.type === "boolean") {
    input = el("input", { id, name: key, type: "checkbox", checked: spec.default === true,
      dataset: { option: key, type: "boolean" } });
  } else if (spec.type === "integer" || spec.type === "float" || spec.type === "number") {
    input = el("input", { id, name: key, type: "number", inputmode: "numeric", min: spec.min, max: spec.max,
      step: spec.type === "integer" ? 1 : "any", value: spec.default ?? null, required: !!spec.required,
      dataset: { option: key, type: spec.type } });
  } else {
    input = el("input", { id, name: key, value: spec.default ?? null, required: !!spec.required,
      dataset: { option: key, type: spec.type } });
  }
  return field(id, label, input, spec.default !== undefined && spec.default !== null ? `default ${spec.default}` : null);
}

function optionsOf(form) {
  const out = {};
  for (const input of form.querySelectorAll("[data-option]")) {
    const { option, type } = input.dataset;
    if (type === "boolean") out[option] = input.checked;
    else if (input.value === "") continue;
    else if (type === "integer") out[option] = Number(input.value);
    else if (type === "float" || type === "number") out[option] = Number(input.value);
    else out[option] = input.value;
  }
  return out;
}

export function createTable(games, onDone) {
  const problem = el("div", { class: "problem-box", hidden: true });
  const note = el("div", { class: "notice", hidden: true, "aria-live": "polite", id: "table-created" });
  const game = el("select", { id: "new-table-game", name: "game", required: true },
    games.map((g) => el("option", { value: g.name }, g.title || g.name)));
  const variant = el("select", { id: "new-table-variant", name: "variant" });
  const options = el("fieldset", { class: "options" });
  const go = el("button", { type: "submit" }, "Create the table");
  const form = el("form", { "aria-label": "Create a table" },
    el("div", { class: "filters" }, field("new-table-game", "Table game", game),
      field("new-table-variant", "Variant", variant)), options, go);
  function showGame() {
    const g = games.find((x) => x.name === game.value);
    if (!g) return;
    // An option the variants name one for one (Cassino's `variant`: each variant stands for
    // that option set to it, and nothing else) is the Variant select itself: drawn as a second
    // control it offered the same choices under the same name, two fields a screen reader could
    // not tell apart. The select stands for it, starting at its default.
    const same = Object.entries(g.options).find(([k, spec]) => g.variants.length && spec.choices
      && g.variants.every((v) => Object.keys(g.variant_options[v] || {}).join() === k)
      && spec.choices.length === g.variants.length
      && spec.choices.every((c) => g.variants.some((v) => g.variant_options[v][k] === c)));
    const start = same && g.variants.find((v) => g.variant_options[v][same[0]] === same[1].default);
    fill(variant, same ? null : el("option", { value: "" }, "(none: the options below)"),
      g.variants.map((v) => el("option", { value: v, selected: v === start },
        variantText(v) === v ? v : `${variantText(v)} (${v})`)));
    fill(options, el("legend", {}, `Options of ${g.title || g.name} (${g.min_players}–${g.max_players} players)`),
      Object.entries(g.options).filter(([k]) => !same || k !== same[0]).map(([k, spec]) => optionInput(k, spec)));
  }
  // A variant stands for some options: those are its, not the form's.
  variant.addEventListener("change", () => {
    const g = games.find((x) => x.name === game.value);
    const sets = (g && g.variant_options[variant.value]) || {};
    for (const input of options.querySelectorAll("[data-option]")) {
      const fixed = Object.hasOwn(sets, input.dataset.option);
      input.disabled = fixed;
      if (fixed) {
        if (input.type === "checkbox") input.checked = !!sets[input.dataset.option];
        else input.value = String(sets[input.dataset.option]);
      }
    }
  });
  game.addEventListener("change", showGame);
  showGame();
  const write = writer();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!form.reportValidity()) return;
    busy(go, { problem, note }, async () => {
      const body = { game: game.value, options: optionsOf(form) };
      if (variant.value) {
        body.variant = variant.value;
        const g = games.find((x) => x.name === game.value);
        for (const k of Object.keys(g.variant_options[variant.value] || {})) delete body.options[k];
      }
      const t = await write("/v1/tables", { json: body });
      fill(note, el("p", {}, "Created table ",
        el("a", { href: `/tables/${encodeURIComponent(t.id)}`, class: "mono" }, t.id),
        ` (${(games.find((x) => x.name === t.game) || {}).title || t.game}).`));
      note.hidden = false;
      onDone(t);
    });
  });
  return el("section", { class: "panel", "aria-labelledby": "h-new-table" },
    el("h2", { id: "h-new-table" }, "Create a table"), form, problem, note);
}

// Close an open table: its seats cashed out, the table over. Run as the other forms are (busy()),
// so that a close whose answer was lost says it may have been done and may be sent again.
const closes = writer();
export function closeTable(t, button, problem, onDone) {
  return busy(button, problem, async () => {
    await closes(`/v1/tables/${encodeURIComponent(t.id)}/close`);
    onDone();
  });
}
