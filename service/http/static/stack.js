// What every page's tables and scrolling boxes need beyond their module, for phones and
// keyboards: each cell of a `table.data` is labelled with its column's header (`data-label`,
// which banco.css shows before the cell when a narrow screen stacks the rows), and a box that
// scrolls with nothing focusable inside is made focusable, so that a keyboard scrolls it too.
// Pages draw and redraw their tables at any time: a MutationObserver labels what they add.

function label(table) {
  const heads = [...table.querySelectorAll(":scope > thead > tr:last-child > th")].map((th) => th.textContent.trim());
  if (!heads.length) return;
  for (const tr of table.querySelectorAll(":scope > tbody > tr")) {
    let col = 0;
    for (const cell of tr.children) {
      const span = Number(cell.getAttribute("colspan")) || 1;
      if (span === 1 && heads[col] && !cell.hasAttribute("data-label")) cell.setAttribute("data-label", heads[col]);
      col += span;
    }
  }
}

const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";

function scrollers() {
  for (const box of document.querySelectorAll(".table-wrap, .timeline-wrap, pre")) {
    const scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
    const made = box.dataset.focusable === "made";
    if (scrolls && !made && !box.querySelector(FOCUSABLE) && !box.hasAttribute("tabindex")) {
      box.tabIndex = 0;
      box.dataset.focusable = "made";
      box.setAttribute("role", "region");
      const caption = box.querySelector("caption");
      box.setAttribute("aria-label", caption ? caption.textContent.trim() : "Scrolling box");
    } else if (!scrolls && made) {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
      delete box.dataset.focusable;
    }
  }
}

let pending = false;
function update() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    document.querySelectorAll("table.data").forEach(label);
    scrollers();
  });
}

new MutationObserver(update).observe(document.body, { childList: true, subtree: true });
addEventListener("resize", update);
update();
