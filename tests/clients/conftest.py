"""`banco run` (the API, a worker and its scheduler) on the session's PostgreSQL and Redis, for
the clients' tests."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_cli import free_port, wait_ready

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def banco(database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[tuple[str, str]]:
    """`banco run` with one API worker, on a queue of its own: its URL and operator key."""
    data = tmp_path_factory.mktemp("banco") / "data"
    port, key = free_port(), secrets.token_urlsafe(24)
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "BANCO_OPERATOR_KEY": key, "BANCO_QUEUE": f"banco-sdk-{secrets.token_hex(4)}"}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "run", "--data-dir", str(data),
                             "--port", str(port), "--workers", "1"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", time.monotonic() + 60)
        yield f"http://127.0.0.1:{port}", key
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
