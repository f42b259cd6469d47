// `/docs`: Swagger UI on the contract. Its settings come in the page's `data-config` (from
// service/http/reference.py), so that no inline script is needed: the page's CSP runs only
// Banco's own files.
const container = document.getElementById("swagger-ui-container");
window.ui = window.SwaggerUIBundle({ ...JSON.parse(container.dataset.config), domNode: container });

// Swagger UI draws a few controls that assistive technology cannot use as they are; they are
// mended here as it draws them (it leaves alone attributes it did not set, and those it set
// and does not change again).
function mend(root) {
  for (const control of root.querySelectorAll(".opblock-summary-control")) {
    // Its label ("get /v1/me") hides the summary shown beside it; named by what it shows.
    control.removeAttribute("aria-label");
    // The deep link in the path would be a link inside the button; the button itself opens the
    // operation and sets the address to it.
    for (const link of control.querySelectorAll("a[href]")) link.removeAttribute("href");
  }
  for (const select of root.querySelectorAll("select:not([aria-label])")) {
    const named = select.id && root.querySelector(`label[for="${CSS.escape(select.id)}"]`);
    if (named) continue;
    const label = select.closest("label");
    const text = label && label.textContent.replace(select.textContent, "").trim();
    select.setAttribute("aria-label", select.closest(".servers") ? "Server" : text || "Choose");
  }
  for (const area of root.querySelectorAll("textarea:not([aria-label])")) {
    area.setAttribute("aria-label", area.classList.contains("curl") ? "The request as a curl command" : "Request body");
  }
  for (const close of root.querySelectorAll("button.close-modal:not([aria-label])")) {
    close.setAttribute("aria-label", "Close");
  }
  // Long payloads scroll inside their box: from the keyboard too.
  for (const code of root.querySelectorAll(".highlight-code > pre:not([tabindex])")) {
    code.setAttribute("tabindex", "0");
  }
  for (const copy of root.querySelectorAll(".copy-to-clipboard > button:not([aria-label])")) {
    copy.setAttribute("aria-label", "Copy to the clipboard");
  }
}

mend(container);
new MutationObserver(() => mend(container)).observe(container, { childList: true, subtree: true });
