"""What a name shown to people (a player's, an auditor's, a key's) may hold: at least one
visible character, and no control characters or line breaks. A line break, a tab or a NUL in a
name breaks the lists, logs and exports that show it; a name of spaces, zero-width characters or
blank symbols shows as nothing. Text-direction characters are names' own (a name in Hebrew or
Arabic may need its marks): the pages set each name apart from the words around it
(FSI ... PDI), so that none reorders them."""

from __future__ import annotations

import unicodedata

from marshmallow import ValidationError

NAME = "At least one visible character; no control characters or line breaks."

# Characters drawn as nothing though they are letters or symbols: the blank Braille pattern and
# the Hangul fillers. (Format characters, zero-width ones among them, are invisible by category.)
BLANK = frozenset("\u2800\u115f\u1160\u3164\uffa0")


def display_name(value: str) -> None:
    """A marshmallow validator: raises ValidationError saying what is wrong with `value`."""
    for at, char in enumerate(value):
        category = unicodedata.category(char)
        if category == "Cc" or category in ("Zl", "Zp"):
            kind = "control characters" if category == "Cc" else "line breaks"
            raise ValidationError(f"a name holds no {kind}: U+{ord(char):04X} at position {at}")
    if all(c.isspace() or c in BLANK or unicodedata.category(c) in ("Cf", "Zs") for c in value):
        raise ValidationError("a name needs a visible character, not only spaces or invisible"
                              " ones")
