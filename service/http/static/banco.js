// What every page shares: the token, calls to the /v1 API, a DOM builder, problems, cards and
// a table's stream. Plain ES module, no build step; each page is static/pages/<page>.js.
//
// The token lives in this tab's sessionStorage only, and goes to the API as
// `Authorization: Bearer`; never in a URL, never in a cookie.

const KEY = "banco.token";

export function token() {
  return sessionStorage.getItem(KEY);
}

let me = null; // whoami()'s answer for the current token, once asked
let trying = null; // the token signIn() is trying: its 401 is a wrong token typed, not a sign-out

export async function signIn(value) {
  const t = (value || "").trim();
  if (!t) throw new ApiProblem(401, "unauthorized", "enter a token");
  const previous = token();
  sessionStorage.setItem(KEY, t);
  me = null;
  trying = t;
  try {
    return await whoami();
  } catch (e) {
    if (previous) sessionStorage.setItem(KEY, previous);
    else sessionStorage.removeItem(KEY);
    me = null;
    throw e;
  } finally {
    trying = null;
  }
}

// The event a page hears when the API refuses the token it is signed in with (401: revoked, or
// its player erased): the tab is signed out by then. `detail` is the ApiProblem.
export const SIGNED_OUT = "banco:signed-out";

export function signOut() {
  sessionStorage.removeItem(KEY);
  me = null;
}

// {role, id, name} of the token signed in with (GET /v1/me), or null when signed out.
export async function whoami() {
  if (!token()) return null;
  if (me === null) me = await api("/v1/me");
  return me;
}

// A problem+json answer of the API (or a failure to reach it) as an exception.
export class ApiProblem extends Error {
  constructor(status, code, detail, body = {}) {
    super(detail || code || `HTTP ${status}`);
    this.name = "ApiProblem";
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.body = body;
  }
}

// Banco's clock as this browser reckons it: a deadline the API gives (a turn's) is counted down
// on it, not on the device's clock, which may be off by any amount. Each answer's `Date` header
// says Banco's time in whole seconds (taken as the middle of its second); the difference from
// this clock is kept, and changed only when an answer puts it more than a second away, so that
// a countdown does not wobble from one answer to the next.
let clockOffset = 0;
export function serverNow() {
  return Date.now() + clockOffset;
}

function heardClock(response) {
  const said = Date.parse(response.headers.get("Date") || "");
  if (Number.isNaN(said)) return;
  const offset = said + 500 - Date.now();
  if (Math.abs(offset - clockOffset) > 1000) clockOffset = offset;
}

// The raw Response of an API call, after the problem check: for bodies that are not JSON.
export async function request(path, { method = "GET", json, headers = {}, accept, signal } = {}) {
  const h = new Headers(headers);
  const t = token();
  if (t) h.set("Authorization", `Bearer ${t}`);
  if (accept) h.set("Accept", accept);
  let body;
  if (json !== undefined) {
    h.set("Content-Type", "application/json");
    body = JSON.stringify(json);
  }
  let response;
  try {
    response = await fetch(path, { method, headers: h, body, signal, cache: "no-store" });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiProblem(0, "unreachable", "Banco cannot be reached; check the connection");
  }
  heardClock(response);
  if (!response.ok) {
    let problem = {};
    try {
      problem = await response.json();
    } catch {
      /* not problem+json: the status says enough */
    }
    const error = new ApiProblem(response.status, problem.code || "http_" + response.status,
      problem.detail || response.statusText, problem);
    error.retryAfter = Number(response.headers.get("Retry-After")) || null;
    // The token this tab is signed in with no longer works: signed out, and every part of the
    // page that acted with it is told, once.
    if (response.status === 401 && t && t !== trying && token() === t) {
      signOut();
      dispatchEvent(new CustomEvent(SIGNED_OUT, { detail: error }));
    }
    throw error;
  }
  return response;
}

// An API call: the parsed JSON (or the text, for another type; null for 204).
export async function api(path, options = {}) {
  return parsed(await request(path, options));
}

