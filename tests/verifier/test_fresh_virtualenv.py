"""A bundle fetched from a running Banco, verified on the side of someone who has nothing of
Banco: the standalone verifier installed alone in a fresh virtualenv, and the JavaScript one."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import venv
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from service.runtime import house_key
from service.verification.bundle_check import check
from tests.verifier.test_vectors import VERIFIER, expected_failure, node_verifier
from tests.verifier.vectors import banco, played, write


def test_a_bundle_from_a_running_banco_verifies_where_banco_is_not_installed(servers, redis_url, tmp_path):
    with banco(servers.database_url, redis_url) as (base, data):
        full, mine, key_doc = played(base)
        house_file = data / "house_key.pem"
        # The key generated at the first start: its owner's alone, the one the house publishes.
        assert house_file.stat().st_mode & 0o077 == 0
        private = house_key.load(house_file)
        assert key_doc["public_key"] == house_key.public_b64(private)
        Ed25519PublicKey.from_public_bytes(base64.b64decode(key_doc["public_key"]))
        vectors = tmp_path / "vectors"
        write(vectors, full, mine, key_doc, private)

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    python = env_dir / "bin" / "python"
    # A copy, as a download of the package alone would be (and the clone's tree stays clean).
    package = shutil.copytree(VERIFIER, tmp_path / "banco-verifier",
                              ignore=shutil.ignore_patterns("build", "*.egg-info", "js", "vectors"))
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", str(package)],
                             capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr
    # Nothing of Banco is there to lean on.
    for package in ("service", "events", "games", "flask", "psycopg"):
        probe = subprocess.run([str(python), "-c", f"import {package}"], capture_output=True,
                               cwd=tmp_path, timeout=60)
        assert probe.returncode != 0, package
    command = str(env_dir / "bin" / "banco-verify-bundle")
    key = str(vectors / "house-key.json")
    for vector in sorted(vectors.glob("*-*.json")):
        if vector.name == "house-key.json":
            continue
        run = subprocess.run([command, "--json", "--key", key, str(vector)], capture_output=True,
                             text=True, cwd=tmp_path, timeout=60)
        outcome = json.loads(run.stdout)
        failed = {k for k, v in outcome["checks"].items() if v["status"] == "failed"}
        named = expected_failure(vector)
        if named is None:
            assert run.returncode == 0 and not failed, outcome
        else:
            assert run.returncode == 1 and named in failed, (vector.name, outcome)
        assert node_verifier(vector, Path(key))["ok"] == (named is None), vector.name
        pinned = base64.b64decode(key_doc["public_key"])
        banco_failed = {n for n, (p, _) in check(json.loads(vector.read_text()), pinned).items()
                        if p is False}
        assert (not banco_failed) if named is None else named in banco_failed, vector.name
