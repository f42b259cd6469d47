"""The TypeScript SDK (clients/typescript) built and its tests run against `banco run` (the API
and a worker on a database of their own): every game played to its end by the SDK's bots with
treasure conserved, streams resumed after cuts with no gap or repeat, a write whose answer was
lost retried once with its Idempotency-Key, the types regenerated from openapi.yaml unchanged,
and the bot's command line. Node.js 20+ and npm are required: without them these tests fail."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.runtime import embedded
from tests.conftest import fresh_database
from tests.test_cli import free_port, wait_ready

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "typescript"
# The SDK's test files (clients/typescript/test/*.test.ts), each run as a test here.
SUITES = ["contract", "client", "games", "streams", "bot"]


def npm() -> str:
    found = shutil.which("npm")
    if found is None or shutil.which("node") is None:
        pytest.fail("the TypeScript SDK's tests need Node.js 20+ and npm on the PATH "
                    "(install them, then run ./quickstart test)")
    return found


@pytest.fixture(scope="module")
def building() -> Iterator[subprocess.Popen[str]]:
    """The SDK with its pinned dependencies (installed by ./quickstart, else here), being built
    by `npm run build` (tsc strict, and the library checked again without Node's types) while
    Banco starts."""
    tool = npm()
    lock = SDK / "package-lock.json"
    mark = SDK / "node_modules" / ".installed"
    want = hashlib.sha256(lock.read_bytes()).hexdigest()
    if not mark.is_file() or want not in mark.read_text():
        subprocess.run([tool, "ci", "--no-audit", "--no-fund", "--silent"], cwd=SDK, check=True,
                       timeout=300)
        mark.write_text(f"{want}  {lock.relative_to(ROOT)}\n")
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


@pytest.fixture(scope="module")
def banco(servers: embedded.EmbeddedServers, redis_url: str,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """`banco run` with one worker on a database of its own (the SDK's tests read the whole log's
    feed): its URL and operator key."""
    with fresh_database(servers.database_url, "banco_sdk_ts") as database_url:
        tmp_path = tmp_path_factory.mktemp("banco")
        port, key = free_port(), secrets.token_urlsafe(24)
        env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
               "BANCO_OPERATOR_KEY": key, "BANCO_QUEUE": f"banco-sdk-ts-{secrets.token_hex(4)}",
               "BANCO_RATE_LIMIT": "100000/minute"}
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "run", "--data-dir",
                                 str(tmp_path / "data"), "--port", str(port), "--workers", "1"],
                                cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 60)
            yield f"http://127.0.0.1:{port}", key
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)


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