function parsed(response) {
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") && !type.includes("ndjson") ? response.json() : response.text();
}

// The writes of one form (or button): `write(path, {method, json})` is api()'s call, sent with an
// Idempotency-Key. A write that got no answer (Banco unreachable, the answer lost, or a 5xx)
// may have been done: sent again as it was, it goes with the same key, so Banco does it at most
// once and answers what it answered the first time (`Idempotent-Replayed: true`, which sets
// `write.replayed`: its answer tells of the first time, not of now). Any other
// write takes a new key: one that differs (its path or its body: Banco refuses a key reused for
// another request, 422 idempotency_key_reused), or one sent after an answer, a success or a
// refusal (a refusal changed nothing, and the same request sent again is another try).
export function writer() {
  let unanswered = null; // {said, key} of the last write, while it has had no answer
  return async function write(path, { method = "POST", json, ...options } = {}) {
    // A write bound to a version (If-Match) is another write at another version.
    const said = JSON.stringify([method, path, json ?? null, options.headers?.["If-Match"] ?? null]);
    if (unanswered?.said !== said) unanswered = { said, key: crypto.randomUUID() };
    const sent = unanswered;
    try {
      const response = await request(path, { ...options, method, json,
        headers: { ...options.headers, "Idempotency-Key": sent.key } });
      if (unanswered === sent) unanswered = null;
      write.replayed = response.headers.get("Idempotent-Replayed") === "true";
      return parsed(response);
    } catch (e) {
      e.resendable = e.status === 0 || e.status >= 500;
      if (!e.resendable && unanswered === sent) unanswered = null;
      throw e;
    }
  };
}

// Said under the problem of a write that may have been done (`resendable`): sending it again is
// safe.
export function resendHint() {
  return el("p", { class: "help", "data-resend": "" }, "It may have been done all the same: send it again " +
    "as it is, and Banco does it only once.");
}

// The games' display names, name → title, as GET /v1/games (public) gives them: read once per
// page. People read a game's title ("Casino pirate"), never its internal name; a game the list
// lacks (or a list that could not be read) shows its name.
let titles = null;
export function gameTitles() {
  titles = titles || api("/v1/games").then((games) => Object.fromEntries(games.map((g) => [g.name, g.title])),
    () => {
      titles = null;
      return {};
    });
  return titles;
}

export function gameTitle(known, name) {
  return known[name] || name;
}

// el("a", {href: "/", class: "x", onclick: fn, "aria-label": "..."}, "text", child, [more])
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      node.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (name === "dataset") {
      Object.assign(node.dataset, value);
    } else if (value === true) {
      node.setAttribute(name, "");
    } else {
      node.setAttribute(name, String(value));
    }
  }
  append(node, children);
  return node;
}

// Replace `node`'s children with `children`, as el() takes them (nested arrays, null left out).
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// A request of a form (or panel) `box` in flight: `box` is aria-busy and `status` (a role=status
// element kept in the page) says what is being sent; `on` false clears both once the answer came.
export function sending(box, status, on, text = "Sending…") {
  if (on) box.setAttribute("aria-busy", "true");
  else box.removeAttribute("aria-busy");
  status.textContent = on ? text : "";
  status.hidden = !on;
}

// Whether `problem` is a failure to reach Banco at all (no answer), which a later answer mends.
export function unreachable(problem) {
  return !!problem && problem.status === 0 && problem.code === "unreachable";
}

// Show `problem` (an ApiProblem or any error) in `where`, replacing what it showed; null clears.
export function showProblem(where, problem) {
  where.replaceChildren();
  if (!problem) {
    where.hidden = true;
    delete where.dataset.code;
    return;
  }
  where.hidden = false;
  where.dataset.code = problem.code || "";
  where.setAttribute("role", "alert");
  const status = problem.status ? `${problem.status} ` : "";
  const code = problem.code ? el("code", {}, problem.code) : null;
  where.append(el("p", { class: "problem" },
    el("strong", {}, status), code, code ? ": " : "", problem.detail || problem.message || String(problem)));
  // What the API says of each field (`errors`), which a form's person needs to mend it:
  // "reason: Length must be between 1 and 200."
  const fields = fieldErrors(problem.body?.errors);
  if (fields.length) {
    where.append(el("ul", { class: "problem-fields" },
      fields.map(([name, message]) => el("li", {}, name ? `${name}: ${message}` : message))));
  }
}

