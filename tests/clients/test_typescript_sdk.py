"""The TypeScript SDK (clients/typescript) built and its tests run against `banco run` (the API
and a worker on a database of their own): every game played to its end by the SDK's bots with
treasure conserved, streams resumed after cuts with no gap or repeat, a write whose answer was
lost retried once with its Idempotency-Key, the types regenerated from openapi.yaml unchanged,
and the bot's command line; then the built ESM in Chromium, on a page of another origin that
Banco allows, playing a hand and following its stream with `fetch`. Node.js 20+ and npm are
required: without them these tests fail."""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from service.runtime import embedded
from tests.conftest import fresh_database
from tests.pages.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.test_cli import banco_running

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "typescript"
# The SDK's test files (clients/typescript/test/*.test.ts), each run as a test here.
SUITES = ["contract", "client", "games", "streams", "bot"]


def npm() -> str:
    found, node = shutil.which("npm"), shutil.which("node")
    if found is None or node is None:
        pytest.fail("the TypeScript SDK's tests need Node.js 20+ and npm on the PATH "
                    "(install them, then run ./quickstart test)")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 20:
        pytest.fail(f"the TypeScript SDK needs Node.js 20 or newer, not {version}")
    return found


@pytest.fixture(scope="module")
def installed() -> str:
    """npm, with the SDK's pinned dependencies installed (by ./quickstart, else here)."""
    tool = npm()
    lock = SDK / "package-lock.json"
    mark = SDK / "node_modules" / ".installed"
    want = hashlib.sha256(lock.read_bytes()).hexdigest()
    if not mark.is_file() or want not in mark.read_text():
        subprocess.run([tool, "ci", "--no-audit", "--no-fund", "--silent"], cwd=SDK, check=True,
                       timeout=300)
        mark.write_text(f"{want}  {lock.relative_to(ROOT)}\n")
    return tool


