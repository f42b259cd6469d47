"""`banco-verify-bundle FILE [--key KEY]`: exit 0 when no check failed, 1 when one did."""

from __future__ import annotations

import argparse
import base64
import json
import sys
from pathlib import Path

from banco_verifier.checks import verify


def _key(text: str | None) -> bytes | None:
    """The house's public key: base64 of its 32 bytes, or a file holding that or the JSON
    of Banco's /.well-known/banco-house-key."""
    if text is None:
        return None
    path = Path(text)
    if path.exists():
        text = path.read_text().strip()
        if text.startswith("{"):
            text = json.loads(text)["public_key"]
    raw = base64.b64decode(text)
    if len(raw) != 32:
        raise SystemExit("--key: an Ed25519 public key is 32 bytes")
    return raw


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="banco-verify-bundle", description=__doc__)
    parser.add_argument("bundle", type=Path, help="the evidence bundle (JSON)")
    parser.add_argument("--key", help="the house's public key (base64, or a file with it)")
    parser.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    args = parser.parse_args(argv)
    try:
        bundle = json.loads(args.bundle.read_bytes())
    except (OSError, ValueError) as e:
        print(f"{args.bundle}: cannot be read as JSON ({e})", file=sys.stderr)
        return 2
    result = verify(bundle, _key(args.key))
    if args.json:
        print(json.dumps({"ok": result.ok, "checks": {k: {"status": s, "detail": d}
                                                       for k, (s, d) in result.outcomes.items()}}))
    else:
        for name, (status, detail) in result.outcomes.items():
            print(f"{status.upper():8} {name:11} {detail}")
        print("VERIFIED" if result.ok else f"FAILED: {', '.join(result.failed())}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