// A problem's `errors` as [field, message] pairs: nested by where they were read (`json`,
// `query`), by field and by list index; `_schema` names the whole object.
const LOCATIONS = new Set(["json", "query", "headers", "path", "form"]);
function fieldErrors(errors, path = []) {
  if (typeof errors === "string") return [[path.join("."), errors]];
  if (Array.isArray(errors)) return errors.flatMap((e) => fieldErrors(e, path));
  if (!errors || typeof errors !== "object") return [];
  return Object.entries(errors).flatMap(([key, value]) =>
    fieldErrors(value, (path.length === 0 && LOCATIONS.has(key)) || key === "_schema" ? path : [...path, key]));
}

// Cards. French ids: rank + s/h/d/c (`10d`, `Qs`); Spanish: 1..7, 10..12 + o/c/e/b; the pirate
// decks' `gem5.2`, `gold.1`, `pebble.3`, `skeleton.1` and pirate pairs' `7.3`. A null id is a
// card the API hid from this viewer: shown face down.
//
// A card reads as words to a screen reader (its label, "7 of oros"), and shows its rank and its
// suit as text: the Spanish and pirate suits are emoji, which a system without an emoji font
// draws as boxes, so their cards also show the suit's word, and the emoji only where this
// browser can draw it. French suits (♠♥♦♣) are in every text font.
const FRENCH = { s: ["♠", "spades", "black"], h: ["♥", "hearts", "red"],
  d: ["♦", "diamonds", "red"], c: ["♣", "clubs", "black"] };
const SPANISH = { o: ["🪙", "oros", "gold"], c: ["🏆", "copas", "red"],
  e: ["🗡", "espadas", "blue"], b: ["🪵", "bastos", "green"] };
const FRENCH_RANKS = { A: "ace", J: "jack", Q: "queen", K: "king" };
const SPANISH_RANKS = { 1: "as", 10: "sota", 11: "caballo", 12: "rey" };
const PIRATE = { gold: ["🪙", "½", "gold", "gold coin, worth a half", "gold"],
  pebble: ["🪨", "0", "pebble", "pebble, worth nothing", "black"],
  skeleton: ["💀", "★", "skeleton", "skeleton, worth what its holder declares", "black"] };

// {rank, suit (its symbol), word (the suit's word shown on the card, or "" where the symbol is
// text), label (the card in words), color}.
export function describeCard(id, { deck } = {}) {
  if (id === null || id === undefined) return { rank: "", suit: "", word: "", label: "face-down card", color: "back" };
  let m = /^(gem)(\d)\.\d+$|^(gold|pebble|skeleton)\.\d+$/.exec(id);
  if (m) {
    if (m[1]) return { rank: m[2], suit: "💎", word: "gem", label: `gem ${m[2]}`, color: "blue" };
    const [sym, value, word, label, color] = PIRATE[m[3]];
    return { rank: value, suit: sym, word, label, color };
  }
  m = /^(\d+)\.\d+$/.exec(id);
  if (m) return { rank: m[1], suit: "", word: "", label: `pirate pair ${m[1]}`, color: "black" };
  m = /^(A|K|Q|J|\d{1,2})([shdcoeb])$/.exec(id);
  if (!m) return { rank: id, suit: "", word: "", label: `card ${id}`, color: "black" };
  const [, rank, s] = m;
  const spanish = deck === "spanish" || (deck !== "french" &&
    ("oeb".includes(s) || (s === "c" && ["1", "11", "12"].includes(rank))));
  const [sym, suitName, color] = (spanish ? SPANISH : FRENCH)[s];
  const rankName = (spanish ? SPANISH_RANKS : FRENCH_RANKS)[rank] || rank;
  return { rank, suit: sym, word: spanish ? suitName : "", label: `${rankName} of ${suitName}`, color };
}

