"""Writes banco_sdk/models.py from openapi.yaml with datamodel-code-generator (the `dev` extra).

    python clients/python/generate.py            # from the repository's openapi.yaml

The spec writes a nullable reference as `oneOf: [X, {enum: [null], nullable: true, type: object}]`,
the form OpenAPI 3.0.3 allows; the generator reads that null branch as an object, so it is rewritten
here as `X` made nullable before generating. tests/clients/test_python_sdk.py generates again and
compares with the committed file: a change to the spec that changes the models fails it until they
are generated again (and the SDK's code fits them).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
SPEC = HERE.parents[1] / "openapi.yaml"
MODELS = HERE / "banco_sdk" / "models.py"
NULL = {"enum": [None], "nullable": True, "type": "object"}
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


def nullable(node: Any) -> Any:
    """The spec with each `oneOf`'s null branch folded into `nullable: true`."""
    if isinstance(node, dict):
        out = {k: nullable(v) for k, v in node.items()}
        for key in ("oneOf", "anyOf"):
            if key in out and NULL in out[key]:
                out[key] = [branch for branch in out[key] if branch != NULL]
                out["nullable"] = True
        return out
    if isinstance(node, list):
        return [nullable(v) for v in node]
    return node


def generate(spec: Path = SPEC) -> str:
    """The models' module for `spec`, as text."""
    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / "openapi.yaml", Path(tmp) / "models.py"
        loaded = yaml.load(spec.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        source.write_text(yaml.dump(nullable(loaded), Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper)))
        run = subprocess.run([sys.executable, "-m", "datamodel_code_generator", "--input", str(source),
                              "--output", str(target), *ARGS], capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(run.stderr)
        return target.read_text()


if __name__ == "__main__":
    MODELS.write_text(generate())
    print(f"wrote {MODELS.relative_to(Path.cwd()) if MODELS.is_relative_to(Path.cwd()) else MODELS}")
