"""openapi.yaml "is enough to generate a client from" (README) with the TypeScript generators third
parties run: orval (its fetch client), @hey-api/openapi-ts, openapi-generator's typescript-fetch
and openapi-typescript each generate a client from it in a temporary folder, which compiles under
`tsc --strict` with a probe of the types that matter: a nullable reference is that object or null
(not `any`), a nullable union still tells its members apart, and a table's stream message is a
table or one of its events.

The generators are pinned (tests/generators, installed by ./quickstart, else here; the
openapi-generator-cli of the test extra, whose jar runs on the machine's Java). Node.js 20+, npm
and Java are required: without them these tests fail."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "openapi.yaml"
TOOLS = ROOT / "tests" / "generators"
BIN = TOOLS / "node_modules" / ".bin"
# openapi-generator's launcher, installed beside this Python by the test extra.
OPENAPI_GENERATOR = Path(sys.executable).parent / "openapi-generator-cli"

# Each generator's command, writing its client into a folder, and the module its types are in.
GENERATORS: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "orval": (lambda out: [str(BIN / "orval"), "--input", str(SPEC), "--output", str(out / "api.ts"),
                           "--client", "fetch", "--mode", "single"], "./api"),
    "hey-api": (lambda out: [str(BIN / "openapi-ts"), "--input", str(SPEC), "--output", str(out)],
                "./types.gen"),
    "openapi-generator": (lambda out: [str(OPENAPI_GENERATOR), "generate", "--generator-name",
                                       "typescript-fetch", "--input-spec", str(SPEC), "--output",
                                       str(out)], "./models/index"),
    "openapi-typescript": (lambda out: [str(BIN / "openapi-typescript"), str(SPEC), "--output",
                                        str(out / "schema.ts")], "./schema"),
}

TSCONFIG = {"compilerOptions": {
    "strict": True, "noEmit": True, "target": "ES2022", "module": "ESNext",
    "moduleResolution": "Bundler", "lib": ["ES2022", "DOM", "DOM.Iterable"], "skipLibCheck": True}}

# What a client's types must say, `{Name}` a component's type in the generator's own terms.
PROBE = """\
type IsAny<T> = 0 extends 1 & T ? true : false;

// A nullable reference (a table's hand): null or the hand, and nothing else.
export const noHand: {CasinoPirateTable}["hand"] = null;
export const aHand: NonNullable<{CasinoPirateTable}["hand"]> = {{}} as {HandRef};
export const handIsTyped: IsAny<{CasinoPirateTable}["hand"]> = false;
// @ts-expect-error: a string is no hand
export const notAHand: {CasinoPirateTable}["hand"] = "hd_0123456789abcdef";

// A nullable union (a hand's outcome): null, or a view told apart by its game.
export const noOutcome: {Hand}["outcome"] = null;
export const aGame: NonNullable<{Hand}["outcome"]>["game"] = "cassino";
// @ts-expect-error: no game of Banco's
export const noGame: NonNullable<{Hand}["outcome"]>["game"] = "poker";

// A message of a table's stream: a table or one of its events.
export const aTable: {TableStreamMessage} = {{}} as {CassinoTable};
export const anEvent: {TableStreamMessage} = {{}} as {TableEventTreasurePosted};
export const messageIsTyped: IsAny<{TableStreamMessage}> = false;
// @ts-expect-error: a number is no message
export const notAMessage: {TableStreamMessage} = 1;
"""
NAMES = ("CasinoPirateTable", "HandRef", "Hand", "TableStreamMessage", "CassinoTable",
         "TableEventTreasurePosted")


def probe(generator: str) -> str:
    module = GENERATORS[generator][1]
    if generator == "openapi-typescript":
        head = f'import type {{ components }} from "{module}";\n'
        names = {n: f'components["schemas"]["{n}"]' for n in NAMES}
    else:
        head = f'import type * as M from "{module}";\n'
        names = {n: f"M.{n}" for n in NAMES}
    return head + PROBE.format(**names)


@pytest.fixture(scope="module")
def tools() -> Path:
    """The pinned generators and TypeScript (installed by ./quickstart, else here)."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.fail("the generated clients' check needs Node.js 20+ and npm on the PATH")
    if shutil.which("java") is None:
        pytest.fail("openapi-generator needs Java on the PATH (./quickstart test installs it)")
    lock = TOOLS / "package-lock.json"
    mark = TOOLS / "node_modules" / ".installed"
    want = hashlib.sha256(lock.read_bytes()).hexdigest()
    if not mark.is_file() or want not in mark.read_text():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--silent"], cwd=TOOLS, check=True,
                       timeout=300)
        mark.write_text(f"{want}  {lock.relative_to(ROOT)}\n")
    return BIN


@pytest.mark.parametrize("generator", list(GENERATORS))
def test_a_client_generated_from_openapi_compiles_strict(tools, tmp_path, generator):
    """The generator's client of openapi.yaml, and the probe of its types, compile under
    `tsc --strict` (orval once wrote a nullable reference `HandRef |  | null`; openapi-generator
    imported an `instanceOfTable` it never wrote for a union of unions)."""
    out = tmp_path / generator
    out.mkdir()
    command, _ = GENERATORS[generator]
    made = subprocess.run(command(out), capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    (out / "probe.ts").write_text(probe(generator))
    (out / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    checked = subprocess.run([str(tools / "tsc"), "--strict", "--noEmit", "-p", str(out)],
                             capture_output=True, text=True, timeout=300, cwd=out)
    errors = [line for line in checked.stdout.splitlines() if "error TS" in line]
    assert checked.returncode == 0, f"{len(errors)} errors:\n" + "\n".join(errors[:20])
