// What the console's sections share: a labelled field, a notice of what was done (with a
// secret shown once), a form's button run with its problem shown, and a form's writes sent so
// that a retry does them once (writer(), shared with the other pages in banco.js).
import { el, fill, resendHint, showProblem, writer } from "../banco.js";

export { writer };

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
    if (e.resendable) problem.append(resendHint());
  } finally {
    button.disabled = false;
  }
}
