"""What the house signs of an evidence bundle (its `attestation`): the bundle's canonical JSON,
written alike by every reader. Built by `service.application.evidence`, read by
`service.verification.bundle_check`; the standalone verifiers write it the same way."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import orjson


def es_number(x: float) -> str:
    """A number as ECMAScript prints it (Number::toString, RFC 8785 §3.2.2.3): the shortest
    digits that read back as `x`, which Python's repr gives too, laid out as JavaScript does
    (`1.5`, `3`, `1e+21`, `1e-7`), so that a reader in any language writes it alike."""
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError(f"{x} has no JSON form")
    if x == 0:
        return "0"
    _, digits, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    d = "".join(map(str, digits))
    k, n = len(d), int(exponent) + len(d)
    if k <= n <= 21:
        out = d + "0" * (n - k)
    elif 0 < n <= 21:
        out = d[:n] + "." + d[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + d
    else:
        out = (d if k == 1 else d[0] + "." + d[1:]) + "e" + ("+" if n - 1 >= 0 else "-") + str(abs(n - 1))
    return ("-" if x < 0 else "") + out


def _es_numbers(value: Any) -> Any:
    """`value` with each number that is not an int written as ECMAScript would."""
    if isinstance(value, float):
        return orjson.Fragment(es_number(value))
    if isinstance(value, dict):
        return {k: _es_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_es_numbers(v) for v in value]
    return value


def attestation_text(bundle: dict[str, Any]) -> bytes:
    """What the house signs of a bundle: its canonical JSON (sorted keys, no spaces, UTF-8, as
    the events' stored texts; a number that is not an integer, such as a deadline in what a
    withheld event shows, written as ECMAScript does: RFC 8785's form, which every language's
    reader reproduces) with `attestation.signature` left out."""
    attestation = {k: v for k, v in (bundle.get("attestation") or {}).items() if k != "signature"}
    return orjson.dumps(_es_numbers({**bundle, "attestation": attestation}),
                        option=orjson.OPT_SORT_KEYS)
