"""An independent verifier of Banco evidence bundles (format `banco-evidence/1`)."""

from banco_verifier.checks import Result, verify

__all__ = ["Result", "verify"]