// Whether this browser draws `symbol` (an emoji) as a glyph rather than as the box of a missing
// one: drawn on a canvas, it must differ from a character no font has. Asked once per symbol.
const drawable = new Map();
export function canDraw(symbol) {
  if (!drawable.has(symbol)) {
    let ok = false;
    try {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 32;
      const g = canvas.getContext("2d", { willReadFrequently: true });
      const pixels = (text) => {
        g.clearRect(0, 0, 32, 32);
        g.fillText(text, 0, 0);
        return g.getImageData(0, 0, 32, 32).data.join();
      };
      g.textBaseline = "top";
      g.font = `24px ${getComputedStyle(document.documentElement).getPropertyValue("--emoji-font") || "sans-serif"}`;
      const drawn = pixels(symbol);
      ok = drawn !== pixels("\u{10FFFD}") && drawn !== pixels("");
    } catch {
      ok = false;
    }
    drawable.set(symbol, ok);
  }
  return drawable.get(symbol);
}

// A card as an element; `options.deck` ("french" or "spanish") settles ids both decks have.
export function card(id, options = {}) {
  const d = describeCard(id, options);
  if (d.color === "back") {
    return el("span", { class: "card back", role: "img", "aria-label": d.label, title: d.label });
  }
  const symbol = d.suit && (!d.word || canDraw(d.suit)) ? d.suit : "";
  return el("span", { class: ["card", `suit-${d.color}`, d.word && "worded"], role: "img", "aria-label": d.label,
    title: d.label },
    el("span", { class: "rank", "aria-hidden": "true" }, d.rank),
    symbol ? el("span", { class: ["suit", d.word && "emoji"], "aria-hidden": "true" }, symbol) : null,
    d.word ? el("span", { class: "suit-word", "aria-hidden": "true" }, d.word) : null);
}

// Server-Sent Events read with fetch (EventSource cannot send Authorization): yields
// {id, event, data} per message; comments (": keep-alive") are skipped.
export async function* sseMessages(response, signal) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let msg = { id: null, event: "message", data: [] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let nl;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (msg.data.length) yield { id: msg.id, event: msg.event, data: msg.data.join("\n") };
          msg = { id: null, event: "message", data: [] };
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "id") msg.id = val;
        else if (field === "event") msg.event = val;
        else if (field === "data") msg.data.push(val);
      }
      if (signal && signal.aborted) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

