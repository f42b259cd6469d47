"""Files the `banco` commands write: whole or not at all."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import click


@contextmanager
def written(path: Path) -> Iterator[BinaryIO]:
    """A file that becomes `path` when the block ends without an error, and vanishes otherwise.

    It is created on entering, in `path`'s folder: a path that cannot be written fails then,
    before the block does anything (records a checkpoint, say), and a failed block leaves
    neither a partial file nor a clobbered old one.

    Only a new path or a regular file is replaced so. Anything else the user named, a device
    (`/dev/stdout`), a FIFO or a symbolic link, is written through as it stands: replacing it
    would turn a device or a pipe into a plain file, or a link into a copy of its target.
    """
    if path.is_dir():
        raise click.ClickException(f"cannot write {path}: it is a folder")
    if path.is_symlink() or (path.exists() and not path.is_file()):
        try:
            with open(path, "wb") as through:
                yield through
        except OSError as e:
            raise click.ClickException(f"cannot write {path}: {e.strerror}") from e
        return
    folder = path.parent
    temporary = folder / f".{path.name}.{secrets.token_hex(4)}.part"
    try:
        # Not mkstemp, whose files are private: this one gets the permissions the umask gives.
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as e:
        if not folder.is_dir():
            raise click.ClickException(f"cannot write {path}: there is no folder {folder}") from e
        # The folder is there (`/proc`'s creation refusals read "No such file or directory").
        raise click.ClickException(f"cannot write {path}: no file can be created in {folder}"
                                   f" ({e.strerror})") from e
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
