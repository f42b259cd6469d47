// What the console's sections share: a labelled field, a notice of what was done (with a
// secret shown once), a form's button run with its problem shown, and a form's writes sent so
// that a retry does them once.
import { api, el, fill, showProblem } from "../banco.js";

export const field = (id, label, input, help) => el("div", { class: "field" },
  el("label", { for: id }, label), input, help ? el("span", { class: "help" }, help) : null);

// A notice that says what was done; `secret` (a token or key) shown once, in a box to copy,
// with `advice` on what to do with it.
export function tell(where, text, secret, { id, advice } = {}) {
  fill(where, el("p", {}, text),
    secret ? el("p", {}, el("code", { class: "mono token-once", ...(id ? { id } : {}) }, secret)) : null,
    secret ? el("p", { class: "help" }, `Shown only now: Banco keeps only its hash. ${advice || "Hand it over now."}`) : null);
  where.hidden = false;
}

// Run `work` for a form's button: disabled while it runs, its problem shown in `problem`. The
// outcome shown before (a problem, or the `note` of a success when the section has one) goes
// as the new request leaves, so that only the latest shows: `where` is the problem box, or
// {problem, note}.
export async function busy(button, where, work) {
  const { problem, note = null } = where instanceof Element ? { problem: where } : where;
  button.disabled = true;
  showProblem(problem, null);
  if (note) {
    note.hidden = true;
    note.replaceChildren();
  }
  try {
    await work();
  } catch (e) {
    showProblem(problem, e);
    if (e.resendable) {
      problem.append(el("p", { class: "help" }, "It may have been done all the same: send it again " +
        "as it is, and Banco does it only once."));
    }
  } finally {
    button.disabled = false;
  }
}

// The writes of one form (or button): `write(path, {method, json})` is api()'s call, sent with an
// Idempotency-Key. A write that got no answer (Banco unreachable, the answer lost, or a 5xx)
// may have been done: sent again as it was, it goes with the same key, so Banco does it at most
// once and answers what it answered the first time (`Idempotent-Replayed: true`). Any other
// write takes a new key: one that differs (its path or its body: Banco refuses a key reused for
// another request, 422 idempotency_key_reused), or one sent after an answer, a success or a
// refusal (a refusal changed nothing, and the same request sent again is another try).
export function writer() {
  let unanswered = null; // {request, key} of the last write, while it has had no answer
  return async function write(path, { method = "POST", json, ...options } = {}) {
    const request = JSON.stringify([method, path, json ?? null]);
    if (unanswered?.request !== request) unanswered = { request, key: crypto.randomUUID() };
    const sent = unanswered;
    try {
      const answer = await api(path, { ...options, method, json,
        headers: { ...options.headers, "Idempotency-Key": sent.key } });
      if (unanswered === sent) unanswered = null;
      return answer;
    } catch (e) {
      e.resendable = e.status === 0 || e.status >= 500;
      if (!e.resendable && unanswered === sent) unanswered = null;
      throw e;
    }
  };
}
