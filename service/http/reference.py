"""The API reference a person reads: the contract at `/openapi.json` and `/openapi.yaml`, Swagger
UI at `/docs` (the landing page, `/`, is one of the pages: service/http/pages.py).

flask-smorest routes the JSON and the Swagger UI page (`SETTINGS`); the page is Banco's own
(templates/docs.html, started by static/docs.js rather than an inline script, so that it runs
under the pages' Content-Security-Policy), its scripts and styles from the swagger-ui-bundle
package, served here, so the reference works with no network beyond Banco. The contract served
is the one `banco openapi write` commits, made from the same views
(`service.http.spec.document`). All of it is public and static: it describes the API and holds no
one's data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from flask import Blueprint, Response, current_app, render_template, request
from swagger_ui_bundle import swagger_ui_path

from service.http.spec import document, to_yaml

ASSETS = "/docs/assets"

# flask-smorest's settings for its documentation blueprint ("api-docs").
SETTINGS: dict[str, Any] = {
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    "OPENAPI_SWAGGER_UI_PATH": "docs",
    "OPENAPI_SWAGGER_UI_URL": ASSETS + "/",
    # No validator badge: it would send the contract to a validator on the internet. No syntax
    # colours: the highlighter's inline ones are too faint on its dark boxes to read.
    "OPENAPI_SWAGGER_UI_CONFIG": {"validatorUrl": None, "deepLinking": True,
                                  "syntaxHighlight": False},
}

blp = Blueprint("reference", __name__, static_folder=str(swagger_ui_path), static_url_path=ASSETS)


def _contract() -> dict[str, Any]:
    # Made once per app: the routes do not change after `create_app`.
    cached = current_app.extensions.get("banco.contract")
    if cached is None:
        cached = current_app.extensions["banco.contract"] = document(current_app.extensions["banco.api"])
    return cached


def swagger_ui(title: str, spec_url: str, config: dict[str, Any]) -> Response:
    """The Swagger UI page on the contract (flask-smorest's own page starts it with an inline
    script, which the page's CSP forbids)."""
    settings = {**config, "url": spec_url}
    return Response(render_template("docs.html", title=title, assets=ASSETS + "/", config=settings),
                    mimetype="text/html")


def is_docs() -> bool:
    """Whether the request is for the Swagger UI page (served with the pages' CSP: its scripts and
    styles are files Banco serves, and it tries out the API on Banco, charts included)."""
    return request.endpoint == "api-docs.openapi_swagger_ui"


def contract_json() -> Response:
    """The contract as JSON (what flask-smorest's `/openapi.json` serves here)."""
    return Response(_rendered("json", orjson.dumps), mimetype="application/json")


@blp.get("/openapi.yaml")
def contract_yaml() -> Response:
    return Response(_rendered("yaml", to_yaml), mimetype="application/yaml")


def _rendered(form: str, render: Callable[[dict[str, Any]], str | bytes]) -> str | bytes:
    # Rendered once per app too: the YAML alone takes a second or more a request, and the
    # reference is public, unlimited (service/http/limits.py) and read by every /docs page.
    key = f"banco.contract.{form}"
    cached = current_app.extensions.get(key)
    if cached is None:
        cached = current_app.extensions[key] = render(_contract())
    return cached
