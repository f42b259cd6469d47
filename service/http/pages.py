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

from flask import Blueprint, Response, render_template, request

STATIC = Path(__file__).parent / "static"

# Only Banco's own scripts, styles and images (charts are shown from blob: URLs); no inline script
# or style attribute, no framing, nothing sent elsewhere.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:;"
       " connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self';"
       " frame-ancestors 'none'")

blp = Blueprint("pages", __name__, template_folder="templates")

TITLES = {"home": "Banco", "table": "Table", "hand": "Hand", "player": "Player", "console": "Console"}


def _page(page: str) -> Response:
    return Response(render_template("page.html", page=page, title=TITLES[page]), mimetype="text/html")


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
    return request.blueprint == "pages" or request.endpoint == "static"
