"""The `banco` command: serving, running everything at once, audits, exports, migrations. The
top layer: it may import every other."""
