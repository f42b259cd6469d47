"""`banco-verify-bundle FILE [--key KEY] [--json] [--allow-unattested]`."""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import sys
from pathlib import Path

from banco_verifier.checks import named, named_line, read_json, verify

DESCRIPTION = ("Checks a Banco evidence bundle offline. Exit status 0 when no check failed, 1 when"
               " one did, 2 when the file or the key cannot be read.")


def _text(path: Path) -> str:
    """A file's text as both verifiers read it: UTF-8, a leading byte order mark dropped."""
    return path.read_bytes().decode("utf-8").removeprefix("\ufeff")


# A key given on the command line itself: padded base64 (a house key's is 44 characters).
# Anything else, or a name a file has, is a file to read the key from.
BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


# What an empty --key (`--key ""`, a variable that was not set) is told, by both verifiers.
EMPTY = "empty: give the house's public key (base64) or a file that holds it"


class KeyRefused(ValueError):
    """--key names no house key: said in one line, exit status 2, as an unreadable bundle is."""


def _key(text: str | None) -> bytes | None:
    """The house's public key: base64 of its 32 bytes, or a file holding that or the JSON
    of Banco's /.well-known/banco-house-key."""
    if text is None:
        return None
    if text == "":  # Path("") is the current folder: it would be read as a key file
        raise KeyRefused(f"--key: {EMPTY}")
    path = Path(text)
    if not path.exists() and len(text) % 4 == 0 and BASE64.fullmatch(text):
        raw = base64.b64decode(text)
        if len(raw) != 32:
            raise KeyRefused(f"--key: {text} is no file, and as base64 not an Ed25519 public key"
                             " (32 bytes)")
        return raw
    name = text
    try:
        text = _text(path).strip()
    except FileNotFoundError:
        raise KeyRefused(f"--key: {name} cannot be read (no such file)") from None
    except IsADirectoryError:
        raise KeyRefused(f"--key: {name} cannot be read (a folder, not a file)") from None
    except OSError as e:
        raise KeyRefused(f"--key: {name} cannot be read ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise KeyRefused(f"--key: {name} cannot be read ({e})") from None
    if text.startswith("{"):
        try:
            published = read_json(text)
        except ValueError as e:
            raise KeyRefused(f"--key: {name} is not JSON ({e})") from None
        if not isinstance(published, dict) or not isinstance(published.get("public_key"), str):
            raise KeyRefused(f'--key: {name} has no "public_key" (as Banco\'s'
                             " /.well-known/banco-house-key has)") from None
        text = published["public_key"]
    try:
        raw = base64.b64decode(text)
    except ValueError:  # binascii.Error
        raise KeyRefused("--key: an Ed25519 public key is 32 bytes, in base64") from None
    if len(raw) != 32:
        raise KeyRefused("--key: an Ed25519 public key is 32 bytes")
    return raw


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="banco-verify-bundle", description=DESCRIPTION)
    parser.add_argument("bundle", type=Path, help="the evidence bundle (JSON)")
    parser.add_argument("--key", help="the house's public key (base64, or a file with it)")
    parser.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    parser.add_argument("--allow-unattested", action="store_true",
                        help="check a banco-evidence/1 bundle, made before bundles were attested:"
                             " its attestation is skipped, not failed (its viewer, shown data and"
                             " summary fields are then its word alone)")
    args = parser.parse_args(argv)
    try:
        bundle = read_json(_text(args.bundle))
    except (OSError, ValueError) as e:
        print(f"{args.bundle}: cannot be read as JSON ({e})", file=sys.stderr)
        return 2
    try:
        key = _key(args.key)
    except KeyRefused as e:
        print(e, file=sys.stderr)
        return 2
    result = verify(bundle, key, allow_unattested=args.allow_unattested)
    names = named(bundle)
    try:
        if args.json:
            print(json.dumps({"ok": result.ok, **names,
                              "checks": {k: {"status": s, "detail": d}
                                         for k, (s, d) in result.outcomes.items()}}))
        else:
            print(f"{'BUNDLE':8} {'of':11} {named_line(names)}")
            for name, (status, detail) in result.outcomes.items():
                print(f"{status.upper():8} {name:11} {detail}")
            print("VERIFIED" if result.ok else f"FAILED: {', '.join(result.failed())}")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as Unix tools do, and keep Python from
        # complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