// Follow a table: `onTable(table)` with the table as GET /v1/tables/{id} shows it to you, first
// and then whenever the stream sends it (`turns=true`: when you have something to do);
// `onEvent(event)` for each of its events as you may see them, those after version `after`
// (by default the version the table was first read at: only news). Reconnects where it left off
// (Last-Event-ID) when the stream ends or breaks; `onProblem(problem)` hears of failures, and of
// null once connected again. The browser going offline is a failure at once (a stream open
// before may send nothing more, yet not break for a long while), and its coming back online
// reconnects at once rather than after the wait between tries. Returns {stop()}.
export function follow(tableId, onTable, onEvent, { onProblem = () => {}, after = null } = {}) {
  const base = `/v1/tables/${encodeURIComponent(tableId)}`;
  let last = after === null ? null : String(after);
  let stopped = false;
  let attempt = new AbortController(); // the read in progress: stopping, or going offline, ends it
  let wake = null; // ends the wait before the next try
  const offline = () => attempt.abort();
  const online = () => wake && wake();
  addEventListener("offline", offline);
  addEventListener("online", online);

  async function run() {
    let delay = 500;
    try {
      const table = await api(base, { signal: attempt.signal });
      if (last === null) last = String(table.version);
      onTable(table);
    } catch (e) {
      if (e.name === "AbortError" && stopped) return;
      onProblem(e.name === "AbortError" ? OFFLINE : e);
      return;
    }
    while (!stopped) {
      attempt = new AbortController();
      try {
        if (!navigator.onLine) throw OFFLINE;
        const response = await request(`${base}/stream?turns=true`,
          { headers: { "Last-Event-ID": last }, accept: "text/event-stream", signal: attempt.signal });
        onProblem(null);
        delay = 500;
        for await (const m of sseMessages(response, attempt.signal)) {
          const data = JSON.parse(m.data);
          if (m.event === "table") {
            onTable(data);
          } else {
            if (m.id !== null) last = m.id;
            onEvent(data);
          }
        }
        if (attempt.signal.aborted) throw OFFLINE; // the stream's reader ends quietly when aborted
      } catch (e) {
        if (stopped) return;
        const problem = e.name === "AbortError" ? OFFLINE : e;
        onProblem(problem);
        if (problem.status >= 400 && problem.status < 500 && problem.status !== 429) return;
        await new Promise((r) => {
          wake = r;
          setTimeout(r, problem.retryAfter ? problem.retryAfter * 1000 : delay);
        });
        wake = null;
        delay = Math.min(delay * 2, 10000);
      }
    }
  }

  run();
  return {
    stop() {
      stopped = true;
      attempt.abort();
      removeEventListener("offline", offline);
      removeEventListener("online", online);
      if (wake) wake();
    },
  };
}

const OFFLINE = new ApiProblem(0, "offline", "this device is offline");

// Save `blob` as a file named `name`, through a blob URL the browser downloads.
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name, class: "hidden" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// Text a person gave (a player's, an auditor's or a key's name, a dispute's reason) as the pages
// write it amid their own words: a name that holds right-to-left letters or bidi controls
// ("Mallory\u202e", an unclosed RIGHT-TO-LEFT OVERRIDE) is set between FIRST STRONG ISOLATE and
// POP DIRECTIONAL ISOLATE, so that it is drawn on its own and cannot reorder the words around
// it ("Seat 1 · Mallory · meneur" stays so; the isolate's end closes any override left open
// inside). A name of left-to-right letters, digits and punctuation alone cannot move its
// neighbours, and stays as typed. Used for every such text shown, in text and in labels alike.
const BIDI = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
export function isolate(text) {
  if (text === null || text === undefined) return text;
  const s = String(text);
  return BIDI.test(s) ? `\u2068${s}\u2069` : s;
}

// A player's name as the pages write it: an erased player's name is gone for good (the API gives
// null), so he is named as such, never "null".
export function playerName(player) {
  return player.erased || player.name === null || player.name === undefined ? "an erased player" : isolate(player.name);
}

// Whether the token `who` ({role, id, scopes}) may read the wallet of player `playerId` (GET
// /v1/players/{id}): a player his own only, an auditor every one, the operator with a key that
// holds `players:read`. A page links a player's wallet only for those who may open it.
export function mayReadWallet(who, playerId) {
  if (!who) return false;
  if (who.role === "player") return who.id === playerId;
  if (who.role === "operator") return (who.scopes || []).includes("players:read");
  return who.role === "auditor";
}

// An amount of treasure (an integer), with thousands grouped: 12,345.
export function money(n) {
  const amount = Number(n);
  // -0 (a sum of no bets, negated) is written "0", not "-0".
  return (amount === 0 ? 0 : amount).toLocaleString("en-US", { maximumFractionDigits: 0 });
}

// A date-time as this browser's locale writes it.
export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

