"""What a name shown to people (a player's, an auditor's, a key's) may hold: at least one
visible character, and no control characters. A line break, a tab or a NUL in a name breaks
the lists, logs and exports that show it. Text-direction characters are names' own (a name in
Hebrew or Arabic may need its marks): the pages set each name apart from the words around it
(FSI ... PDI), so that none reorders them."""

from __future__ import annotations

import unicodedata

from marshmallow import ValidationError

NAME = "At least one visible character; no control characters (line breaks, tabs)."


def display_name(value: str) -> None:
    """A marshmallow validator: raises ValidationError saying what is wrong with `value`."""
    if not value.strip():
        raise ValidationError("a name needs a visible character, not only spaces")
    for at, char in enumerate(value):
        if unicodedata.category(char) == "Cc":
            raise ValidationError(f"a name holds no control characters: U+{ord(char):04X} at"
                                  f" position {at}")
