"""The pages, tested in a real browser against a real Banco.

How a page test is written:

- `served` is one `banco serve` for the session, on the session's PostgreSQL and Redis, with a
  worker on a queue of its own (settlements, timeouts and ledger checks run as in production).
  `served.url` is its address, `served.operator_key` the operator key, `served.queue` the queue.
- Set up data over HTTP with `api` (an `Api` on `served`, as the operator unless told otherwise):
  `api.new_player("Ada", deposit=100)` gives a `Player(id, token)`, `api.call(method, path,
  json=..., token=..., accept=...)` the parsed JSON (or the text, for another type) and raises
  `ApiError` with the status and problem for a 4xx or 5xx.
- `page` is a fresh Chromium page (a new context: an empty sessionStorage, so signed out) of the
  session's `browser`. `signed_in(page, token)` opens `/` and signs in there through the form,
  as a person does; then `page.goto("/players/...")` (relative to Banco) and assert with Playwright's
  `expect` (`get_by_role`, `get_by_label`: the pages' controls are labelled, so tests find them
  as a screen reader would).
- `open_page()` (the fixture of that name) gives more such pages, each in a context of its own:
  another player's browser, signed out until `signed_in`.
- After each test the `page` fixture fails it if the page threw an uncaught error, if the browser
  reported a Content-Security-Policy violation, or if any request left Banco: every page must
  work with nothing but Banco's own files, under its CSP.
- Never assert on timing; `expect(...)` waits for the page to get there, and `until(page, js)`
  for a script's value (`page.wait_for_function` evaluates with eval(), refused under the CSP).

Chromium is Debian's (/usr/bin/chromium, installed by ./quickstart when missing; BANCO_CHROMIUM
names another), driven by Playwright.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest

from service.runtime import embedded
from tests.conftest import fresh_database
from tests.service.conftest import ROOT
from tests.test_cli import free_port, wait_ready

CHROMIUM = os.environ.get("BANCO_CHROMIUM", "/usr/bin/chromium")
# Chromium's own background traffic (updates, sync, safe browsing) kept off, so that every
# request seen is one a page made.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@dataclass
class Served:
    url: str
    operator_key: str
    queue: str
    redis_url: str


@dataclass
class Player:
    id: str
    token: str


class ApiError(Exception):
    def __init__(self, status: int, problem: Any) -> None:
        super().__init__(f"{status}: {problem}")
        self.status = status
        self.problem = problem


@dataclass
class Api:
    """Calls to the served API, as the operator unless a `token` is given."""

    served: Served
    token: str = ""
    calls: list[str] = field(default_factory=list)

    def raw(self, method: str, path: str, json: Any = None, token: str | None = None,
            accept: str | None = None, headers: dict[str, str] | None = None) -> tuple[bytes, str]:
        hdrs = {"Authorization": f"Bearer {token or self.token or self.served.operator_key}",
                **(headers or {})}
        if accept:
            hdrs["Accept"] = accept
        data = None
        if json is not None:
            data = orjson.dumps(json)
            hdrs["Content-Type"] = "application/json"
        req = urllib.request.Request(self.served.url + path, data=data, headers=hdrs, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.read(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            body = e.read()
            try:
                problem: Any = orjson.loads(body)
            except orjson.JSONDecodeError:
                problem = body.decode(errors="replace")
            raise ApiError(e.code, problem) from None

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        body, mime = self.raw(method, path, **kwargs)
        if not body:
            return None
        if "json" in mime and "ndjson" not in mime:
            return orjson.loads(body)
        return body.decode()

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.call("GET", path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        return self.call("POST", path, json=json, **kwargs)

    def new_player(self, name: str = "Ada", deposit: int = 0) -> Player:
        made = self.post("/v1/players", {"name": name})
        player = Player(made["player"]["id"], made["token"])
        if deposit:
            self.post(f"/v1/players/{player.id}/deposits", {"amount": deposit, "reason": "desk"})
        return player

    def new_auditor(self, name: str = "Audit") -> Player:
        made = self.post("/v1/auditors", {"name": name})
        return Player(made["id"], made["token"])


@pytest.fixture(scope="package")
def pages_database_url(servers: embedded.EmbeddedServers) -> Iterator[str]:
    """The pages' own database: hands they leave in play keep firing deadlines, which no other
    test's worker, nor a test counting the log's events, should meet."""
    with fresh_database(servers.database_url, "banco_pages") as url:
        yield url


@contextmanager
def serving(database_url: str, redis_url: str, name: str = "pages") -> Iterator[Served]:
    """`banco serve` and `banco worker` on `database_url`, on a port and a queue of their own."""
    port = free_port()
    queue = f"banco-{name}-{os.getpid()}"
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "BANCO_OPERATOR_KEY": secrets.token_urlsafe(24), "BANCO_QUEUE": queue,
           "BANCO_RATE_LIMIT": "100000/minute"}
    api = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--bind",
                            f"127.0.0.1:{port}", "--workers", "1", "--threads", "32"],
                           cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=ROOT, env=env,
                              start_new_session=True, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/healthz", time.monotonic() + 60)
        yield Served(f"http://127.0.0.1:{port}", env["BANCO_OPERATOR_KEY"], queue, redis_url)
    finally:
        from tests.service.test_timeouts import stop_group

        api.send_signal(signal.SIGTERM)
        api.wait(timeout=60)
        stop_group(worker)


# Package-scoped, as the browser is: both end with the last page test, so the worker sweeps
# nothing after, and the suite's other Playwright users (tests/service/test_docs_served.py) start
# theirs when no other runs.
@pytest.fixture(scope="package")
def served(pages_database_url: str, redis_url: str) -> Iterator[Served]:
    """`banco serve` and `banco worker` on ports, a queue and a database of their own."""
    with serving(pages_database_url, redis_url) as s:
        yield s


@pytest.fixture
def api(served: Served) -> Api:
    return Api(served)


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any, served: Served) -> Iterator[Any]:
    """A new page, signed out, that fails its test on an uncaught error, a CSP violation or a
    request leaving Banco."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True,
                                  base_url=served.url)
    pg = context.new_page()
    errors: list[str] = []
    requested: list[str] = []
    pg.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    pg.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    pg.on("request", lambda r: requested.append(r.url))
    try:
        yield pg
    finally:
        context.close()
    banco = urlsplit(served.url).netloc
    away = [u for u in requested if urlsplit(u).scheme in ("http", "https") and urlsplit(u).netloc != banco]
    assert not errors, errors
    assert not away, away


