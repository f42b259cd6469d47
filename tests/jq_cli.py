"""`jq` for the documentation's shell examples, on the `jq` package's libjq: the tests that run
them need no jq installed. The flags they use: `-r` (strings raw) and `-c` (compact)."""

from __future__ import annotations

import json
import sys

import jq


def main(argv: list[str]) -> int:
    flags = "".join(a[1:] for a in argv if a.startswith("-") and len(a) > 1)
    programs = [a for a in argv if not a.startswith("-") or len(a) == 1]
    text = sys.stdin.read()
    if not text.strip():
        return 0  # as jq: no input, no output
    for value in jq.compile(programs[0] if programs else ".").input_text(text).all():
        if "r" in flags and isinstance(value, str):
            print(value)
        elif "c" in flags:
            print(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
        else:
            print(json.dumps(value, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
