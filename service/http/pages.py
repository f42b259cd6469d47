"""Pages for people: the same API, read and driven from a browser.

Each route serves one shell (templates/page.html) that loads its page's module from
`/static/pages/<page>.js`; the module calls the /v1 API with the token the visitor signed in with,
kept in the browser's sessionStorage and sent as `Authorization: Bearer`. The HTML holds no data
(not even the id in its URL, which the module reads from `location`), so hidden cards reach a page
only through the API's redaction, as for any client. A plain Flask blueprint: pages are not API
operations and stay out of openapi.yaml.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, g, render_template, request, send_file
from werkzeug.exceptions import HTTPException

from service.http.problems import render

STATIC = Path(__file__).parent / "static"

# Only Banco's own scripts, styles and images (charts are shown from blob: URLs); no inline script
# or style attribute, no framing, nothing sent elsewhere.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:;"
       " connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self';"
       " frame-ancestors 'none'")

blp = Blueprint("pages", __name__, template_folder="templates")

TITLES = {"home": "Banco", "table": "Table", "hand": "Hand", "player": "Player", "console": "Console",
          "not_found": "Page not found"}


def _page(page: str, status: int = 200) -> Response:
    return Response(render_template("page.html", page=page, title=TITLES[page]), status=status,
                    mimetype="text/html")


@blp.get("/favicon.ico")
def favicon() -> Response:
    # An SVG, which browsers take as an icon at any address: one drawing for every size.
    return send_file(STATIC / "favicon.svg", mimetype="image/svg+xml", max_age=86400)


def _wants_page() -> bool:
    """A browser asking for an address outside the API: it prefers HTML to problem+json (a
    client that accepts anything, curl say, still gets the problem)."""
    path = request.path
    if path == "/v1" or path.startswith("/v1/") or request.method not in ("GET", "HEAD"):
        return False
    return request.accept_mimetypes.best_match(["application/problem+json", "text/html"]) == "text/html"


@blp.app_errorhandler(404)
def not_found(error: HTTPException) -> Response:
    """A page for a mistyped page address; the API's 404s stay problem+json."""
    if not _wants_page():
        return render(error)
    g.banco_page = True  # served as a page: under the pages' CSP
    return _page("not_found", 404)


@blp.get("/")
def home() -> Response:
    return _page("home")


@blp.get("/tables/<table_id>")
def table(table_id: str) -> Response:
    return _page("table")


@blp.get("/hands/<hand_id>")
def hand(hand_id: str) -> Response:
    return _page("hand")


@blp.get("/players/<player_id>")
def player(player_id: str) -> Response:
    return _page("player")


@blp.get("/console")
def console() -> Response:
    return _page("console")


def is_page() -> bool:
    """Whether the request is for a page or one of its static files (served with the CSP,
    never rate limited)."""
    return request.blueprint == "pages" or request.endpoint == "static" or g.get("banco_page", False)
