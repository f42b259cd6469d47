"""Banco as a deployment runs it, on the session's PostgreSQL and Redis: `banco serve` (the API
under gunicorn) and `banco worker` (settlements, timeouts), for the clients' tests."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.test_timeouts import stop_group
from tests.test_cli import free_port, wait_ready

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def banco(database_url: str, redis_url: str) -> Iterator[tuple[str, str]]:
    """The API (one gunicorn worker) and a worker on a queue of their own: URL, operator key."""
    port, key = free_port(), secrets.token_urlsafe(24)
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "BANCO_OPERATOR_KEY": key, "BANCO_QUEUE": f"banco-sdk-{secrets.token_hex(4)}"}
    procs = [subprocess.Popen([sys.executable, "-m", "service.cli", *args], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
             for args in (["serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"], ["worker"])]
    try:
        wait_ready(f"http://127.0.0.1:{port}/healthz", time.monotonic() + 60)
        yield f"http://127.0.0.1:{port}", key
    finally:
        for proc in procs:
            stop_group(proc)
