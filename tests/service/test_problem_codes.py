"""openapi.yaml's enum of a problem's `code` lists every code the application can answer with,
and no other: read from the source, every call that makes a problem, a refusal or an engine's
illegal move, and the tables of codes the shared error handling falls back on."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from service.application.credentials import NOT_FOUND
from service.http.problem_codes import PROBLEM_CODES
from service.http.problems import DEFAULT_CODES, FALLBACK_CODE
from tests.service.responses import spec

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("service", "games", "events", "projections", "workers")
# Each maker of a problem and the place of its code among its arguments.
MAKERS = {"Problem": 1, "retry_later": 0, "IllegalMove": 0, "Refused": 0, "NotFound": 0,
          "Conflict": 0, "Invalid": 0, "Forbidden": 0, "PreconditionRequired": 0, "Stale": 0}
# A code that is not written where it is made, passed on from what made it: an IllegalMove's to
# the Invalid it becomes, a refusal's to its Problem, retry_later's argument, a credential's
# missing role (NOT_FOUND, read below).
PASSED_ON = {"e.code", "code", "NOT_FOUND[role]"}


def _codes(node: ast.expr | None, where: str) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _codes(node.body, where) | _codes(node.orelse, where)
    text = ast.unparse(node) if node is not None else "nothing"
    assert text in PASSED_ON, f"{where}: a code made as {text!r} cannot be read here"
    return set()


def made(source: str, where: str) -> set[str]:
    """The codes the calls of `source` make."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name not in MAKERS:
            continue
        at = MAKERS[name]
        arg = node.args[at] if len(node.args) > at else \
            next((k.value for k in node.keywords if k.arg == "code"), None)
        found |= _codes(arg, f"{where}:{node.lineno}")
    return found


def every_code() -> set[str]:
    found = set(DEFAULT_CODES.values()) | set(NOT_FOUND.values()) | {FALLBACK_CODE}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found |= made(path.read_text(), str(path.relative_to(ROOT)))
    return found


def test_the_enum_lists_every_code_made_and_no_other():
    found = every_code()
    assert len(found) > 90  # the scan reads the engines and the service, not an empty tree
    assert sorted(found - set(PROBLEM_CODES)) == [], "codes the enum misses"
    assert sorted(set(PROBLEM_CODES) - found) == [], "codes no code makes"
    assert list(PROBLEM_CODES) == sorted(set(PROBLEM_CODES))


def test_openapi_yaml_says_the_enum():
    assert spec()["components"]["schemas"]["Problem"]["properties"]["code"]["enum"] \
        == list(PROBLEM_CODES)


@pytest.mark.parametrize(("source", "codes"), [
    ('raise Invalid("made_up", "x")', {"made_up"}),
    ('raise Problem(409, "raced", "x")', {"raced"}),
    ('raise IllegalMove(code="kw", message="x")', {"kw"}),
    ('raise Conflict("a" if over else "b", "x")', {"a", "b"}),
])
def test_the_scan_reads_each_way_a_code_is_written(source, codes):
    assert made(source, "t") == codes


def test_a_code_the_scan_cannot_read_fails_it():
    """A code computed where it is made (a new one's would escape the enum) is refused."""
    with pytest.raises(AssertionError, match="cannot be read"):
        made('raise Invalid(f"bad_{what}", "x")', "t")
