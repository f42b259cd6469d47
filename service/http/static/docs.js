// `/docs`: Swagger UI on the contract. Its settings come in the page's `data-config` (from
// service/http/reference.py), so that no inline script is needed: the page's CSP runs only
// Banco's own files.
const container = document.getElementById("swagger-ui-container");
window.ui = window.SwaggerUIBundle({ ...JSON.parse(container.dataset.config), domNode: container });
