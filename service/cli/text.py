"""What the `banco` commands print of text that users wrote (players' and auditors' names,
dispute reasons and notes, key names...): `shown` escapes its control characters, so that such
text can neither start a line of its own ("status: rejected") nor send the terminal escape
sequences (clear the screen, recolour what follows). Every command prints such text through it;
their --json output is JSON as it is, its strings escaped by JSON's own rules.
"""

from __future__ import annotations

import re

# C0 (newline and ESC among them), DEL and C1 (Unicode's category Cc); the bidirectional
# embeddings, overrides and isolates, which reorder what follows them on the line; and the
# backslash itself, so that an escape shown is never text the user typed.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\\]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def shown(text: object) -> str:
    """`text` as a line of a command's output shows it: each control character escaped (`\\n`,
    `\\t`, `\\x1b`...), everything else as it is."""
    return _CONTROL.sub(_escaped, str(text))
