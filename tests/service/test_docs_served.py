"""The API reference is served by Banco itself: the committed contract at /openapi.json and
/openapi.yaml, Swagger UI at /docs with assets from an installed package (no network beyond
Banco), the landing page `/` linking there, and the games with their rules pages readable
without a token."""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from games.registry import engines
from tests.service.conftest import OPERATOR, ROOT
from tests.test_cli import free_port, wait_ready

COMMITTED = ROOT / "openapi.yaml"
RULES_PAGES = {"sette-e-mezzo": "sevenhalf", "siete-y-media": "sevenhalf", "casino-pirate": "sevenhalf",
               "pirate-pairs": "pirate_pairs", "cassino": "cassino"}
CHROMIUM = os.environ.get("BANCO_CHROMIUM", "/usr/bin/chromium")


def test_the_contract_served_is_the_committed_one(client):
    as_yaml = client.get("/openapi.yaml")
    assert as_yaml.status_code == 200
    assert as_yaml.mimetype == "application/yaml"
    assert as_yaml.get_data(as_text=True) == COMMITTED.read_text()
    as_json = client.get("/openapi.json")
    assert as_json.status_code == 200
    assert as_json.mimetype == "application/json"
    assert as_json.json == yaml.load(COMMITTED.read_text(), Loader=yaml.CSafeLoader)
    # The same to everyone: nothing in it depends on who asks.
    assert client.get("/openapi.json", headers=OPERATOR).data == as_json.data


def test_the_contract_is_rendered_once_not_for_every_request(client, monkeypatch):
    """Rendering the YAML took a second or more for every request of the public, unlimited
    /openapi.yaml; the app renders each form once and serves the same text after."""
    from service.http import reference

    rendered: list[str] = []

    def counted(form: str) -> object:
        original = getattr(reference, form)

        def render(document: dict[str, object]) -> object:
            rendered.append(form)
            return original(document)
        return render

    monkeypatch.setattr(reference, "to_yaml", counted("to_yaml"))
    for key in ("banco.contract.yaml", "banco.contract.json"):
        client.application.extensions.pop(key, None)
    bodies = [client.get("/openapi.yaml").data for _ in range(3)]
    assert rendered == ["to_yaml"]
    assert bodies[0] == bodies[1] == bodies[2] == COMMITTED.read_bytes()
    assert client.get("/openapi.json").data == client.get("/openapi.json").data


def test_the_docs_page_loads_only_assets_banco_serves(client):
    page = client.get("/docs")
    assert page.status_code == 200
    assert page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert {a.rsplit("/", 1)[1] for a in assets} >= {"swagger-ui.css", "swagger-ui-bundle.js"}
    for asset in assets:
        assert asset.startswith(("/docs/assets/", "/static/")), asset
        r = client.get(asset)
        assert r.status_code == 200, asset
        r.close()
    assert '"/openapi.json"' in html


def test_the_docs_page_runs_only_banco_files_and_cannot_be_framed(client):
    """/docs was served with no Content-Security-Policy and could be framed by any site; it now
    has the pages' CSP (scripts and styles from Banco only, no inline script, no framing) and
    `X-Frame-Options: DENY`."""
    r = client.get("/docs")
    assert r.status_code == 200
    policy = dict(d.strip().split(" ", 1) for d in r.headers["Content-Security-Policy"].split(";"))
    assert policy["script-src"] == policy["style-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'" and policy["default-src"] == "'none'"
    assert r.headers["X-Frame-Options"] == "DENY"
    html = r.get_data(as_text=True)
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []  # no inline script to allow
    assert "style=" not in html and "<style" not in html


def test_the_root_is_the_landing_page_leading_to_the_docs(client):
    r = client.get("/")
    assert r.status_code == 200
    assert r.mimetype == "text/html"
    assert 'href="/docs"' in r.get_data(as_text=True)


def test_games_and_their_rules_need_no_token(client):
    games = client.get("/v1/games")
    assert games.status_code == 200
    assert [g["name"] for g in games.json] == sorted(engines())
    for game in games.json:
        assert client.get(f"/v1/games/{game['name']}").json == game
        rules = client.get(game["rules_source"])
        assert rules.status_code == 200
        assert rules.mimetype == "text/markdown"
        page = ROOT / "games" / RULES_PAGES[game["name"]] / "rules.md"
        assert rules.get_data(as_text=True) == page.read_text()


@pytest.mark.parametrize("path", ["/v1/games/poker", "/v1/games/poker/rules"])
def test_an_unknown_game_is_a_404(client, path):
    r = client.get(path)
    assert r.status_code == 404
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json["code"] == "unknown_game"


def test_the_rules_pages_are_package_data():
    # An installed Banco (a wheel, not this work tree) serves them too.
    toml = (ROOT / "pyproject.toml").read_text()
    assert 'games = ["*/rules.md"]' in toml
    assert set(RULES_PAGES.values()) == {p.parent.name for p in (ROOT / "games").glob("*/rules.md")}


@pytest.fixture(scope="module")
def served(database_url: str, redis_url: str) -> Iterator[str]:
    """`banco serve` on a port of its own: the URL the browser opens."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "BANCO_OPERATOR_KEY": secrets.token_urlsafe(24)}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--bind",
                             f"127.0.0.1:{port}", "--workers", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/healthz", time.monotonic() + 60)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def test_the_docs_render_in_chromium_with_no_request_leaving_banco(served, tmp_path: Path):
    from playwright.sync_api import expect, sync_playwright

    requested: list[str] = []
    # What the page refused under its CSP, or threw: Swagger UI must work within the policy.
    errors: list[str] = []
    with sync_playwright() as p:
        # The flags keep Chromium's own background traffic (updates, sync, safe browsing) off, so
        # every request seen is one the page made.
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1600})
            page.on("request", lambda request: requested.append(request.url))
            page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
            page.on("console", lambda m: errors.append(m.text)
                    if "Content Security Policy" in m.text else None)
            page.goto(served + "/docs", wait_until="networkidle")
            games = page.locator(".opblock-get").filter(
                has=page.locator('.opblock-summary-path[data-path="/v1/games"]'))
            # Swagger UI parses the whole 0.5 MB spec in the page before it draws anything: under a
            # loaded CI machine that takes longer than expect's default 5 s, so the first drawing is
            # given 30 s. What is drawn is asserted as before.
            expect(games).to_contain_text("Every game, its variants, player counts", timeout=30_000)
            expect(page.locator(".opblock-tag", has_text="tables").first).to_be_visible()
            # Open the operation and run it from the page: the games come back, with no token.
            games.locator(".opblock-summary").click()
            games.get_by_role("button", name="Try it out").click()
            games.get_by_role("button", name="Execute").click()
            expect(games.locator(".live-responses-table tbody .response-col_status")).to_have_text("200")
            expect(games.locator(".live-responses-table")).to_contain_text("sette-e-mezzo")
            page.screenshot(path=os.environ.get("BANCO_DOCS_SCREENSHOT", tmp_path / "docs.png"))
        finally:
            browser.close()
    assert not errors, errors
    assert requested, "the page made no request"
    assert {urlsplit(url).hostname for url in requested} == {"127.0.0.1"}, requested