@pytest.fixture
def open_page(browser: Any, served: Served) -> Iterator[Callable[[], Any]]:
    """More pages like `page`, each in a context of its own (another player's browser), failed
    on the same grounds: an uncaught error, a CSP violation or a request leaving Banco."""
    contexts: list[Any] = []
    errors: list[str] = []
    requested: list[str] = []

    def make() -> Any:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=served.url)
        contexts.append(context)
        pg = context.new_page()
        pg.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        pg.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        pg.on("request", lambda r: requested.append(r.url))
        return pg

    try:
        yield make
    finally:
        for context in contexts:
            context.close()
    banco = urlsplit(served.url).netloc
    assert not errors, errors
    away = [u for u in requested if urlsplit(u).scheme in ("http", "https") and urlsplit(u).netloc != banco]
    assert not away, away


def until(page: Any, script: str, arg: Any = None, within_s: float = 30) -> Any:
    """Wait for `script` (a JS function of `arg`) to return something truthy in `page`, and return
    it. `page.wait_for_function` cannot serve: it evaluates its predicate with eval(), which the
    pages' CSP forbids."""
    deadline = time.monotonic() + within_s
    while not (got := page.evaluate(script, arg)):
        assert time.monotonic() < deadline, f"never true: {script}"
        time.sleep(0.05)
    return got


def signed_in(page: Any, token: str) -> Any:
    """Sign in on the landing page with `token`, as a person does, and wait until the header
    shows it; `page` is then signed in for this context's tab."""
    from playwright.sync_api import expect

    page.goto("/")
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#who-name")).to_contain_text("Signed in as")
    return page
