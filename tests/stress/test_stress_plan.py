"""The stress suite runs by hand (`./quickstart stress`), so the default suite checks that it can:
every fixture its tests ask for is found (pytest's `--setup-plan` resolves them, runs nothing)."""

from __future__ import annotations

import subprocess
import sys

from tests.service.conftest import ROOT


def test_every_stress_test_finds_its_fixtures():
    plan = subprocess.run([sys.executable, "-m", "pytest", "-m", "stress", "tests/stress",
                           "--setup-plan", "-q", "-p", "no:xdist", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert plan.returncode == 0, plan.stdout[-3000:]
    assert "test_stress_races" in plan.stdout and "not found" not in plan.stdout