@pytest.fixture(scope="module")
def building(installed: str) -> Iterator[subprocess.Popen[str]]:
    """The SDK being built by `npm run build` (tsc strict; the library compiled without Node's
    types) while Banco starts."""
    tool = installed
    proc = subprocess.Popen([tool, "run", "build"], cwd=SDK, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def built(building: subprocess.Popen[str], banco: tuple[str, str]) -> Path:
    out, _ = building.communicate(timeout=240)
    assert building.returncode == 0, out
    return SDK / "dist"


# A page of another origin than Banco's loads the built SDK with an import map naming its two
# dependencies, as a site without a bundler would.
PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>@banco/client</title>
<script type="importmap">{"imports": {
  "openapi-fetch": "/node_modules/openapi-fetch/dist/index.mjs",
  "eventsource-parser": "/node_modules/eventsource-parser/dist/index.js",
  "eventsource-parser/stream": "/node_modules/eventsource-parser/dist/stream.js"}}</script>
<script type="module">
import * as sdk from "/dist/src/index.js";
window.sdk = sdk;
</script></head><body></body></html>
"""


class SdkFiles(http.server.SimpleHTTPRequestHandler):
    """The SDK's folder (its `dist` and `node_modules`), and the page at `/`."""

    extensions_map: ClassVar[dict[str, str]] = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                                                ".js": "text/javascript",
                                                ".mjs": "text/javascript"}

    def do_GET(self) -> None:
        if self.path != "/":
            return super().do_GET()
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    """The origin of the page: a server of the SDK's files, on a port of its own."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(SdkFiles, directory=str(SDK)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def banco(servers: embedded.EmbeddedServers, redis_url: str, origin: str,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """`banco run` with one worker on a database of its own (the SDK's tests read the whole log's
    feed): its URL and operator key."""
    with (fresh_database(servers.database_url, "banco_sdk_ts") as database_url,
          banco_running(tmp_path_factory.mktemp("banco") / "data", database_url, redis_url,
                        BANCO_RATE_LIMIT="100000/minute", BANCO_CORS_ORIGINS=origin) as running):
        yield running


def test_the_package_packed_from_a_fresh_clone_holds_what_it_names(installed: str, tmp_path: Path):
    """`npm pack` in a clone never built (no dist/) builds first (`prepack`): the tarball holds
    every file its `exports`, `types` and `bin` name, not only package.json and the README."""
    clone = tmp_path / "typescript"
    shutil.copytree(SDK, clone, ignore=shutil.ignore_patterns("dist", "node_modules"))
    (clone / "node_modules").symlink_to(SDK / "node_modules")
    packed = subprocess.run([installed, "pack", "--json", "--pack-destination", str(tmp_path)], cwd=clone,
                            capture_output=True, text=True, timeout=240)
    assert packed.returncode == 0, packed.stdout[-2000:] + packed.stderr[-2000:]
    files = {f["path"] for f in json.loads(packed.stdout[packed.stdout.index("["):])[0]["files"]}
    package = json.loads((SDK / "package.json").read_text())
    named = {package["types"], *package["bin"].values(),
             *(path for entry in package["exports"].values() for path in entry.values())}
    assert {path.removeprefix("./") for path in named} <= files, sorted(files)


def test_every_test_file_of_the_sdk_is_run_here():
    assert sorted(SUITES) == sorted(f.name.removesuffix(".test.ts")
                                    for f in (SDK / "test").glob("*.test.ts"))


@pytest.mark.parametrize("suite", SUITES)
def test_the_typescript_sdk_passes_its_tests_against_banco(built: Path, banco: tuple[str, str],
                                                           suite: str):
    url, key = banco
    compiled = built / "test" / f"{suite}.test.js"
    assert compiled.is_file(), f"{compiled} was not built"
    run = subprocess.run(["node", "--test", "--test-reporter=tap", "--test-timeout=60000",
                          str(compiled)], cwd=SDK, capture_output=True, text=True, timeout=240,
                         env={**os.environ, "BANCO_URL": url, "BANCO_OPERATOR_KEY": key})
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    # Every test of the file ran and passed: none skipped, none left out.
    counts = dict(re.findall(r"^# (tests|pass|fail|skipped|todo|cancelled) (\d+)$", out, re.M))
    assert int(counts["tests"]) >= 2 and counts["pass"] == counts["tests"], out
    assert counts["skipped"] == counts["todo"] == counts["cancelled"] == "0", out


# In the page: two players' bots play a hand of Sette e mezzo while the operator follows the
# table's stream, whose connections the server ends every half second.
IN_THE_PAGE = """async ([url, key, tableId, tokens]) => {
  const { Banco, playTable } = window.sdk;
  const watcher = new Banco({ url, token: key });
  const stop = new AbortController();
  const seen = [];
  let target = Infinity;
  const following = (async () => {
    for await (const m of watcher.followTable(tableId, { timeout: 0.5, signal: stop.signal })) {
      seen.push(Number(m.id));
      if (Number(m.id) >= target) stop.abort();
    }
  })();
  await Promise.all(tokens.map((token, i) =>
    playTable(new Banco({ url, token }), tableId, { deal: i === 0, since: null })));
  target = (await watcher.table(tableId)).version;
  if (seen.at(-1) >= target) stop.abort();
  setTimeout(() => stop.abort(), 20000);
  await following;
  return { seen, target };
}"""


def test_the_built_sdk_plays_and_follows_a_stream_in_chromium_from_an_allowed_origin(
        built: Path, banco: tuple[str, str], origin: str):
    from playwright.sync_api import sync_playwright

    from tests.pages.conftest import Api, Served

    url, key = banco
    api = Api(Served(url, key, "", ""))
    players = [api.new_player(name, deposit=100) for name in ("Ann", "Bob")]
    table = api.post("/v1/tables", {"game": "sette-e-mezzo"})["id"]
    for player in players:
        api.post(f"/v1/tables/{table}/seats", {"buy_in": 50}, token=player.token)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(origin + "/")
            page.wait_for_function("window.sdk !== undefined")
            got = page.evaluate(IN_THE_PAGE, [url, key, table, [p.token for p in players]])
        finally:
            browser.close()
    assert not errors, errors
    assert got["seen"] == list(range(1, got["target"] + 1))
    assert api.get(f"/v1/tables/{table}")["status"] in ("open", "over")
