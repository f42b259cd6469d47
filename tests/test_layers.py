"""Imports only go down the layers: the contracts in pyproject.toml, checked by import-linter."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_no_import_climbs_back_up_a_layer():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(("module", "source", "broken"), [
    ("games/clock.py", "import time\n", "games is not allowed to import time"),
    ("games/luck.py", "import random\n", "games is not allowed to import random"),
    ("games/store.py", "import psycopg\n", "games is not allowed to import psycopg"),
    ("service/application/request.py", "from flask import g\n",
     "service.application is not allowed to import flask"),
    # Independent siblings: neither may import the other.
    ("projections/settings.py", "from service.runtime import config\n",
     "projections is not allowed to import service.runtime"),
])
def test_a_forbidden_import_breaks_a_contract(tmp_path, module, source, broken):
    """The contracts bite: a copy of the code with one import added fails them."""
    for package in ("service", "workers", "projections", "events", "games"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "static", "templates"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    (tmp_path / module).write_text(source)
    lint = Path(sys.executable).with_name("lint-imports")
    # The copy first on the path: the editable install would otherwise find the original.
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([str(lint), "--no-cache"], cwd=tmp_path, capture_output=True, text=True,
                          env=env)
    assert done.returncode != 0, done.stdout
    assert broken in " ".join(done.stdout.split())
