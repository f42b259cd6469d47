"""Only `service/runtime/config.py` reads the environment: every other module is handed its
settings by its process's composition root."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("service", "events", "projections", "workers", "games")
CONFIG = ROOT / "service" / "runtime" / "config.py"


def reads(path: Path, root: Path = ROOT) -> list[str]:
    """Where `path` touches the process's environment: `os.environ`, `os.getenv`, `os.putenv`,
    or either imported by name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "environb", "getenv",
                                                             "putenv", "unsetenv") \
                and isinstance(node.value, ast.Name) and node.value.id == "os":
            found.append(f"{path.relative_to(root)}:{node.lineno}: os.{node.attr}")
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"{path.relative_to(root)}:{node.lineno}: from os import {a.name}"
                      for a in node.names if a.name in ("environ", "environb", "getenv", "putenv")]
    return found


def test_the_environment_is_read_in_config_alone():
    files = [p for package in PRODUCT for p in sorted((ROOT / package).rglob("*.py")) if p != CONFIG]
    assert len(files) > 100  # the product's modules, not an empty folder
    assert [hit for path in files for hit in reads(path)] == []


def test_the_check_finds_a_read(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\nfrom os import getenv\nURL = os.environ.get('X') or getenv('Y')\n")
    assert sorted(reads(probe, tmp_path)) == ["probe.py:2: from os import getenv",
                                              "probe.py:3: os.environ"]


def test_every_setting_read_is_in_the_readmes_table():
    names = set(re.findall(r'"((?:BANCO|DATABASE|REDIS|PROMETHEUS)_[A-Z_]+)"', CONFIG.read_text()))
    names -= {"BANCO_TEST_CRASH_POINT"}  # the tests' hook, no setting
    assert {"DATABASE_URL", "BANCO_SWEEP_EVERY_S", "BANCO_WEBHOOK_LEASE_S"} <= names
    rows = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `")]
    assert sorted(n for n in names if not any(f"`{n}`" in row for row in rows)) == []
