"""The `banco` command: serving, running everything at once, audits, exports, migrations. The
top layer: it may import every other."""

import sys


def entry() -> None:
    """`banco`. Ctrl-C while the command's modules still load (a few tenths of a second) ends it
    as it does later, quietly with status 130, rather than in a traceback of the imports."""
    try:
        from service.cli.main import main
    except KeyboardInterrupt:
        sys.exit(130)
    main(prog_name="banco")  # as `python -m service.cli` too: its messages name the command to type
