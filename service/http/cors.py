"""Browsers' cross-origin calls: allowed only from the origins the operator lists
(`BANCO_CORS_ORIGINS`), none by default, with flask-cors.

A page of an allowed origin may send what the API reads (`Authorization`, `If-Match`,
`Idempotency-Key`, `Last-Event-ID`, ...) and read what it answers with (`ETag`, `Retry-After`,
`Idempotent-Replayed`, ...). Credentials are bearer tokens the page sends itself, never cookies:
no response allows credentials. A page of any other origin gets no `Access-Control-Allow-Origin`,
so its browser keeps the answer from it.
"""

from __future__ import annotations

from flask import Flask
from flask_cors import CORS

# What a client sends that a browser would otherwise refuse to let a page set.
SENT = ["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key",
        "Last-Event-ID", "X-Request-ID", "X-Correlation-ID"]
# What the API answers with that a page may read beside the body.
READ = ["ETag", "Location", "Retry-After", "Idempotent-Replayed", "X-Request-ID"]
PREFLIGHT_MAX_AGE_S = 600


def init_app(app: Flask, origins: tuple[str, ...]) -> None:
    if not origins:
        return
    CORS(app, origins=list(origins), allow_headers=SENT, expose_headers=READ,
         methods=["GET", "POST", "PUT", "PATCH", "DELETE"], supports_credentials=False,
         max_age=PREFLIGHT_MAX_AGE_S, vary_header=True)
