"""`python -m bench append|rebuild|export|feed|webhooks|peer|http|streams|validate|large|wal|
snapshots|pages [options]`: run one; `all` runs them in turn."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from bench import (
    append,
    export,
    feed,
    http,
    http_streams,
    large_log,
    pages,
    peer,
    rebuild,
    snapshots,
    validate,
    wal,
    webhooks,
)

COMMANDS = {"append": append.main, "rebuild": rebuild.main, "export": export.main,
            "feed": feed.main, "webhooks": webhooks.main, "peer": peer.main,
            "http": http.main, "streams": http_streams.main, "validate": validate.main,
            "large": large_log.main, "wal": wal.main, "snapshots": snapshots.main,
            "pages": pages.main}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in (*COMMANDS, "all"):
        print("usage: python -m bench {append,rebuild,export,feed,webhooks,peer,http,streams,"
              "validate,large,wal,snapshots,pages,all} [--quick] [options]\n"
              "       python -m bench append --help", file=sys.stderr)
        return 2
    if args[0] == "all":
        status = 0
        for command in COMMANDS.values():
            status |= command(args[1:])
            print()
        return status
    return COMMANDS[args[0]](args[1:])


if __name__ == "__main__":
    raise SystemExit(main())
