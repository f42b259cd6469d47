"""Headers every response carries: no content sniffing, no caching of anything private, and no
content type on a 204; and on the pages, their files and the Swagger UI page, a
Content-Security-Policy that runs only Banco's own scripts and lets no other site frame them."""

from __future__ import annotations

from flask import Flask, Response, request

from service.http import pages, reference


def _secure(response: Response) -> Response:
    # A response to a request with credentials may hold tokens or a player's private data (and a
    # stream's no-cache would still let a cache store it), and an error is never worth keeping.
    headers = response.headers
    if response.status_code == 204:
        # No content, so no type of it: a view's `None` answered as JSON said application/json.
        headers.pop("Content-Type", None)
    headers["X-Content-Type-Options"] = "nosniff"
    if response.status_code >= 400 or "Authorization" in request.headers:
        headers["Cache-Control"] = "no-store"
    if pages.is_page() or reference.is_docs():
        response.headers["Content-Security-Policy"] = pages.CSP
        response.headers["Referrer-Policy"] = "same-origin"
        # `frame-ancestors` says it too; this is for the browsers that read only this header.
        response.headers["X-Frame-Options"] = "DENY"
    return response


def init_app(app: Flask) -> None:
    """Register first: after-request hooks run in reverse, so this one runs last, on whatever
    response the others made (a 503 from a failed commit included)."""
    app.after_request(_secure)
