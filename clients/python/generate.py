"""Writes banco_sdk/models.py from openapi.yaml with datamodel-code-generator (the `dev` extra).

    python clients/python/generate.py            # from the repository's openapi.yaml

A nullable reference in the spec (`oneOf` it and the `Null` component, null and nothing else) is
read as `X | None`. tests/clients/test_python_sdk.py generates again and compares with the
committed file: a change to the spec that changes the models fails it until they are generated again
(and the SDK's code fits them).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPEC = HERE.parents[1] / "openapi.yaml"
MODELS = HERE / "banco_sdk" / "models.py"
HEADER = ("# Generated from openapi.yaml by clients/python/generate.py: do not edit.\n"
          "# ruff: noqa")
ARGS = ["--input-file-type", "openapi", "--output-model-type", "pydantic_v2.BaseModel",
        "--target-python-version", "3.11", "--use-annotated", "--field-constraints",
        "--use-standard-collections", "--use-union-operator", "--enum-field-as-literal", "all",
        # Fields a newer server adds are ignored, not refused: an old client keeps reading.
        "--extra-fields", "ignore", "--strict-nullable", "--use-schema-description",
        # A union (a table by game, an action by type) read in place, not wrapped in a RootModel.
        "--collapse-root-models", "--disable-timestamp", "--formatters", "builtin",
        "--custom-file-header", HEADER]


def generate(spec: Path = SPEC) -> str:
    """The models' module for `spec`, as text."""
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "models.py"
        run = subprocess.run([sys.executable, "-m", "datamodel_code_generator", "--input", str(spec),
                              "--output", str(target), *ARGS], capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(run.stderr)
        return target.read_text()


if __name__ == "__main__":
    MODELS.write_text(generate())
    print(f"wrote {MODELS.relative_to(Path.cwd()) if MODELS.is_relative_to(Path.cwd()) else MODELS}")