// whoami(), asked until Banco answers: only a 401 says the token no longer works (null, signed
// out). A refusal for now (429, a 5xx) or no answer at all keeps the session: the header and the
// page say why nothing shows yet, and it is asked again (after the Retry-After Banco gave, else
// after a pause that grows to 30 s, or at once when the browser is back online).
async function whoamiAgain(name) {
  let wait = 2;
  for (;;) {
    try {
      const who = await whoami();
      document.getElementById("service-wait")?.remove();
      return who;
    } catch (e) {
      if (e.status === 401) {
        signOut();
        return null;
      }
      const pause = e.retryAfter || wait;
      wait = Math.min(wait * 2, 30);
      const why = unreachable(e) ? "Banco cannot be reached (check the connection)"
        : `Banco is refusing requests for now (${e.status} ${e.code}${e.detail ? `: ${e.detail}` : ""})`;
      name.textContent = "Signed in; waiting for Banco";
      document.getElementById("sign-out").hidden = false;
      let note = document.getElementById("service-wait");
      if (!note) {
        note = el("p", { id: "service-wait", class: "problem", role: "status" });
        document.getElementById("main").append(note);
      }
      note.textContent = `${why}. You are still signed in: this page asks again in ${pause} s.`;
      await new Promise((resolve) => {
        const again = () => {
          clearTimeout(timer);
          removeEventListener("online", again);
          resolve();
        };
        const timer = setTimeout(again, pause * 1000);
        addEventListener("online", again);
      });
    }
  }
}

// The header's sign-in state and the links for the role; each page module calls it first.
let headerHears = false;
export async function header() {
  const name = document.getElementById("who-name");
  const out = document.getElementById("sign-out");
  out.onclick = () => {
    signOut();
    location.assign("/");
  };
  if (!headerHears) {
    headerHears = true;
    addEventListener(SIGNED_OUT, () => {
      for (const link of document.querySelectorAll("[data-role]")) link.hidden = true;
      name.textContent = "Signed out: your token no longer works";
      out.hidden = true;
    });
  }
  const who = await whoamiAgain(name);
  for (const link of document.querySelectorAll("[data-role]")) {
    link.hidden = !(who && link.dataset.role.split(" ").includes(who.role));
  }
  if (who) {
    name.textContent = `Signed in as ${who.name ? isolate(who.name) + " " : ""}(${who.role}${who.role === "operator" ? "" : " " + who.id})`;
  } else {
    name.textContent = "Not signed in";
  }
  out.hidden = !who;
  return who;
}

// The <main> of the page, emptied, with a heading.
export function page(title, ...intro) {
  const main = document.getElementById("main");
  main.replaceChildren(el("h1", {}, title), ...intro);
  document.title = `${title} · Banco`;
  return main;
}

// A page whose token stops working while it is open (revoked, rotated, expired, its player
// erased): a 401 means signed out. What the page showed with the token, and the controls that
// would act with it, go, and it offers to sign in again (`again(who)`). The table page, which
// also stops its stream, says so its own way.
export function signedOutShowsNothing(title, again) {
  addEventListener(SIGNED_OUT, () => {
    page(title, el("p", { role: "alert", class: "problem", id: "signed-out" },
      "Your token no longer works (it was revoked, rotated or expired, or its player erased): you are " +
      "signed out, and what it showed is gone. Sign in again with one that works."),
    el("section", { class: "panel", "aria-labelledby": "signin" }, el("h2", { id: "signin" }, "Sign in"),
      signInForm(again)));
  });
}

// A form to sign in with a token: on success, `then(who)`.
export function signInForm(then) {
  const input = el("input", { id: "token", name: "token", type: "password", autocomplete: "off",
    required: true, spellcheck: "false", "aria-describedby": "token-help" });
  const problem = el("div", { class: "problem-box", hidden: true });
  const form = el("form", { class: "sign-in", "aria-label": "Sign in" },
    el("label", { for: "token" }, "Token"),
    input,
    el("button", { type: "submit" }, "Sign in"),
    el("p", { id: "token-help", class: "help" },
      "The bearer token the operator gave you (bnc_...), or the operator key. It stays in this tab only."),
    problem);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    showProblem(problem, null);
    try {
      const who = await signIn(input.value);
      input.value = "";
      await header();
      then(who);
    } catch (err) {
      showProblem(problem, err);
      input.focus();
    }
  });
  return form;
}

// The last path segment of the page's URL: the id the page is about.
export function pathId() {
  return decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
}
