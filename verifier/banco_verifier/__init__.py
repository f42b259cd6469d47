"""An independent verifier of Banco evidence bundles (formats `banco-evidence/1` and `/2`)."""

from banco_verifier.checks import Result, verify

__all__ = ["Result", "verify"]
